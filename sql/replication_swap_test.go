package sql

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/glint-search/glint/cluster"
	"github.com/stretchr/testify/require"
)

// TestReadDuringSnapshotInstall: local reads of a cluster's table while
// snapshots are installed (the database closed and replaced) answer from
// the database before or after, never fail.
func TestReadDuringSnapshotInstall(t *testing.T) {
	e := newMemEngine(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, e.StartReplication(Replication{
		Dir: t.TempDir(), Listener: l,
		Raft: func(o *cluster.Options) { o.TickInterval = 10 * time.Millisecond },
	}))
	t.Cleanup(e.StopReplication)
	s := e.NewSession("root")
	ctx := context.Background()
	for _, q := range []string{"CREATE CLUSTER c", "CREATE TABLE c:t (title text, n int)"} {
		_, err := s.Exec(ctx, q)
		require.NoError(t, err, q)
	}
	var sb strings.Builder
	sb.WriteString("INSERT INTO c:t (id, title, n) VALUES ")
	for i := 1; i <= 500; i++ {
		if i > 1 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d, 'the fox number %d', %d)", i, i, i%3)
	}
	_, err = s.Exec(ctx, sb.String())
	require.NoError(t, err)

	c, ok := e.repl.cluster("c")
	require.True(t, ok)
	sm := &clusterSM{c: c}
	var image bytes.Buffer
	require.NoError(t, sm.Snapshot(&image))

	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs := e.NewSession("root")
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Every kind of read: a SELECT, one with facets, CALL
				// SNIPPETS on the table's settings, SHOW and a search
				// request.
				res, err := rs.Exec(ctx, "SELECT id, title FROM t WHERE MATCH('fox') ORDER BY id ASC LIMIT 1000")
				if err == nil && len(res[0].Rows) != 500 {
					err = fmt.Errorf("%d rows, want 500", len(res[0].Rows))
				}
				if err == nil {
					res, err = rs.Exec(ctx, "SELECT id, title FROM t WHERE MATCH('fox') LIMIT 50 FACET n ORDER BY n ASC")
					if err == nil && (len(res) != 2 || len(res[1].Rows) != 3) {
						err = fmt.Errorf("facets: %d result sets", len(res))
					}
				}
				if err == nil {
					_, err = rs.Exec(ctx, "CALL SNIPPETS('a fox and a dog', 't', 'fox')")
				}
				if err == nil {
					_, err = rs.Exec(ctx, "SHOW TABLES")
				}
				if err == nil {
					var r *SearchResponse
					r, err = rs.Search(ctx, &SearchRequest{Table: "t", Limit: 5, Query: &TextCond{Query: "fox"}, Highlight: &HighlightRequest{}})
					if err == nil && r.Total != 500 {
						err = fmt.Errorf("search: %d found, want 500", r.Total)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range 20 {
		require.NoError(t, sm.Restore(bytes.NewReader(image.Bytes())))
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a read during a snapshot install: %v", err)
	}
}
