package sql

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHelpersEach(t *testing.T) {
	for _, c := range []struct {
		helpers, n, limit int
		failAt            []int // items that fail
		want              string
	}{
		{helpers: 0, n: 0, limit: 4},
		{helpers: 0, n: 10, limit: 4},
		{helpers: 3, n: 10, limit: 4},
		{helpers: 3, n: 1, limit: 4},
		{helpers: 3, n: 100, limit: 2},
		{helpers: 1, n: 10, limit: 10, failAt: []int{7}, want: "item 7"},
		{helpers: 3, n: 50, limit: 50, failAt: []int{49, 3, 20}, want: "item 3"},
		{helpers: 0, n: 5, limit: 5, failAt: []int{0, 1}, want: "item 0"},
	} {
		t.Run(fmt.Sprintf("%d helpers, %d items, limit %d, failing %v", c.helpers, c.n, c.limit, c.failAt), func(t *testing.T) {
			h := make(helpers, c.helpers)
			calls := make([]atomic.Int32, c.n)
			var workers atomic.Int32
			err := h.each(context.Background(), c.n, c.limit, func() func(int) error {
				workers.Add(1)
				return func(i int) error {
					calls[i].Add(1)
					for _, f := range c.failAt {
						if f == i {
							return fmt.Errorf("item %d", i)
						}
					}
					return nil
				}
			})
			require.Empty(t, h, "every helper is handed back")
			require.LessOrEqual(t, int(workers.Load()), min(c.helpers+1, max(c.limit, 1)))
			if c.want != "" {
				require.EqualError(t, err, c.want)
				return
			}
			require.NoError(t, err)
			for i := range calls {
				require.Equal(t, int32(1), calls[i].Load(), "item %d", i)
			}
		})
	}
}

func TestHelpersEachCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	err := make(helpers, 1).each(ctx, 100, 2, func() func(int) error {
		return func(i int) error {
			if calls.Add(1) == 3 {
				cancel()
			}
			return nil
		}
	})
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	require.Equal(t, CodeCancelled, e.Code)
	require.Less(t, int(calls.Load()), 100)
}
