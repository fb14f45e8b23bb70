package sql

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The hash set of an integer IN list answers as comparing item by item does.
func TestInSetAgreesWithComparing(t *testing.T) {
	lists := map[string][]any{
		"small":    {int64(1), int64(-3), int64(7), uint64(9)},
		"big uint": {uint64(math.MaxUint64), int64(0)},
		"one":      {int64(1 << 53)},
	}
	values := []any{
		int64(1), int64(2), int64(-3), int64(0), uint64(9), uint64(math.MaxUint64), uint64(math.MaxInt64 + 1),
		float64(7), 7.5, -3.0, math.NaN(), math.Inf(1), float64(1 << 53), float64(1<<53) * 4,
		"7", " 7 ", "7.0", "x", "", []int64{2, 9}, []int64{4}, []int64{},
	}
	for name, items := range lists {
		list := make([]expr, len(items))
		for i, v := range items {
			list[i] = constExpr{v}
		}
		fast := newInExpr(idle{}, list, false)
		if !assert.NotNil(t, fast.set, name) {
			continue
		}
		slow := fast
		slow.set = nil
		for _, v := range values {
			fast.x, slow.x = constExpr{v}, constExpr{v}
			want, err := slow.eval(nil)
			assert.NoError(t, err)
			got, err := fast.eval(nil)
			assert.NoError(t, err)
			assert.Equal(t, want, got, "%s: %#v IN %v", name, v, items)
		}
	}
	assert.Nil(t, newIntSet([]expr{constExpr{int64(1)}, constExpr{"2"}}), "a string item: compared one by one")
	assert.Nil(t, newIntSet([]expr{constExpr{int64(1)}, idExpr{}}), "a non-constant item")
}

// idle is an expression never evaluated.
type idle struct{}

func (idle) eval(*row) (any, error) { panic("evaluated") }
