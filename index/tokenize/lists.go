package tokenize

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wordform maps a word, or a sequence of words, to other words (wordforms).
// Both sides are folded words separated by single spaces.
type Wordform struct {
	From string
	To   string
	// Morph: a '~' line, matched after morphology: any word with the stem
	// of From maps to To (From is one word). Without morphology it is an
	// ordinary form.
	Morph bool `json:",omitempty"`
}

// Exception maps a character sequence of the raw text, matched
// case-sensitively, to one term (exceptions). In From, a single space stands
// for any run of white space; To is indexed as written.
type Exception struct {
	From string
	To   string
}

// foldWords calls fn for every word of s, folded as the tokenizer folds words
// (without stemming, stopwords or wordforms): runs of word, blend and ignore
// characters (the latter dropped), and single ngram characters.
func (t *charTable) foldWords(s string, fn func(word string)) {
	var b []byte
	flush := func() {
		if len(b) > 0 {
			fn(string(cutTerm(b)))
			b = b[:0]
		}
	}
	for _, r := range s {
		c, to := t.class(r)
		switch c {
		case cWord, cBlend:
			b = utf8.AppendRune(b, to)
		case cMark:
			if len(b) > 0 {
				b = utf8.AppendRune(b, to)
			}
		case cIgnore:
		case cNgram:
			flush()
			b = utf8.AppendRune(b, to)
			flush()
		default:
			flush()
		}
	}
	flush()
}

// cutTerm cuts b to at most MaxTermLen bytes at a character boundary.
func cutTerm(b []byte) []byte {
	if len(b) <= MaxTermLen {
		return b
	}
	cut := MaxTermLen
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return b[:cut]
}

// parseStopwords folds the words of the stopword texts into a sorted set.
func parseStopwords(t *charTable, texts []string) []string {
	set := map[string]bool{}
	for _, s := range texts {
		t.foldWords(s, func(w string) { set[w] = true })
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// listFile is the text of one file a setting names.
type listFile struct {
	path string
	text string
}

// lines calls fn for every line of text that is neither empty nor a comment
// (its first non-blank character is '#'), with its 1-based number.
func lines(text string, fn func(n int, line string) error) error {
	for n := 1; text != ""; n++ {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	return nil
}

// parseWordforms reads wordforms files: lines "source > destination" (or
// "source => destination"); both sides are folded into words.
func parseWordforms(t *charTable, files []listFile) ([]Wordform, error) {
	type seen struct {
		to   string
		file string
		line int
	}
	known := map[string]seen{}
	var out []Wordform
	for _, f := range files {
		err := lines(f.text, func(n int, line string) error {
			fail := func(msg string) error {
				return &SettingError{Setting: "wordforms", File: f.path, Line: n, Offset: -1, Msg: msg}
			}
			if !utf8.ValidString(line) {
				return fail("invalid UTF-8")
			}
			morph := false
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "~"); ok {
				line, morph = rest, true
			}
			i, w := strings.Index(line, "=>"), 2
			if i < 0 {
				i, w = strings.IndexByte(line, '>'), 1
			}
			if i < 0 {
				return fail("no '>' between source and destination")
			}
			var src, dst []string
			t.foldWords(line[:i], func(s string) { src = append(src, s) })
			t.foldWords(line[i+w:], func(s string) { dst = append(dst, s) })
			switch {
			case len(src) == 0:
				return fail("no source word before '>'")
			case len(dst) == 0:
				return fail("no destination word after '>'")
			}
			if morph && len(src) > 1 {
				return fail("a '~' form (matched after morphology) takes one source word")
			}
			from, to := strings.Join(src, " "), strings.Join(dst, " ")
			key := from
			if morph {
				key = "~" + from
			}
			if prev, ok := known[key]; ok {
				if prev.to == to {
					return nil
				}
				return fail("'" + key + "' already maps to '" + prev.to + "' (" + prev.file + ":" + itoa(prev.line) + ")")
			}
			known[key] = seen{to, f.path, n}
			out = append(out, Wordform{From: from, To: to, Morph: morph})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// parseExceptions reads exceptions files: lines "source => destination".
func parseExceptions(files []listFile) ([]Exception, error) {
	type seen struct {
		to   string
		file string
		line int
	}
	known := map[string]seen{}
	var out []Exception
	for _, f := range files {
		err := lines(f.text, func(n int, line string) error {
			fail := func(msg string) error {
				return &SettingError{Setting: "exceptions", File: f.path, Line: n, Offset: -1, Msg: msg}
			}
			if !utf8.ValidString(line) {
				return fail("invalid UTF-8")
			}
			i := strings.Index(line, "=>")
			if i < 0 {
				return fail("no '=>' between source and destination")
			}
			from := strings.Join(strings.Fields(line[:i]), " ")
			to := strings.TrimSpace(line[i+2:])
			if msg := checkException(from, to); msg != "" {
				return fail(msg)
			}
			if prev, ok := known[from]; ok {
				if prev.to == to {
					return nil
				}
				return fail("'" + from + "' already maps to '" + prev.to + "' (" + prev.file + ":" + itoa(prev.line) + ")")
			}
			known[from] = seen{to, f.path, n}
			out = append(out, Exception{From: from, To: to})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkException says what is wrong with an exception ("" if nothing).
func checkException(from, to string) string {
	switch {
	case from == "":
		return "no source before '=>'"
	case to == "":
		return "no destination after '=>'"
	case len(to) > MaxTermLen:
		return "destination '" + to + "' is longer than " + itoa(MaxTermLen) + " bytes"
	case !utf8.ValidString(from) || !utf8.ValidString(to):
		return "invalid UTF-8"
	}
	for _, r := range from {
		if r != ' ' && reservedRune(r) {
			return "source contains the control character " + formatRune(r)
		}
	}
	for _, r := range to {
		if r != ' ' && reservedRune(r) {
			return "destination contains the control character " + formatRune(r)
		}
	}
	return ""
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// formNode is a node of the wordforms trie: the words read so far lead here.
type formNode struct {
	next map[string]*formNode
	to   []string // destination words if a source ends here
	dest string   // the destination as written in the Config (for duplicates)
}

// buildForms builds the trie of the wordforms (nil if there are none).
func buildForms(forms []Wordform) (*formNode, error) {
	if len(forms) == 0 {
		return nil, nil
	}
	root := &formNode{}
	for _, f := range forms {
		src, dst := strings.Split(f.From, " "), strings.Split(f.To, " ")
		if f.From == "" || f.To == "" || contains(src, "") || contains(dst, "") {
			return nil, &SettingError{Setting: "wordforms", Offset: -1, Msg: "empty word in '" + f.From + " > " + f.To + "'"}
		}
		n := root
		for _, w := range src {
			if n.next == nil {
				n.next = map[string]*formNode{}
			}
			m := n.next[w]
			if m == nil {
				m = &formNode{}
				n.next[w] = m
			}
			n = m
		}
		if n.to != nil && n.dest != f.To {
			return nil, &SettingError{Setting: "wordforms", Offset: -1, Msg: "'" + f.From + "' maps to both '" + n.dest + "' and '" + f.To + "'"}
		}
		n.to, n.dest = dst, f.To
	}
	return root, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// excMatcher finds exceptions in raw text.
type excMatcher struct {
	first   [utf8.RuneSelf]bool // an exception starts with this ASCII byte
	byFirst map[rune][]int      // first rune -> indexes into list, longest source first
	list    []Exception
}

func buildExceptions(list []Exception) (*excMatcher, error) {
	if len(list) == 0 {
		return nil, nil
	}
	m := &excMatcher{byFirst: map[rune][]int{}, list: list}
	for i, e := range list {
		if msg := checkException(e.From, e.To); msg != "" {
			return nil, &SettingError{Setting: "exceptions", Offset: -1, Msg: msg}
		}
		r, _ := utf8.DecodeRuneInString(e.From)
		if r < utf8.RuneSelf {
			m.first[r] = true
		}
		m.byFirst[r] = append(m.byFirst[r], i)
	}
	for _, idx := range m.byFirst {
		sort.SliceStable(idx, func(a, b int) bool { return len(list[idx[a]].From) > len(list[idx[b]].From) })
	}
	return m, nil
}

// match returns the exception that starts at text[i:] (r is the rune there)
// and the end of the match, or -1. A source that starts (ends) with a word
// character only matches where a word may start (end): the character before
// (after) the match is not a word character.
func (m *excMatcher) match(t *charTable, text string, i int, r rune) (idx, end int) {
	cands := m.byFirst[r]
	if len(cands) == 0 {
		return -1, -1
	}
	wordBefore := false
	if i > 0 {
		p, _ := utf8.DecodeLastRuneInString(text[:i])
		wordBefore = isWordish(t, p)
	}
	for _, k := range cands {
		from := m.list[k].From
		if wordBefore && isWordish(t, r) {
			continue
		}
		j, ok := matchFrom(text, i, from)
		if !ok {
			continue
		}
		last, _ := utf8.DecodeLastRuneInString(from)
		if isWordish(t, last) && j < len(text) {
			next, _ := utf8.DecodeRuneInString(text[j:])
			if isWordish(t, next) {
				continue
			}
		}
		return k, j
	}
	return -1, -1
}

// matchFrom matches from at text[i:]: a space in from matches one or more
// white space characters.
func matchFrom(text string, i int, from string) (int, bool) {
	for from != "" {
		if from[0] == ' ' {
			n := 0
			for i < len(text) {
				r, size := utf8.DecodeRuneInString(text[i:])
				if !unicode.IsSpace(r) {
					break
				}
				i += size
				n++
			}
			if n == 0 {
				return 0, false
			}
			from = from[1:]
			continue
		}
		r, size := utf8.DecodeRuneInString(from)
		tr, tsize := utf8.DecodeRuneInString(text[i:])
		if r != tr || tr == utf8.RuneError && tsize <= 1 {
			return 0, false
		}
		i += tsize
		from = from[size:]
	}
	return i, true
}

// isWordish reports whether r is part of words (not a separator).
func isWordish(t *charTable, r rune) bool {
	if r == utf8.RuneError {
		return false
	}
	c, _ := t.class(r)
	return c != cSep && c != cBound
}

// FormWords reports how many of words (folded, as Fold gives them) a
// multi-word wordforms source covers from the first, the longest source
// that matches; 0 when none does (a one-word source is the tokenizer's to
// apply to its word alone). A query parser, which reads words one at a
// time, joins those words into one text for the tokenizer to map, as the
// words of a document are mapped.
func (t *Tokenizer) FormWords(words []string) int {
	if t.r == nil || t.r.forms == nil {
		return 0
	}
	n, longest := t.r.forms, 0
	for i, w := range words {
		if n = n.next[w]; n == nil {
			break
		}
		if n.to != nil && i > 0 {
			longest = i + 1
		}
	}
	return longest
}

// HasMultiWordForms reports whether a wordforms source has several words.
func (t *Tokenizer) HasMultiWordForms() bool { return t.r != nil && t.r.multiForms }
