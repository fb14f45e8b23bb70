package tokenize

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/golden with the tokens the tokenizer gives now")

// TestGolden runs the cases of testdata/golden/*.txt. A case is
//
//	=== name
//	setting=value          (any number of lines)
//	---
//	text                   (any number of lines)
//	----
//	tokens                 (one per line; then "final <Pos after the end>")
//
// and is separated from the next by a blank line. With -rewrite the token
// lines are rewritten from what the tokenizer gives, so changes show as diffs.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			got := runGolden(t, string(b))
			if *rewrite {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			require.Equal(t, string(b), got, "run go test -run TestGolden -rewrite to accept the new output")
		})
	}
}

// runGolden returns the file with its token lines made anew.
func runGolden(t *testing.T, file string) string {
	var out strings.Builder
	lines := strings.Split(strings.TrimSuffix(file, "\n"), "\n")
	for i := 0; i < len(lines); {
		line := lines[i]
		if !strings.HasPrefix(line, "=== ") {
			out.WriteString(line + "\n") // comments and blank lines
			i++
			continue
		}
		name := strings.TrimPrefix(line, "=== ")
		out.WriteString(line + "\n")
		i++
		var kv []string
		for ; i < len(lines) && lines[i] != "---"; i++ {
			kv = append(kv, lines[i])
			out.WriteString(lines[i] + "\n")
		}
		require.Less(t, i, len(lines), "case %s: no '---'", name)
		out.WriteString("---\n")
		i++
		var text []string
		for ; i < len(lines) && lines[i] != "----"; i++ {
			text = append(text, lines[i])
			out.WriteString(lines[i] + "\n")
		}
		require.Less(t, i, len(lines), "case %s: no '----'", name)
		out.WriteString("----\n")
		i++
		for i < len(lines) && lines[i] != "" { // the old tokens
			i++
		}
		out.WriteString(renderGolden(newTok(t, kv...), strings.Join(text, "\n")))
	}
	return out.String()
}

func renderGolden(tok *Tokenizer, text string) string {
	var b strings.Builder
	var it Iter
	it.Reset(tok, text)
	for it.Next() {
		term := string(it.Term())
		switch {
		case term == SentenceTerm:
			term = "<sentence>"
		case term == ParagraphTerm:
			term = "<paragraph>"
		case term[0] == exactMark:
			term = fmt.Sprintf("=%q", term[1:])
		case term[0] == zoneOpenMark:
			term = "<zone " + term[1:] + ">"
		case term[0] == zoneCloseMark:
			term = "</zone " + term[1:] + ">"
		default:
			term = fmt.Sprintf("%q", term)
		}
		if it.Blended() {
			term += " blended"
		}
		fmt.Fprintf(&b, "%d %s [%d:%d] %q\n", it.Pos(), term, it.Start(), it.End(), text[it.Start():it.End()])
	}
	fmt.Fprintf(&b, "final %d\n", it.Pos())
	return b.String()
}
