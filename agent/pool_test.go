package agent

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/glint-search/glint/sql"
	"github.com/stretchr/testify/require"
)

func TestColumnValues(t *testing.T) {
	for _, c := range []struct {
		mysqlType string
		text      string
		want      any
	}{
		{"BIGINT", "-5", int64(-5)},
		{"UNSIGNED BIGINT", "18446744073709551615", uint64(18446744073709551615)},
		{"INT", "7", int64(7)},
		{"DOUBLE", "9.25", 9.25},
		{"FLOAT", "0.1", 0.1},
		{"VARCHAR", "a,b", "a,b"},
		{"JSON", `{"a":1}`, `{"a":1}`},
	} {
		col := sql.Column{Name: "c", Type: columnType(c.mysqlType)}
		got, err := value(col, c.text)
		require.NoError(t, err, c.mysqlType)
		require.Equal(t, c.want, got, c.mysqlType)
	}
	_, err := value(sql.Column{Name: "n", Type: sql.ColInt}, "x")
	require.ErrorContains(t, err, `agent: column "n"`)
}

// TestUnreachable: a mirror that refuses connections is an error that is
// not an *sql.AgentError (so the coordinator tries another mirror), and
// one that never answers ends with the context.
func TestUnreachable(t *testing.T) {
	p := New(Options{})
	defer p.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	_, err = p.Query(context.Background(), addr, time.Second, "SELECT 1")
	require.Error(t, err)
	var ae *sql.AgentError
	require.False(t, errors.As(err, &ae))

	hang, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer hang.Close()
	go func() {
		for {
			c, err := hang.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = p.Query(ctx, hang.Addr().String(), 5*time.Second, "SELECT 1")
	require.Error(t, err)
	require.Less(t, time.Since(start), 3*time.Second)
}
