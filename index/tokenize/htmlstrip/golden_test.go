package htmlstrip

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/require"
)

// TestGolden runs the cases of testdata/strip.txt (see package
// internal/golden): "strip file=NAME" strips the document testdata/NAME with
// the options of its first-line comment,
//
//	<!-- htmlstrip: remove="style, script" attrs="img=alt" zones="h*, th" -->
//
// and prints the result (see render).
func TestGolden(t *testing.T) {
	golden.Run(t, "testdata/strip.txt", func(t *testing.T, d *golden.TestData) string {
		require.Equal(t, "strip", d.Cmd, d.Pos)
		var name string
		d.ScanArgs(t, "file", &name)
		in, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoError(t, err)
		opts, err := docOptions(string(in))
		require.NoError(t, err)
		r := Strip(string(in), opts)
		require.Empty(t, checkResult(string(in), r))
		return render(string(in), r)
	})
}

var optionRE = regexp.MustCompile(`(\w+)="([^"]*)"`)

// docOptions reads the options from the document's first-line comment.
func docOptions(doc string) (*Options, error) {
	first, _, _ := strings.Cut(doc, "\n")
	if !strings.HasPrefix(first, "<!-- htmlstrip:") {
		return nil, nil
	}
	opts := &Options{}
	for _, m := range optionRE.FindAllStringSubmatch(first, -1) {
		var err error
		switch m[1] {
		case "remove":
			opts.RemoveElements, err = ParseRemoveElements(m[2])
		case "attrs":
			opts.IndexAttrs, err = ParseIndexAttrs(m[2])
		case "zones":
			opts.Zones, err = ParseZones(m[2])
		default:
			err = fmt.Errorf("unknown option %q", m[1])
		}
		if err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// render prints a Result for testdata/strip.txt: the text with its marks
// (⟦¶⟧ a paragraph, ⟦h1⟧ and ⟦/h1⟧ a zone), then every run of the text that
// is not a copy of the input, with what it stands for in the input.
func render(in string, r *Result) string {
	var b strings.Builder
	b.WriteString("text:\n")
	m := 0
	for x := 0; x <= len(r.Text); x++ {
		for ; m < len(r.Marks) && r.Marks[m].At == x; m++ {
			switch mk := r.Marks[m]; mk.Kind {
			case Paragraph:
				b.WriteString("⟦¶⟧")
			case ZoneOpen:
				b.WriteString("⟦" + mk.Name + "⟧")
			case ZoneClose:
				b.WriteString("⟦/" + mk.Name + "⟧")
			}
		}
		if x < len(r.Text) {
			b.WriteByte(r.Text[x])
		}
	}
	b.WriteString("\n----\nreplaced:\n")
	for i, s := range r.segs {
		if s.on < 0 {
			continue
		}
		end := r.segEnd(i)
		orig := in[s.o : s.o+s.on]
		if len(orig) > 60 {
			orig = fmt.Sprintf("%s…(%d bytes)", orig[:50], len(orig))
		}
		fmt.Fprintf(&b, "%d:%d %q <- %d:%d %q\n", s.t, end, r.Text[s.t:end], s.o, s.o+s.on, orig)
	}
	return b.String()
}
