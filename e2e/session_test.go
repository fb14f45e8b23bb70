package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These are the statements that clients and connectors send on their own.
func TestClientStatements(t *testing.T) {
	s := StartServer(t)
	conn := s.Conn(t)
	isInt := func(t *testing.T, v string) {
		_, err := strconv.ParseInt(v, 10, 64)
		assert.NoError(t, err, "%q should be an integer", v)
	}
	tests := []struct {
		query string
		check func(t *testing.T, r Rows)
	}{
		{"select @@version_comment limit 1", func(t *testing.T, r Rows) {
			require.Len(t, r.Values, 1)
			assert.NotEmpty(t, r.Values[0][0])
		}},
		{"SELECT DATABASE()", func(t *testing.T, r Rows) {
			assert.Equal(t, [][]string{{"glint"}}, r.Values)
		}},
		{"SELECT @@max_allowed_packet, @@auto_increment_increment", func(t *testing.T, r Rows) {
			require.Len(t, r.Values, 1)
			require.Len(t, r.Values[0], 2)
			isInt(t, r.Values[0][0])
			isInt(t, r.Values[0][1])
		}},
		{"SELECT @@character_set_client, @@autocommit", func(t *testing.T, r Rows) {
			require.Len(t, r.Values, 1)
			assert.Equal(t, "utf8mb4", r.Values[0][0])
			isInt(t, r.Values[0][1])
		}},
		{"SHOW VARIABLES LIKE 'version%'", func(t *testing.T, r Rows) {
			assert.Equal(t, []string{"Variable_name", "Value"}, r.Columns)
			names := r.Column(0)
			assert.Contains(t, names, "version")
			assert.Contains(t, names, "version_comment")
			for _, n := range names {
				assert.True(t, strings.HasPrefix(n, "version"), n)
			}
		}},
		{"SHOW VARIABLES LIKE 'max_allowed_packet'", func(t *testing.T, r Rows) {
			require.Len(t, r.Values, 1)
			isInt(t, r.Values[0][1])
		}},
		{"SHOW DATABASES", func(t *testing.T, r Rows) {
			assert.Contains(t, r.Column(0), "glint")
		}},
		{"SHOW STATUS", func(t *testing.T, r Rows) {
			require.Len(t, r.Columns, 2)
			assert.NotEmpty(t, r.Values)
		}},
		{"SHOW WARNINGS", func(t *testing.T, r Rows) {
			assert.Equal(t, []string{"Level", "Code", "Message"}, r.Columns)
			assert.Empty(t, r.Values)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			tt.check(t, MustQuery(t, conn, tt.query))
		})
	}
}

func TestSetNamesAndUnicode(t *testing.T) {
	s := StartServer(t)
	conn := s.Conn(t)
	MustExec(t, conn, "SET NAMES utf8mb4")
	MustExec(t, conn, "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci")
	MustExec(t, conn, "CREATE TABLE u (title text)")
	MustExec(t, conn, "INSERT INTO u (id, title) VALUES (1, 'Café crème brûlée 東京')")
	assert.Equal(t, [][]string{{"1", "Café crème brûlée 東京"}}, MustQuery(t, conn, "SELECT id, title FROM u WHERE MATCH('café')").Values)
}
