package sql

import (
	"math"
	"slices"
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
		fast := newInExpr(idle{}, list, false, collLibcCI)
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

// FuzzInSet holds the hash set of an integer IN list to what comparing item
// by item answers, for any value a row may hold.
func FuzzInSet(f *testing.F) {
	f.Add(int64(3), uint64(1<<63), 3.0, " 3 ", int64(-1))
	f.Add(int64(1<<53), uint64(1<<53+1), float64(1<<53), "9007199254740993", int64(0))
	f.Fuzz(func(t *testing.T, a int64, b uint64, fl float64, str string, c int64) {
		list := []expr{constExpr{a}, constExpr{b}, constExpr{c}}
		fast := newInExpr(idle{}, list, false, collLibcCI)
		slow := fast
		slow.set = nil
		multi := []int64{c, a} // a multi attribute is sorted
		slices.Sort(multi)
		for _, v := range []any{a, b, c, fl, str, -fl, a + 1, multi} {
			fast.x, slow.x = constExpr{v}, constExpr{v}
			want, _ := slow.eval(nil)
			got, _ := fast.eval(nil)
			if want != got {
				t.Fatalf("%#v IN (%d, %d, %d): set says %v, comparing says %v", v, a, b, c, got, want)
			}
		}
	})
}
