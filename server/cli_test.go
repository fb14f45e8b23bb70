package server

import (
	"context"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cli runs the mariadb (or mysql) command-line client against the server.
func cli(t *testing.T, addr string, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("mariadb")
	if err != nil {
		if bin, err = exec.LookPath("mysql"); err != nil {
			t.Skip("no mariadb or mysql client installed")
		}
	}
	host, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	all := append([]string{"--no-defaults", "-h" + host, "-P" + port, "-uroot", "--connect-timeout=5"}, args...)
	out, err := exec.CommandContext(ctx, bin, all...).CombinedOutput()
	return string(out), err
}

func TestCLI(t *testing.T) {
	ts := startServer(t, Config{})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"select 1", []string{"-e", "select 1"}, "1\n1\n"},
		{"batch, several statements", []string{"-N", "-e", "select 1; show meta"}, "1\ntotal\t1\ntime\t0.000\n"},
		{"table with zero rows", []string{"--table", "-e", "select empty"}, ""},
		{"table", []string{"--table", "-e", "select types"},
			"+----------------------+------+----------+------------+\n" +
				"| id                   | n    | price    | title      |\n" +
				"+----------------------+------+----------+------------+\n" +
				"| 18446744073709551615 |   -5 | 2.500000 | héllo <b>  |\n" +
				"|                    2 | NULL |     NULL | NULL       |\n" +
				"+----------------------+------+----------+------------+\n"},
		{"database and field list", []string{"-D", "glint", "--auto-rehash", "-e", "select 1"}, "1\n1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := cli(t, ts.mysqlAddr, tt.args...)
			require.NoError(t, err, out)
			assert.Equal(t, tt.want, out)
		})
	}
	t.Run("error and exit status", func(t *testing.T) {
		out, err := cli(t, ts.mysqlAddr, "-e", "nonsense")
		require.Error(t, err)
		assert.True(t, strings.Contains(out, "ERROR 1064 (42000)"), out)
	})
	t.Run("packet too large", func(t *testing.T) {
		small := startServer(t, Config{MaxAllowedPacket: 1 << 10})
		out, err := cli(t, small.mysqlAddr, "--max-allowed-packet=16M", "-e", "echo "+strings.Repeat("x", 2000))
		require.Error(t, err)
		assert.Contains(t, out, "1153")
	})
	t.Run("wrong password", func(t *testing.T) {
		secured := startServer(t, Config{Users: map[string]string{"root": "pw"}})
		out, err := cli(t, secured.mysqlAddr, "-pnope", "-e", "select 1")
		require.Error(t, err)
		assert.Contains(t, out, "ERROR 1045 (28000)")
		out, err = cli(t, secured.mysqlAddr, "-ppw", "-e", "select 1")
		require.NoError(t, err, out)
		assert.Equal(t, "1\n1\n", out)
	})
}
