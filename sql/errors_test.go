package sql

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEveryCodeHasARow: every Code has a name of its own, a MySQL error number,
// a SQLSTATE and an HTTP status; an unknown code reads as CodeInternal.
func TestEveryCodeHasARow(t *testing.T) {
	names := map[string]Code{}
	for c := range numCodes {
		info := codes[c]
		if !assert.NotEmpty(t, info.name, "code %d has no row", int(c)) {
			continue
		}
		prev, dup := names[info.name]
		assert.False(t, dup, "codes %d and %d are both named %s", int(prev), int(c), info.name)
		names[info.name] = c
		assert.NotZero(t, info.number, "%s: MySQL number", info.name)
		assert.Len(t, info.state, 5, "%s: SQLSTATE", info.name)
		if strings.HasPrefix(info.state, "01") { // SQLSTATE class 01: a warning, never an error
			assert.Equal(t, 200, info.status, "%s: HTTP status of a warning", info.name)
		} else {
			assert.GreaterOrEqual(t, info.status, 400, "%s: HTTP status", info.name)
		}
	}
	assert.Equal(t, "Internal", Code(-1).String())
	assert.Equal(t, "Internal", numCodes.String())
	n, state := CodeQuerySyntax.MySQL()
	assert.Equal(t, uint16(1064), n)
	assert.Equal(t, "42000", state)
}
