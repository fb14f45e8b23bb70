package sql

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/glint-search/glint/cluster"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadDuringSnapshotInstall: local reads of a cluster's table while
// snapshots are installed (the database closed and replaced) answer from
// the database before or after, never fail.
func TestReadDuringSnapshotInstall(t *testing.T) {
	e, s := replicatingEngine(t)
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
	_, err := s.Exec(ctx, sb.String())
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

// TestPreparedImages: the image of a snapshot received is built beside
// the tables and is its only copy: half built (a broken stream) nothing of
// it is kept, built it survives until installed, a stream sent again
// keeps it, and installing it removes it with the older ones. What a
// crash leaves (a half-built image, the old tables moved aside by the
// swap, an older build's image) is removed at start.
func TestPreparedImages(t *testing.T) {
	e, s := replicatingEngine(t)
	ctx := context.Background()
	for _, q := range []string{"CREATE CLUSTER c", "CREATE TABLE c:t (title text, n int)", "INSERT INTO c:t (id, title, n) VALUES (1, 'a fox', 1), (2, 'a dog', 2)"} {
		_, err := s.Exec(ctx, q)
		require.NoError(t, err, q)
	}
	c, ok := e.repl.cluster("c")
	require.True(t, ok)
	sm := &clusterSM{c: c}
	var image bytes.Buffer
	require.NoError(t, sm.Snapshot(&image))
	applied := c.currentDB().Applied()
	at := applied + 100 // the snapshot's index: the image is of the tables then
	images := func() []string {
		names, err := filepath.Glob(filepath.Join(c.dir, preparedPrefix+"*"))
		require.NoError(t, err)
		for i, n := range names {
			names[i] = filepath.Base(n)
		}
		return names
	}

	half := io.MultiReader(bytes.NewReader(image.Bytes()[:image.Len()/2]), iotest.ErrReader(errors.New("the stream broke")))
	require.Error(t, sm.Prepare(3, at, half))
	assert.Empty(t, images(), "after a broken stream")

	require.NoError(t, sm.Prepare(3, at, bytes.NewReader(image.Bytes())))
	want := []string{fmt.Sprintf("%s%x-%x", preparedPrefix, 3, at)}
	assert.Equal(t, want, images())
	// Sent again: read to its end, and the image built is kept.
	again := bytes.NewReader(append([]byte("not an image"), image.Bytes()...))
	require.NoError(t, sm.Prepare(3, at, again))
	assert.Zero(t, again.Len(), "bytes of the stream sent again left unread")
	assert.Equal(t, want, images())

	// A crash: a half-built image, and an image of an older snapshot
	// (the old tables, moved aside by a swap) are left beside it.
	old := filepath.Join(c.dir, fmt.Sprintf("%s%x-%x", preparedPrefix, 2, applied))
	require.NoError(t, os.Mkdir(old, 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(c.dir, fmt.Sprintf("%s%x-%x%s", preparedPrefix, 3, at+5, preparedPart)), 0o755))
	// An older build's image, complete or not: its spool file is the image.
	older := filepath.Join(c.dir, fmt.Sprintf("%s%x-%x", preparedOld, 3, at+5))
	require.NoError(t, os.Mkdir(older, 0o755))
	require.NoError(t, c.cleanPrepared(applied))
	assert.Equal(t, want, images(), "after the clean at start")
	assert.NoDirExists(t, older, "an older build's image after the clean at start")

	ok, err := sm.RestorePrepared(3, at+1)
	require.NoError(t, err)
	assert.False(t, ok, "an image of another snapshot installed")
	require.NoError(t, os.Mkdir(old, 0o755))
	ok, err = sm.RestorePrepared(3, at)
	require.NoError(t, err)
	assert.True(t, ok, "the image prepared installed")
	assert.Empty(t, images(), "after the install")
	res, err := s.Exec(ctx, "SELECT COUNT(*) FROM t")
	require.NoError(t, err)
	assert.Equal(t, "2", fmt.Sprint(res[0].Rows[0][0]))
}

// replicatingEngine is an in-memory engine with replication started on a
// loopback port, raft ticking every 10 ms, and a session of it.
func replicatingEngine(t *testing.T) (*Engine, *Session) {
	t.Helper()
	e := newMemEngine(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, e.StartReplication(Replication{
		Dir: t.TempDir(), Listener: l,
		Raft: func(o *cluster.Options) { o.TickInterval = 10 * time.Millisecond },
	}))
	t.Cleanup(e.StopReplication)
	return e, e.NewSession("root")
}

// TestClusterStartOnce: while a CREATE or JOIN CLUSTER makes a cluster, a
// second one of the same name (in any case) is refused with the first's
// name, and taken once the first has ended.
func TestClusterStartOnce(t *testing.T) {
	rp := &replication{clusters: map[string]*replCluster{}}
	join := &dialect.ClusterStmt{Action: dialect.ClusterJoin, Name: "Posts"}
	done, err := rp.start(join)
	require.NoError(t, err)
	_, err = rp.start(&dialect.ClusterStmt{Action: dialect.ClusterCreate, Name: "posts"})
	require.EqualError(t, err, "CREATE CLUSTER posts: a JOIN CLUSTER posts of this server is running; wait for it to end")
	done()
	done, err = rp.start(&dialect.ClusterStmt{Action: dialect.ClusterCreate, Name: "posts"})
	require.NoError(t, err)
	done()
}
