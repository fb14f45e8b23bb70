package highlight

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/glint-search/glint/index/tokenize"
)

func TestDbg(t *testing.T) {
	text := os.Getenv("DBG_TEXT")
	if text == "" {
		t.Skip()
	}
	terms := strings.Fields(os.Getenv("DBG_TERMS"))
	f := field(t, tokenize.Default(), text, terms...)
	o := DefaultOptions()
	w := make([]int, len(terms))
	for i, x := range terms {
		w[i] = len(x)
	}
	debugTrace = true
	p := newField(&f, &o)
	var ctx context
	lim := fixLimits(limitsOf(&o), &o, w, p.found)
	extract(p, 0, lim, &o, w, &ctx)
	for _, c := range ctx.passages {
		fmt.Printf("start=%d tok=%d codes=%d w=%d uniq=%d weight=%d sl=%d el=%d bet=%d %q\n", c.start, c.tokens, c.codes, c.words, c.uniqQwords, c.weight(), c.startLimit, c.endLimit, c.codesBetween, p.text[p.units[c.start].start:p.units[c.start+c.tokens-1].end])
	}
	for _, c := range choose(&ctx, lim, &o, w, p.found) {
		fmt.Printf("CHOSEN start=%d tok=%d %q\n", c.start, c.tokens, p.text[p.units[c.start].start:p.units[c.start+c.tokens-1].end])
	}
}
