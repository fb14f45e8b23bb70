package highlight

import (
	"sort"
	"strings"

	"golang.org/x/net/html"
)

// Well-formed markup under limits (the balance_markup option, glint's own;
// docs/beyond.md). With html_strip_mode=retain the shown text is the
// field's HTML; the reference only shows it whole. With balance_markup the
// limits cut it into snippets like any text, and each snippet is made
// well-formed on its own: a cut never falls inside a tag or an entity
// (the snippet's edges move out of the tag, around the entity), the
// elements open where the snippet starts are opened again before it (the
// start tags as written, attributes included) and those still open where it
// ends are closed after it. Void elements (br, img, ...) need no closing;
// an end tag with no open element of its name is left as written.

// markupTag is one tag of a field's HTML: its bytes, and the element it
// opens or closes.
type markupTag struct {
	start, end int
	name       string
	open       bool // a start tag of an element that needs closing
	close      bool // an end tag
}

// markupOf lists the tags of text in order, and the byte ranges of its
// character references (entities).
func markupOf(text string) (tags []markupTag, entities [][2]int) {
	z := html.NewTokenizer(strings.NewReader(text))
	at := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		raw := z.Raw()
		start, end := at, at+len(raw)
		at = end
		switch tt {
		case html.StartTagToken:
			name, _ := z.TagName()
			tags = append(tags, markupTag{start: start, end: end, name: string(name), open: !voidElements[string(name)]})
		case html.EndTagToken:
			name, _ := z.TagName()
			tags = append(tags, markupTag{start: start, end: end, name: string(name), close: true})
		case html.SelfClosingTagToken, html.CommentToken, html.DoctypeToken:
			tags = append(tags, markupTag{start: start, end: end})
		case html.TextToken:
			for i := 0; i < len(raw); i++ {
				if raw[i] != '&' {
					continue
				}
				j := i + 1
				for j < len(raw) && j-i <= 32 && (isAlnum(raw[j]) || raw[j] == '#') {
					j++
				}
				if j < len(raw) && raw[j] == ';' && j > i+1 {
					entities = append(entities, [2]int{start + i, start + j + 1})
					i = j
				}
			}
		}
	}
	return tags, entities
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// voidElements are the HTML elements that have no end tag.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true,
	"hr": true, "img": true, "input": true, "link": true, "meta": true, "param": true, "source": true,
	"track": true, "wbr": true}

// balanceMarkup makes each snippet of fr well-formed on its own.
func balanceMarkup(fr *FieldResult) {
	if len(fr.Snippets) == 0 {
		return
	}
	tags, entities := markupOf(fr.Text)
	// inside returns the tag or entity that holds byte offset x strictly
	// inside it, if any.
	inside := func(x int) (int, int, bool) {
		i := sort.Search(len(tags), func(i int) bool { return tags[i].end > x })
		if i < len(tags) && tags[i].start < x {
			return tags[i].start, tags[i].end, true
		}
		k := sort.Search(len(entities), func(k int) bool { return entities[k][1] > x })
		if k < len(entities) && entities[k][0] < x {
			return entities[k][0], entities[k][1], true
		}
		return 0, 0, false
	}
	for j := range fr.Snippets {
		s := &fr.Snippets[j]
		if a, b, ok := inside(s.Start); ok {
			if strings.HasPrefix(fr.Text[a:], "&") {
				s.Start = a // an entity stays whole
			} else {
				s.Start = b // past the tag: it is opened again below
			}
		}
		if a, b, ok := inside(s.End); ok {
			if strings.HasPrefix(fr.Text[a:], "&") {
				s.End = b
			} else {
				s.End = a
			}
		}
		s.End = max(s.End, s.Start)
		// The elements open at the snippet's start, then those its own
		// tags leave open.
		var stack []markupTag
		apply := func(t markupTag) {
			switch {
			case t.open:
				stack = append(stack, t)
			case t.close:
				for k := len(stack) - 1; k >= 0; k-- {
					if stack[k].name == t.name {
						stack = stack[:k]
						break
					}
				}
			}
		}
		i := 0
		for ; i < len(tags) && tags[i].end <= s.Start; i++ {
			apply(tags[i])
		}
		var open strings.Builder
		for _, t := range stack {
			open.WriteString(fr.Text[t.start:t.end])
		}
		for ; i < len(tags) && tags[i].end <= s.End; i++ {
			apply(tags[i])
		}
		var closing strings.Builder
		for k := len(stack) - 1; k >= 0; k-- {
			closing.WriteString("</" + stack[k].name + ">")
		}
		s.Open, s.Close = open.String(), closing.String()
	}
}
