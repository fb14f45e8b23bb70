package dialect

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/stretchr/testify/require"
)

// go test ./sql/dialect -run TestGolden -rewrite updates testdata/*.txt with the
// actual outputs; review the diff before committing it.
var rewriteGolden = flag.Bool("rewrite", false, "rewrite the expected outputs of testdata/*.txt with the actual ones")

// goldenCase is one case of a testdata file:
//
//	# comments
//	statement (one or more lines)
//	----
//	expected output (one or more lines)
//
// Cases are separated by blank lines, so neither part may hold one.
type goldenCase struct {
	comments []string
	input    string
	want     string
	line     int // of the input, for messages
}

func readGolden(t testing.TB, path string) []goldenCase {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var cases []goldenCase
	var c *goldenCase
	var in, out []string
	inOutput := false
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "":
			if c != nil {
				c.input, c.want = strings.Join(in, "\n"), strings.Join(out, "\n")
				cases = append(cases, *c)
			}
			c, in, out, inOutput = nil, nil, nil, false
		case c == nil || (len(in) == 0 && !inOutput):
			if c == nil {
				c = &goldenCase{}
			}
			if strings.HasPrefix(line, "# ") {
				c.comments = append(c.comments, line)
			} else {
				in, c.line = append(in, line), i+1
			}
		case line == "----" && !inOutput:
			inOutput = true
		case inOutput:
			out = append(out, line)
		default:
			in = append(in, line)
		}
	}
	require.Nil(t, c, "%s: the file must end with a blank line", path)
	return cases
}

// runGolden renders what Parse makes of a statement: the text TiDB parsed, then
// the settings tail as TiDB parsed it and each setting restored; or the error.
func runGolden(t *testing.T, p *parser.Parser, input string) string {
	st, err := Parse(p, input)
	if err != nil {
		return "error: " + err.Error()
	}
	rw, err := rewrite(input, lex(input), false)
	require.NoError(t, err)
	out := []string{rw.main.text}
	if rw.tail != nil {
		out = append(out, "settings: "+rw.tail.sql.text)
		for _, s := range st.Settings {
			out = append(out, fmt.Sprintf("  %s at %d = %s", s.Name, s.Pos, restore(t, s.Value)))
		}
	}
	if rw.within != nil {
		out = append(out, "within group: "+rw.within.text)
	}
	for _, f := range rw.facets {
		out = append(out, "facet: "+f.text)
	}
	return strings.Join(out, "\n")
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	p := parser.New()
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			cases := readGolden(t, path)
			var b strings.Builder
			for i, c := range cases {
				got := runGolden(t, p, c.input)
				if *rewriteGolden {
					if i > 0 {
						b.WriteString("\n")
					}
					for _, line := range c.comments {
						b.WriteString(line + "\n")
					}
					b.WriteString(c.input + "\n----\n" + got + "\n")
					continue
				}
				require.Equal(t, c.want, got, "%s:%d: %s", path, c.line, c.input)
			}
			if *rewriteGolden {
				require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
			}
		})
	}
}
