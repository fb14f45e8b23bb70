package tokenize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/require"
)

// TestGolden runs the cases of testdata/golden/*.txt (see package
// internal/golden): "tokenize" with the table's settings as arguments (a
// value with commas or blanks in parentheses, its items joined again by
// ", "), the text as input, and the tokens the tokenizer gives, one per
// line, then "final <Pos after the end>".
func TestGolden(t *testing.T) {
	golden.Files(t, "testdata/golden/*.txt", func(t *testing.T, path string) {
		golden.Run(t, path, func(t *testing.T, d *golden.TestData) string {
			require.Equal(t, "tokenize", d.Cmd, d.Pos)
			var kv []string
			for _, arg := range d.CmdArgs {
				kv = append(kv, arg.Key+"="+strings.Join(arg.Vals, ", "))
			}
			return renderGolden(newTok(t, kv...), d.Input)
		})
	})
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
