package daemon

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fake writes a shell script standing in for glintd.
func fake(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "glintd")
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755))
	return path
}

// readyThenWait prints the ready lines, the first with a log-style prefix, then waits
// for SIGTERM; exit is its status then.
const readyThenWait = `trap 'exit $EXIT' TERM
echo "starting"
echo "2026/01/02 03:04:05 glintd: mysql listening on 127.0.0.1:4242" >&2
echo "glintd: http listening on 127.0.0.1:4343"
while :; do sleep 0.05; done
`

func TestStartAndStop(t *testing.T) {
	tests := []struct {
		name    string
		exit    string
		wantErr bool
	}{
		{"exits 0 on SIGTERM", "0", false},
		{"exits 3 on SIGTERM", "3", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("EXIT", tt.exit)
			p, err := Start(context.Background(), Options{Binary: fake(t, readyThenWait), DataDir: t.TempDir()})
			require.NoError(t, err)
			assert.Equal(t, "127.0.0.1:4242", p.MySQLAddr)
			assert.Equal(t, "127.0.0.1:4343", p.HTTPAddr)
			assert.Positive(t, p.Pid())
			assert.False(t, p.Exited())
			err = p.Stop(10 * time.Second)
			if tt.wantErr {
				assert.Error(t, err)
			} else {
				assert.NoError(t, err)
			}
			assert.True(t, p.Exited())
			assert.Contains(t, p.Output(), "starting\n")
		})
	}
}

func TestKill(t *testing.T) {
	t.Setenv("EXIT", "0")
	p, err := Start(context.Background(), Options{Binary: fake(t, readyThenWait), DataDir: t.TempDir()})
	require.NoError(t, err)
	require.NoError(t, p.Kill())
	assert.True(t, p.Exited())
}

func TestStartFailures(t *testing.T) {
	tests := []struct {
		name, script, want string
		timeout            time.Duration
	}{
		{"exits before ready", "echo 'bad flag --data' >&2; exit 2\n", "exited before it was ready", time.Minute},
		{"never ready", "echo 'glintd: mysql listening on 127.0.0.1:1'; exec sleep 30\n", "no ready lines", 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Start(context.Background(), Options{Binary: fake(t, tt.script), DataDir: t.TempDir(), StartTimeout: tt.timeout})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// A process that exits at once has its last words in the error, every time:
// they may still be in the pipe when the exit is seen.
func TestExitKeepsLastOutput(t *testing.T) {
	binary := fake(t, "i=0; while [ $i -lt 200 ]; do echo \"line $i\"; i=$((i+1)); done; echo 'the reason' >&2; exit 1\n")
	for range 20 {
		_, err := Start(context.Background(), Options{Binary: binary, DataDir: t.TempDir()})
		require.Error(t, err)
		require.Contains(t, err.Error(), "line 199\nthe reason\n")
	}
}
