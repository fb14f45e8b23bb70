package sql

import (
	"encoding/json"
	"math/bits"
	"unicode/utf8"

	"github.com/glint-search/glint/highlight"
)

// Snippets as data (HIGHLIGHT_OFFSETS(), the JSON offsets option, CALL
// SNIPPETS' offsets column; docs/beyond.md): where each snippet and each
// marked span lies in the field's own text, in bytes and in codepoints,
// which query keywords it shows, and how the chooser ranked it.

// SnippetData is one snippet of a field as data: its place in the field's
// own text, its rank and score, the keywords it shows, its marked spans.
type SnippetData struct {
	Field      string     `json:"field,omitempty"`
	Start      int        `json:"start"`
	End        int        `json:"end"`
	StartCP    int        `json:"start_cp"`
	EndCP      int        `json:"end_cp"`
	Rank       int        `json:"rank"`
	Score      int        `json:"score"`
	Considered int        `json:"considered"`
	Keywords   []string   `json:"keywords"`
	Marks      []MarkData `json:"marks"`
}

// MarkData is one marked span of a snippet: its place and its keywords.
type MarkData struct {
	Start    int      `json:"start"`
	End      int      `json:"end"`
	StartCP  int      `json:"start_cp"`
	EndCP    int      `json:"end_cp"`
	Keywords []string `json:"keywords"`
}

// snippetsData lists the snippets of res, whose fields' own texts are
// texts, in the order the SQL form shows them; keywords are the query's
// distinct keywords as written (tokenize.Mark.Keyword numbers them).
func snippetsData(res *highlight.Result, texts []string, keywords []string) []SnippetData {
	out := []SnippetData{}
	for i := range res.Fields {
		fr := &res.Fields[i]
		cp := cpCounter{text: texts[i]}
		for _, s := range fr.Snippets {
			d := SnippetData{Field: fr.Name, Rank: s.Rank, Score: s.Score, Considered: fr.Considered,
				Keywords: []string{}, Marks: make([]MarkData, 0, len(s.Marks))}
			d.Start, d.End = fr.StoredOffset(s.Start, false), fr.StoredOffset(s.End, true)
			d.StartCP, d.EndCP = cp.at(d.Start), cp.at(d.End)
			var all uint64
			for _, m := range s.Marks {
				md := MarkData{Start: fr.StoredOffset(m.Start, false), End: fr.StoredOffset(m.End, true), Keywords: keywordNames(m.Keywords, keywords)}
				md.StartCP, md.EndCP = cp.at(md.Start), cp.at(md.End)
				d.Marks = append(d.Marks, md)
				all |= m.Keywords
			}
			d.Keywords = keywordNames(all, keywords)
			out = append(out, d)
		}
	}
	return out
}

// offsetsJSON is snippetsData as JSON text.
func offsetsJSON(res *highlight.Result, texts []string, keywords []string) string {
	b, err := json.Marshal(snippetsData(res, texts, keywords))
	if err != nil {
		panic(err) // only strings and numbers
	}
	return string(b)
}

// keywordNames lists the keywords of the set ks (bit k: keyword k).
func keywordNames(ks uint64, keywords []string) []string {
	names := make([]string, 0, bits.OnesCount64(ks))
	for ; ks != 0; ks &= ks - 1 {
		if k := bits.TrailingZeros64(ks); k < len(keywords) {
			names = append(names, keywords[k])
		}
	}
	return names
}

// cpCounter counts the codepoints before byte offsets of a text, going on
// from the last offset asked when offsets come in order.
type cpCounter struct {
	text     string
	off, cps int
}

func (c *cpCounter) at(off int) int {
	off = min(max(off, 0), len(c.text))
	if off < c.off {
		c.off, c.cps = 0, 0
	}
	c.cps += utf8.RuneCountInString(c.text[c.off:off])
	c.off = off
	return c.cps
}
