package sql

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Autocommit answers from the default without systemVariables' map, and
// agrees with it.
func TestAutocommit(t *testing.T) {
	s := newTestSession(t)
	require.Equal(t, truthy(s.systemVariables()["autocommit"]), s.Autocommit())
	require.True(t, s.Autocommit())
	for _, tc := range []struct {
		set  string
		want bool
	}{{"SET autocommit=0", false}, {"SET autocommit=1", true}, {"SET @@autocommit = false", false}, {"SET AUTOCOMMIT = true", true}} {
		mustExec(t, s, tc.set)
		require.Equal(t, tc.want, s.Autocommit(), tc.set)
		v, _ := s.variable("autocommit")
		require.Equal(t, truthy(v), s.Autocommit(), tc.set)
	}
}
