package sql

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// helpers are the goroutines a statement may borrow, beside its own, to work
// on a batch: the rows of a page that HIGHLIGHT() evaluates, the texts of
// CALL SNIPPETS. There are GOMAXPROCS-1 of them across the server, and a
// statement takes only those that are free: on an idle server one statement
// has every core, on a busy one each batch runs on its statement's own
// goroutine and no work is handed between goroutines.
type helpers chan struct{}

func newHelpers() helpers { return make(helpers, max(runtime.GOMAXPROCS(0)-1, 0)) }

// each calls the function that newWorker returns for every item of [0, n),
// on the calling goroutine and on up to limit-1 free helpers (newWorker is
// called once per goroutine that gets an item, for state of its own). Items are taken in
// order. At the first error, or when ctx is cancelled, no more items are
// taken; the error is that of the earliest item that failed, as if the
// items had been worked on one by one.
func (h helpers) each(ctx context.Context, n, limit int, newWorker func() func(i int) error) error {
	if n == 1 || limit <= 1 {
		return serially(ctx, n, newWorker)
	}
	errs := make([]error, n)
	var next atomic.Int64
	var failed atomic.Bool
	// A worker's state is made once it has an item: a helper that starts
	// after the items ran out, or after one failed, makes none. (A helper
	// leaves only then, so a slot it frees never gets a working successor:
	// at most limit workers, at most the helpers free plus the caller.)
	work := func() {
		var fn func(int) error
		for !failed.Load() {
			i := int(next.Add(1) - 1)
			if i >= n {
				return
			}
			if fn == nil {
				fn = newWorker()
			}
			if err := ctx.Err(); err != nil {
				errs[i] = cancelled(err)
			} else {
				errs[i] = fn(i)
			}
			if errs[i] != nil {
				failed.Store(true)
			}
		}
	}
	var wg sync.WaitGroup
take:
	for range min(limit, n) - 1 {
		select {
		case h <- struct{}{}:
			wg.Go(func() {
				defer func() { <-h }()
				work()
			})
		default:
			break take
		}
	}
	work()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// serially is each on the calling goroutine alone, without the
// bookkeeping of shared items (one text of CALL SNIPPETS, a page of one
// row): the items in order, up to the first error.
func serially(ctx context.Context, n int, newWorker func() func(i int) error) error {
	if n <= 0 {
		return nil
	}
	fn := newWorker()
	for i := range n {
		if err := ctx.Err(); err != nil {
			return cancelled(err)
		}
		if err := fn(i); err != nil {
			return err
		}
	}
	return nil
}
