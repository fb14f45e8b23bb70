package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/ with the output got")

// A golden file is a sequence of cases separated by lines "====". A case is
// statements, a line "----", and the command-line client's expected output
// (standard output and error together). Statement lines starting with "#" are
// comments, except "# cli: ARGS", which replaces the client's default output
// arguments (--table) for that case, e.g. "# cli: --batch". All cases of a file
// run in order against one new server, each in one client run with --force
// (so an error does not stop the statements after it). A line "# server:
// ARGS" in the first case passes flags to glintd, "{testdata}" standing for
// the golden file's folder.
type goldenCase struct {
	head     []string // the lines before "----", comments included
	stmts    []string
	args     []string
	expected string
}

// RunGolden runs the golden file at path against a new server; with -rewrite
// it writes the output got into the file instead of comparing.
func RunGolden(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	cases := parseGolden(string(raw))
	var opts []Option
	if len(cases) > 0 {
		for _, line := range cases[0].head {
			if args, ok := strings.CutPrefix(line, "# server:"); ok {
				// {testdata} stands for this file's folder, absolute.
				dir, err := filepath.Abs(filepath.Dir(path))
				require.NoError(t, err)
				opts = append(opts, WithArgs(strings.Fields(strings.ReplaceAll(args, "{testdata}", dir))...))
			}
		}
	}
	s := StartServer(t, opts...)
	for i := range cases {
		c := &cases[i]
		args := append([]string{"--force"}, c.args...)
		out, _ := s.CLICombined(t, strings.Join(c.stmts, "\n")+"\n", args...)
		got := strings.TrimRight(out, "\n")
		if *rewrite {
			c.expected = got
			continue
		}
		assert.Equal(t, c.expected, got, "%s: case %d:\n%s", path, i+1, strings.Join(c.stmts, "\n"))
	}
	if *rewrite {
		require.NoError(t, os.WriteFile(path, []byte(formatGolden(cases)), 0o644))
	}
}

func parseGolden(text string) []goldenCase {
	var cases []goldenCase
	for _, block := range strings.Split(strings.TrimSuffix(text, "\n"), "\n====\n") {
		c := goldenCase{args: []string{"--table"}}
		head, expected, found := strings.Cut(block, "\n----\n")
		if !found {
			head, _ = strings.CutSuffix(block, "\n----")
		}
		c.expected = strings.TrimRight(expected, "\n")
		for _, line := range strings.Split(head, "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			c.head = append(c.head, line)
			switch {
			case strings.HasPrefix(line, "# cli:"):
				c.args = strings.Fields(strings.TrimPrefix(line, "# cli:"))
			case !strings.HasPrefix(line, "#"):
				c.stmts = append(c.stmts, line)
			}
		}
		cases = append(cases, c)
	}
	return cases
}

func formatGolden(cases []goldenCase) string {
	var b strings.Builder
	for i, c := range cases {
		if i > 0 {
			b.WriteString("====\n")
		}
		for _, l := range c.head {
			b.WriteString(l + "\n")
		}
		b.WriteString("----\n")
		if c.expected != "" {
			b.WriteString(c.expected + "\n")
		}
	}
	return b.String()
}
