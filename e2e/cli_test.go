package e2e

import (
	"testing"

	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCLI(t *testing.T) {
	s := startWithBooks(t)
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantOut    string
		wantErr    string // a substring of stderr
		wantStatus int
	}{
		{
			name:    "batch select",
			args:    []string{"--batch", "-e", "SELECT id, title FROM books WHERE MATCH('fox') ORDER BY id ASC"},
			wantOut: "id\ttitle\n1\tThe quick brown fox\n2\tQuick start guide\n",
		},
		{
			name:    "statements on stdin",
			args:    []string{"--batch"},
			stdin:   "SELECT COUNT(*) FROM books;\nSELECT id FROM books WHERE MATCH('brown fox');\n",
			wantOut: "count(*)\n4\nid\n1\n",
		},
		{
			name:    "version comment",
			args:    []string{"--batch", "--skip-column-names", "-e", "select @@version_comment limit 1"},
			wantOut: "", // checked below: any non-empty line
		},
		{
			name:       "error exits 1",
			args:       []string{"--batch", "-e", "SELECT * FROM nosuchtable"},
			wantErr:    "ERROR 1146",
			wantStatus: 1,
		},
		{
			name:       "syntax error",
			args:       []string{"--batch", "-e", "SELEC 1"},
			wantErr:    "ERROR 1064",
			wantStatus: 1,
		},
		{
			name:    "table output",
			args:    []string{"--table", "-e", "SELECT id, year FROM books WHERE MATCH('lazy') ORDER BY year ASC"},
			wantOut: "+------+------+\n| id   | year |\n+------+------+\n|    3 | 1999 |\n|    1 | 2001 |\n+------+------+\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.CLI(t, tt.stdin, tt.args...)
			assert.Equal(t, tt.wantStatus, r.ExitCode, "stderr: %s", r.Stderr)
			if tt.wantErr != "" {
				assert.Contains(t, r.Stderr, tt.wantErr)
			} else {
				assert.Empty(t, r.Stderr)
			}
			if tt.name == "version comment" {
				assert.Regexp(t, `^\S.*\n$`, r.Stdout)
				return
			}
			assert.Equal(t, tt.wantOut, r.Stdout)
		})
	}
}

func TestCLIMultiStatementWithShowMeta(t *testing.T) {
	s := startWithBooks(t)
	r := s.CLI(t, "", "--batch", "-e", "SELECT id FROM books WHERE MATCH('fox'); SHOW META")
	require.Equal(t, 0, r.ExitCode, r.Stderr)
	assert.Contains(t, r.Stdout, "total_found\t2\n")
	assert.Contains(t, r.Stdout, "\ntime\t")
}

// TestGolden runs every testdata/*.txt file (see RunGolden), each against a
// new server; go test ./e2e -run TestGolden -rewrite writes the outputs got
// into them.
func TestGolden(t *testing.T) {
	golden.Files(t, "testdata/*.txt", func(t *testing.T, path string) { RunGolden(t, path, nil) })
}

// TestHTTPGolden runs every testdata/http/*.txt file (see RunGolden): HTTP
// requests through Go's client, each file against a new server.
func TestHTTPGolden(t *testing.T) {
	golden.Files(t, "testdata/http/*.txt", func(t *testing.T, path string) { RunGolden(t, path, nil) })
}
