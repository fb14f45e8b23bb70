package htmlstrip

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the .golden files in testdata from the results")

// TestGolden strips each testdata/*.html document and compares the result
// with the .golden file beside it (go test -rewrite rewrites them). The
// options come from a first-line comment:
//
//	<!-- htmlstrip: remove="style, script" attrs="img=alt" zones="h*, th" -->
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.html")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			in, err := os.ReadFile(file)
			require.NoError(t, err)
			opts, err := docOptions(string(in))
			require.NoError(t, err)
			r := Strip(string(in), opts)
			require.Empty(t, checkResult(string(in), r))
			got := render(string(in), r)
			golden := strings.TrimSuffix(file, ".html") + ".golden"
			if *rewrite {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -rewrite to create it")
			assert.Equal(t, string(want), got)
		})
	}
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

// render prints a Result for a golden file: the text with its marks
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
