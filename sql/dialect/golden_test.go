package dialect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/glint-search/glint/internal/golden"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/stretchr/testify/require"
)

// runGolden renders what Parse makes of a statement: the text TiDB parsed, then
// the settings tail as TiDB parsed it and each setting restored; or the error.
func runGolden(t *testing.T, p *parser.Parser, input string) string {
	st, err := Parse(p, input)
	if err != nil {
		return "error: " + err.Error()
	}
	if c := st.Cluster; c != nil {
		return fmt.Sprintf("cluster: %s name=%q table=%q at=%q path=%q nodes=%q", c.Action, c.Name, c.Table, c.At, c.Path, c.Nodes)
	}
	rw, err := rewrite(input, lex(input), -1)
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

// TestGolden runs the cases "parse" of testdata/*.txt (see package
// internal/golden): a statement as input, and what runGolden makes of it.
func TestGolden(t *testing.T) {
	p := parser.New()
	golden.Files(t, "testdata/*.txt", func(t *testing.T, path string) {
		golden.Run(t, path, func(t *testing.T, d *golden.TestData) string {
			require.Equal(t, "parse", d.Cmd, d.Pos)
			return runGolden(t, p, d.Input)
		})
	})
}

// BenchmarkParseShapedCall splits and parses a CALL SNIPPETS of one 1 KB
// text as the ladder step of the race sends it, its shape kept: what a
// statement costs before it runs.
func BenchmarkParseShapedCall(b *testing.B) {
	text := strings.Repeat(`The jury further said in term-end presentments that the City of Atlanta''s.\n`, 14)
	stmt := "CALL SNIPPETS(('" + text + "'), 't', 'jury', 256 AS limit, 1 AS query_mode)"
	p := parser.New()
	shapes := NewShapes(100)
	b.ReportAllocs()
	for b.Loop() {
		pieces := Split(stmt)
		_, release, err := ParseShaped(p, pieces[0], shapes)
		if err != nil || release == nil {
			b.Fatal(err, "not kept")
		}
		release()
	}
}

// BenchmarkParseShapedSelect parses a phase two of a distributed search
// (a MATCH(), an IN list of ids, an OPTION tail with a snapshot token), its
// shape kept, and, as a baseline, without shapes.
func BenchmarkParseShapedSelect(b *testing.B) {
	stmt := "SELECT id, HIGHLIGHT() FROM `quarter` WHERE (MATCH('w300 | w700 | w1100')) AND id IN (12, 345, 6789, 1011, 1213) LIMIT 0, 5 OPTION max_matches=5, snapshot='3f9a2c1d:17'"
	for _, kept := range []bool{true, false} {
		b.Run(map[bool]string{true: "kept", false: "parsed"}[kept], func(b *testing.B) {
			p := parser.New()
			var shapes *Shapes
			if kept {
				shapes = NewShapes(100)
			}
			b.ReportAllocs()
			for b.Loop() {
				pieces := Split(stmt)
				_, release, err := ParseShaped(p, pieces[0], shapes)
				if err != nil || (release == nil) == kept {
					b.Fatal(err, " kept: ", release != nil)
				}
				if release != nil {
					release()
				}
			}
		})
	}
}
