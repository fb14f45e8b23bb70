package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestListenerVariables: the @@variables that describe the MySQL listener
// tell clients what it was started with (drivers size their packets by
// @@max_allowed_packet; pools read @@wait_timeout).
func TestListenerVariables(t *testing.T) {
	ask := "SELECT @@max_allowed_packet, @@wait_timeout, @@interactive_timeout, @@have_ssl"
	s := StartServer(t, WithArgs("--max-allowed-packet", "16M", "--idle-timeout", "90s"))
	res := s.CLI(t, "", "--batch", "--skip-column-names", "-e", ask)
	require.Zero(t, res.ExitCode, res.Stderr)
	require.Equal(t, "16777216\t90\t90\tDISABLED\n", res.Stdout)

	s = StartServer(t)
	res = s.CLI(t, "", "--batch", "--skip-column-names", "-e", ask)
	require.Equal(t, "67108864\t28800\t28800\tDISABLED\n", res.Stdout)
}
