package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMaxAllowedPacketReported: @@max_allowed_packet tells clients the
// limit the server was started with, which drivers size their packets by.
func TestMaxAllowedPacketReported(t *testing.T) {
	s := StartServer(t, WithArgs("--max-allowed-packet", "16M"))
	res := s.CLI(t, "", "--batch", "--skip-column-names", "-e", "SELECT @@max_allowed_packet")
	require.Zero(t, res.ExitCode, res.Stderr)
	require.Equal(t, "16777216\n", res.Stdout)
}
