package query

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/glint-search/glint/index/tokenize"
)

// Error is a query that cannot be parsed. Pos is the byte offset in the
// query text where the problem is.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("syntax error at offset %d: %s", e.Pos, e.Msg) }

// Limits that keep a hostile query from exhausting the stack or the CPU.
const (
	MaxDepth    = 100   // nesting of parentheses, NOT and field limits inside operands
	MaxKeywords = 10000 // keywords in one query (the reference's own tests send 3,039)
)

// Parse parses the text of MATCH() (or a JSON query_string) with the table's
// tokenizer (see the package documentation for the grammar). A query
// without any searchable word (empty, only stopwords) gives (nil, nil).
func Parse(text string, tok *tokenize.Tokenizer) (Node, error) {
	if !utf8.ValidString(text) {
		// (Not a word that matches nothing: text is kept as UTF-8, so
		// the query can only have been sent in another encoding.)
		at := 0
		for at < len(text) {
			r, size := utf8.DecodeRuneInString(text[at:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			at += size
		}
		return nil, errAt(at, "the query is not UTF-8 (byte 0x%02X): glint keeps text as UTF-8", text[at])
	}
	return parse(text, tok, 0, 0)
}

// parse parses text with query positions and the keyword count going on
// from qpos and nkw.
func parse(text string, tok *tokenize.Tokenizer, qpos, nkw int) (Node, error) {
	n, _, _, err := parseAt(text, tok, qpos, nkw)
	return n, err
}

func parseAt(text string, tok *tokenize.Tokenizer, qpos, nkw int) (Node, int, int, error) {
	p := &parser{lex: lexer{text: text, tok: tok}, tok: tok, q: tok.Query(), qpos: qpos, nkw: nkw, forms: tok.HasMultiWordForms()}
	n, err := p.run()
	return n, p.qpos, p.nkw, err
}

func (p *parser) run() (Node, error) {
	n, err := p.and(0)
	if p.lexErr != nil {
		// The lexer stopped first; what the parser said after is a
		// consequence (it saw the end of the query there).
		return nil, p.lexErr
	}
	if err != nil {
		return nil, err
	}
	if t := p.cur(); t.kind != tEOF {
		return nil, errAt(t.pos, "unbalanced ')'")
	}
	return n, nil
}

// parser reads tokens from the lexer one at a time, so that a query that
// fails early is not lexed to its end.
type parser struct {
	lex    lexer
	look   token
	have   bool
	lexErr error
	tok    *tokenize.Tokenizer
	q      *tokenize.Tokenizer // tok.Query()
	qpos   int                 // query positions used so far

	// scope is the field limit and zone in force at the current token;
	// base is the one the group puts around the whole element being
	// parsed. They differ after a limit met inside an element ("a |
	// @title b c"): the words and groups read from there on are wrapped
	// one by one, and the group goes on with the new limit after the
	// element.
	scope, base scope
	nkw         int
	it          tokenize.Iter
	forms       bool // the table has multi-word wordforms (joinForms)
}

// scope is a field limit and a zone (nil: none).
type scope struct{ field, zone *token }

func (p *parser) cur() token {
	if !p.have {
		p.have = true
		if p.lexErr != nil {
			p.look = token{kind: tEOF, pos: p.lex.i}
			return p.look
		}
		t, err := p.lex.next()
		if err != nil {
			p.lexErr = err
			t = token{kind: tEOF, pos: p.lex.i}
		}
		p.look = t
	}
	return p.look
}

func (p *parser) advance() {
	p.cur()
	p.have = false
}

// segment is a run of a group's elements under one field limit and zone.
type segment struct {
	scope
	elems []Node
}

// and parses a group: elements up to ')' or the end, ANDed. A field limit
// or zone applies to the elements after it, up to the next one or the end
// of the group.
func (p *parser) and(depth int) (Node, error) {
	outer, outerBase := p.scope, p.base
	defer func() { p.scope, p.base = outer, outerBase }()
	var segs []segment
	cur := segment{}
	for {
		t := p.cur()
		switch t.kind {
		case tEOF, tRParen:
			segs = append(segs, cur)
			return p.build(segs)
		case tField:
			segs = append(segs, cur)
			cur = segment{scope: scope{field: &t, zone: cur.zone}}
			p.advance()
			continue
		case tZone:
			segs = append(segs, cur)
			cur = segment{scope: scope{field: cur.field, zone: &t}}
			p.advance()
			continue
		case tOr, tBefore, tNear, tNotNear, tMaybe, tSentence, tParagraph:
			return nil, errAt(t.pos, "%s needs a word before it", tokNames[t.kind])
		}
		p.scope, p.base = cur.scope, cur.scope
		n, err := p.seq(depth)
		if err != nil {
			return nil, err
		}
		if n != nil {
			cur.elems = append(cur.elems, n)
		}
		if p.scope != cur.scope {
			// A limit inside the element goes on for the rest of the group.
			segs = append(segs, cur)
			cur = segment{scope: p.scope}
		}
	}
}

// build ANDs the segments of a group: the positive elements of a segment
// under its field limit and zone, each negative element as NOT of its
// child under them.
func (p *parser) build(segs []segment) (Node, error) {
	var children []Node
	var firstNot *Not
	for _, s := range segs {
		var pos, neg []Node
		for _, e := range s.elems {
			if not, ok := e.(Not); ok {
				if firstNot == nil {
					firstNot = &not
				}
				neg = append(neg, Not{Child: wrap(s.scope, not.Child), Pos: not.Pos})
				continue
			}
			pos = append(pos, e)
		}
		if len(pos) > 0 {
			children = append(children, wrap(s.scope, andOf(pos)))
		}
		children = append(children, neg...)
	}
	positive := 0
	for _, c := range children {
		if _, ok := c.(Not); !ok {
			positive++
		}
	}
	if positive == 0 {
		if firstNot != nil {
			return nil, errAt(firstNot.Pos, "the query is only negative: NOT needs a word to exclude from, as in 'cats -dogs'")
		}
		return nil, nil
	}
	return andOf(children), nil
}

func andOf(ns []Node) Node {
	if len(ns) == 1 {
		return ns[0]
	}
	var out []Node
	for _, n := range ns {
		if a, ok := n.(And); ok {
			out = append(out, a.Children...)
		} else {
			out = append(out, n)
		}
	}
	return And{Children: out, Pos: Offset(ns[0])}
}

// wrap puts n under a field limit and zone.
func wrap(s scope, n Node) Node {
	if f := s.field; f != nil {
		n = Field{Fields: f.names, Negate: f.negate, MaxPos: f.maxPos, Child: n, Pos: f.pos}
	}
	if z := s.zone; z != nil {
		n = Zone{Names: z.names, Span: z.span, Child: n, Pos: z.pos}
	}
	return n
}

// limit puts an operand under the limits met inside the current element
// (those that differ from the element's own, which the group applies).
func (p *parser) limit(n Node) Node {
	if n == nil || p.scope == p.base {
		return n
	}
	s := p.scope
	if s.field == p.base.field {
		s.field = nil
	}
	if s.zone == p.base.zone {
		s.zone = nil
	}
	return wrap(s, n)
}

// needOperand checks that a word, phrase or group follows an operator.
func (p *parser) needOperand(op token) error {
	switch p.cur().kind {
	case tWord, tPhrase, tLParen, tNot, tField, tZone:
		return nil
	}
	name := tokNames[op.kind]
	if op.kind == tField {
		name = "field limit " + op.text
	} else if op.kind == tZone {
		name = op.text + ":"
	}
	return errAt(op.pos, "%s needs a word after it", name)
}

// noNot rejects NOT as an operand of a binary operator: NOT only
// excludes from the AND it stands in.
func noNot(op token, operands ...Node) error {
	for _, n := range operands {
		if not, ok := n.(Not); ok {
			return errAt(not.Pos, "NOT cannot be an operand of %s; it only excludes from a list of words, as in 'cats -dogs'", tokNames[op.kind])
		}
	}
	return nil
}

// seq: negated { ('<<' | NEAR/N | NOTNEAR/N) negated }, one level, from
// the left: "a << b NEAR/2 c" is (a << b) NEAR/2 c, as in Sphinx. A run
// of '<<' is one Before; NEAR and NOTNEAR nest to the left. (A stopword
// operand asks for nothing, and NOTNEAR a stopword excludes nothing.)
func (p *parser) seq(depth int) (Node, error) {
	isOp := func(k tokKind) bool { return k == tBefore || k == tNear || k == tNotNear }
	return p.chain(depth, p.negated, isOp, func(op token, left Node, built bool, right Node) Node {
		switch op.kind {
		case tBefore:
			if b, ok := left.(Before); ok && built {
				b.Children = append(b.Children, right)
				return b
			}
			return Before{Children: []Node{left, right}, Pos: op.pos}
		case tNear:
			return Near{Left: left, Right: right, Distance: op.num, Pos: op.pos}
		}
		return NotNear{Left: left, Right: right, Distance: op.num, Pos: op.pos}
	})
}

// chain parses operand { op operand } for the operators isOp accepts, one
// level, from the left, and joins each pair with join; built tells join
// whether left is a node it made in this chain (so a run of one operator
// can become one node, while a parenthesised operand stays apart). An
// operand that is a stopword (nil) drops out; NOT is never an operand.
func (p *parser) chain(depth int, operand func(int) (Node, error), isOp func(tokKind) bool,
	join func(op token, left Node, built bool, right Node) Node) (Node, error) {
	left, err := operand(depth)
	if err != nil {
		return nil, err
	}
	built := false
	for isOp(p.cur().kind) {
		op := p.cur()
		p.advance()
		if err := p.needOperand(op); err != nil {
			return nil, err
		}
		right, err := operand(depth)
		if err != nil {
			return nil, err
		}
		if err := noNot(op, left, right); err != nil {
			return nil, err
		}
		switch {
		case right == nil:
			continue
		case left == nil:
			left, built = right, false
			continue
		}
		left, built = join(op, left, built, right), true
	}
	return left, nil
}

// negated: ['-' | '!'] or. NOT takes a whole OR: "x -a | b" is x AND NOT
// (a OR b), as in Sphinx.
func (p *parser) negated(depth int) (Node, error) {
	t := p.cur()
	if t.kind != tNot {
		return p.or(depth)
	}
	if depth >= MaxDepth {
		return nil, errAt(t.pos, "the query nests more than %d levels deep", MaxDepth)
	}
	p.advance()
	if err := p.needOperand(t); err != nil {
		return nil, err
	}
	child, err := p.or(depth + 1)
	if err != nil {
		return nil, err
	}
	if not, ok := child.(Not); ok {
		return nil, errAt(not.Pos, "NOT of NOT: remove both")
	}
	if child == nil {
		return nil, nil // NOT of a stopword excludes nothing
	}
	return Not{Child: child, Pos: t.pos}, nil
}

// or: unit { ('|' | MAYBE) unit }, one level, from the left: "a | b MAYBE
// c" is (a | b) MAYBE c and "a MAYBE b | c" is (a MAYBE b) | c, as in
// Sphinx. ORs flatten into one node.
func (p *parser) or(depth int) (Node, error) {
	start := p.cur().pos
	isOp := func(k tokKind) bool { return k == tOr || k == tMaybe }
	var mine []Node // the alternatives of the Or this chain built last
	return p.chain(depth, p.unit, isOp, func(op token, left Node, _ bool, right Node) Node {
		if op.kind == tMaybe {
			return Maybe{Left: left, Right: right, Pos: op.pos}
		}
		// The alternatives this chain built grow in place (a chain of n
		// is built in O(n), not O(n^2)); those of another node are copied.
		var cs []Node
		if o, ok := left.(Or); ok {
			if len(mine) > 0 && len(o.Children) == len(mine) && &o.Children[0] == &mine[0] {
				cs = o.Children
			} else {
				cs = append(cs, o.Children...)
			}
		} else {
			cs = append(cs, left)
		}
		if o, ok := right.(Or); ok {
			cs = append(cs, o.Children...)
		} else {
			cs = append(cs, right)
		}
		mine = cs
		return Or{Children: cs, Pos: start}
	})
}

// unit: primary { (SENTENCE | PARAGRAPH) primary }, the tightest binary
// operators; a chain of one operator is one node (all in one sentence), and
// a change of operator nests to the left.
func (p *parser) unit(depth int) (Node, error) {
	isOp := func(k tokKind) bool { return k == tSentence || k == tParagraph }
	return p.chain(depth, p.primary, isOp, func(op token, left Node, _ bool, right Node) Node {
		if op.kind == tSentence {
			if s, ok := left.(Sentence); ok {
				s.Children = append(s.Children, right)
				return s
			}
			return Sentence{Children: []Node{left, right}, Pos: op.pos}
		}
		if s, ok := left.(Paragraph); ok {
			s.Children = append(s.Children, right)
			return s
		}
		return Paragraph{Children: []Node{left, right}, Pos: op.pos}
	})
}

// primary: a word, a phrase, a group, or (after an operator) a field limit
// or zone and its operand, or NOT of a primary, which the caller rejects.
func (p *parser) primary(depth int) (Node, error) {
	t := p.cur()
	if depth >= MaxDepth {
		return nil, errAt(t.pos, "the query nests more than %d levels deep", MaxDepth)
	}
	switch t.kind {
	case tNot:
		// Only after an operator ("a | -b") or another NOT ("--a"): the
		// caller reports it, so a NOT of a stopword is kept too.
		p.advance()
		if err := p.needOperand(t); err != nil {
			return nil, err
		}
		child, err := p.primary(depth + 1)
		if err != nil {
			return nil, err
		}
		return Not{Child: child, Pos: t.pos}, nil
	case tLParen:
		p.advance()
		if p.cur().kind == tRParen {
			return nil, errAt(t.pos, "empty group '()'")
		}
		n, err := p.and(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.cur().kind != tRParen {
			return nil, errAt(t.pos, "unbalanced '(': no closing ')'")
		}
		p.advance()
		return p.limit(n), nil
	case tWord:
		p.advance()
		w := t.word
		if p.forms {
			w = p.joinForms(w)
		}
		n, err := p.word(w)
		return p.limit(n), err
	case tPhrase:
		p.advance()
		n, err := p.phrase(t)
		return p.limit(n), err
	case tEOF:
		return nil, errAt(t.pos, "a word is missing at the end of the query")
	case tRParen:
		return nil, errAt(t.pos, "unbalanced ')'")
	case tField, tZone:
		// A limit after an operator ("@title a | @content b") limits
		// what follows it up to the end of the group, as everywhere.
		p.advance()
		if err := p.needOperand(t); err != nil {
			return nil, err
		}
		if t.kind == tField {
			p.scope.field = &t
		} else {
			p.scope.zone = &t
		}
		return p.primary(depth + 1)
	}
	return nil, errAt(t.pos, "%s needs a word before it", tokNames[t.kind])
}

func (p *parser) keyword(k Keyword) (Keyword, error) {
	if p.nkw++; p.nkw > MaxKeywords {
		return k, errAt(k.Pos, "the query has more than %d keywords", MaxKeywords)
	}
	return k, nil
}

// maxFormWords bounds how many words a multi-word wordforms source is
// looked for in (joinForms).
const maxFormWords = 8

// joinForms joins w and the plain words that follow it, separated by
// blanks only, when they begin with a multi-word wordforms source
// ("new york > nyc"): one word of their text, which the tokenizer maps as
// it maps the words of a document. Otherwise w, and nothing is consumed.
func (p *parser) joinForms(w lexWord) lexWord {
	if !p.plainWord(w) {
		return w
	}
	words := []lexWord{w}
	folded := []string{p.tok.Fold(w.text)}
	saved, look, have, lexErr := p.lex, p.look, p.have, p.lexErr
	for len(words) < maxFormWords {
		t := p.cur()
		prev := words[len(words)-1]
		if t.kind != tWord || !p.plainWord(t.word) || !onlyBlanks(p.lex.text[prev.pos+len(prev.text):t.word.pos]) {
			break
		}
		words = append(words, t.word)
		folded = append(folded, p.tok.Fold(t.word.text))
		p.advance()
	}
	n := p.tok.FormWords(folded)
	// Give back what the source does not cover.
	p.lex, p.look, p.have, p.lexErr = saved, look, have, lexErr
	for range max(n-1, 0) {
		p.advance()
	}
	if n < 2 {
		return w
	}
	return joinWords(p.lex.text, words[:n])
}

// joinForms over the words of a phrase.
func (p *parser) joinPhraseForms(words []lexWord) []lexWord {
	var out []lexWord
	for i := 0; i < len(words); {
		j := i
		folded := []string{}
		for j < len(words) && j-i < maxFormWords && p.plainWord(words[j]) &&
			(j == i || onlyBlanks(p.lex.text[words[j-1].pos+len(words[j-1].text):words[j].pos])) {
			folded = append(folded, p.tok.Fold(words[j].text))
			j++
		}
		if n := p.tok.FormWords(folded); n >= 2 {
			out = append(out, joinWords(p.lex.text, words[i:i+n]))
			i += n
			continue
		}
		out = append(out, words[i])
		i++
	}
	return out
}

// plainWord reports whether w is a word as written (no wildcard, exact
// form, field edge, boost or escape), which a wordforms source may hold.
func (p *parser) plainWord(w lexWord) bool {
	return !w.wildcard && !w.regex && !w.exact && !w.start && !w.end && w.boost == 0 && w.mark == 0 &&
		w.pos >= 0 && w.pos+len(w.text) <= len(p.lex.text) && p.lex.text[w.pos:w.pos+len(w.text)] == w.text
}

// joinWords is one word of the text from the first of words to the end
// of the last.
func joinWords(text string, words []lexWord) lexWord {
	last := words[len(words)-1]
	return lexWord{text: text[words[0].pos : last.pos+len(last.text)], pos: words[0].pos}
}

func onlyBlanks(s string) bool { return strings.Trim(s, " \t\r\n") == "" }

// qtok is one token of a query word.
type qtok struct {
	term    string
	pos     int
	blended bool
}

// tokens runs a word through the query tokenizer: its terms, without
// reserved terms (exact forms are asked for with =word).
func (p *parser) tokens(text string) []qtok {
	var out []qtok
	p.it.Reset(p.q, text)
	for p.it.Next() {
		term := p.it.Term()
		if tokenize.IsReserved(string(term)) {
			continue
		}
		out = append(out, qtok{term: string(term), pos: p.it.Pos(), blended: p.it.Blended()})
	}
	return out
}

func hasWordText(text string) bool { return strings.TrimFunc(text, isWildcard) != "" }

func isWildcard(r rune) bool { return r == '*' || r == '?' || r == '%' }

// word turns one query word into a Keyword, a Phrase (a word the tokenizer
// splits, such as CJK n-grams), an Or of a blended token and its parts, or
// nil (a stopword, which still takes its query position).
func (p *parser) word(w lexWord) (Node, error) {
	if w.regex {
		if w.exact {
			return nil, errAt(w.pos, "REGEX(/%s/) cannot take '=': it matches the words as written already", w.text)
		}
		if _, err := CompileRegex(w.text); err != nil {
			return nil, errAt(w.pos, "REGEX(/%s/): %v", w.text, err)
		}
		p.qpos++
		return p.keyword(Keyword{Text: w.text, Term: w.text, Pos: w.pos, QPos: p.qpos, Regex: true,
			FieldStart: w.start, FieldEnd: w.end, Boost: w.boost})
	}
	if w.wildcard {
		if !hasWordText(w.text) {
			// Wildcards alone ("?", "*" outside a phrase) are no word:
			// the reference passes over them as it does punctuation.
			return nil, nil
		}
		p.qpos++
		return p.keyword(Keyword{Text: w.text, Term: p.tok.Fold(w.text), Pos: w.pos, QPos: p.qpos, Wildcard: true,
			FieldStart: w.start, FieldEnd: w.end, Boost: w.boost})
	}
	if w.exact {
		term := p.tok.Exact(w.text)
		p.qpos++
		if term == "" {
			return nil, nil
		}
		return p.keyword(Keyword{Text: w.text, Term: term, Pos: w.pos, QPos: p.qpos, Exact: true,
			FieldStart: w.start, FieldEnd: w.end, Boost: w.boost})
	}
	toks := p.tokens(w.text)
	base := p.qpos
	if len(toks) == 0 {
		p.skip(w.text)
		return nil, nil
	}
	last := 0
	var blended []Node
	var parts []Keyword
	for _, t := range toks {
		last = max(last, t.pos)
		k := Keyword{Text: w.text, Term: t.term, Pos: w.pos, QPos: base + t.pos, Boost: w.boost}
		if t.blended {
			k.FieldStart, k.FieldEnd = w.start, w.end
			kw, err := p.keyword(k)
			if err != nil {
				return nil, err
			}
			blended = append(blended, kw)
			continue
		}
		parts = append(parts, k)
	}
	p.qpos = base + last
	if len(blended) > 0 {
		// A blended word is searched as written, not by its parts (which
		// only take their positions), as the reference searches it: "+tag"
		// does not find "+tag+bag", whose part "tag" a plain query word
		// finds.
		if len(blended) == 1 {
			return blended[0], nil
		}
		return Or{Children: blended, Pos: w.pos}, nil
	}
	var whole Node
	switch len(parts) {
	case 0:
	case 1:
		parts[0].FieldStart, parts[0].FieldEnd = w.start, w.end
		kw, err := p.keyword(parts[0])
		if err != nil {
			return nil, err
		}
		whole = kw
		if len(blended) == 0 {
			if whole, err = p.expand(kw, w); err != nil {
				return nil, err
			}
		}
	default:
		parts[0].FieldStart = w.start
		parts[len(parts)-1].FieldEnd = w.end
		for i := range parts {
			kw, err := p.keyword(parts[i])
			if err != nil {
				return nil, err
			}
			parts[i] = kw
		}
		whole = Phrase{Words: parts, Pos: w.pos}
	}
	return whole, nil
}

// expand applies the table's expand_keywords to the keyword of a plain
// word W: it becomes (W | *W* | =W), with *W* (W* on a table with
// min_prefix_len) only when W is long enough to be a wildcard of the table
// and =W only when the table indexes exact forms and they differ from W's
// term. A word in quotes is not expanded (a phrase holds keywords only).
func (p *parser) expand(kw Keyword, w lexWord) (Node, error) {
	cfg := p.tok.Config()
	if cfg.ExpandKeywords == 0 {
		return kw, nil
	}
	alts := []Node{kw}
	add := func(k Keyword) error {
		k.Pos, k.QPos, k.FieldStart, k.FieldEnd, k.Boost = kw.Pos, kw.QPos, kw.FieldStart, kw.FieldEnd, kw.Boost
		k, err := p.keyword(k)
		alts = append(alts, k)
		return err
	}
	if cfg.ExpandKeywords&tokenize.ExpandStar != 0 {
		folded := p.tok.Fold(w.text)
		n, plain := 0, folded != ""
		for _, r := range folded {
			n++
			plain = plain && p.tok.IsWordRune(r) && !isWildcard(r)
		}
		switch {
		case !plain:
		case cfg.MinInfixLen > 0 && n >= cfg.MinInfixLen:
			if err := add(Keyword{Text: "*" + w.text + "*", Term: "*" + folded + "*", Wildcard: true}); err != nil {
				return nil, err
			}
		case cfg.MinPrefixLen > 0 && n >= cfg.MinPrefixLen:
			if err := add(Keyword{Text: w.text + "*", Term: folded + "*", Wildcard: true}); err != nil {
				return nil, err
			}
		}
	}
	if cfg.ExpandKeywords&tokenize.ExpandExact != 0 && cfg.IndexExactWords {
		if term := p.tok.Exact(w.text); term != "" && term != kw.Term {
			if err := add(Keyword{Text: w.text, Term: term, Exact: true}); err != nil {
				return nil, err
			}
		}
	}
	if len(alts) == 1 {
		return kw, nil
	}
	return Or{Children: alts, Pos: w.pos}, nil
}

// skip moves the query position past a word that gives no keyword: one
// position, or none for a stopword of a table with stopword_step=0.
func (p *parser) skip(text string) {
	if text == "" {
		return
	}
	if p.tok.StopwordStep() == 0 && p.tok.Stopword(p.tok.Fold(text)) {
		return
	}
	p.qpos++
}

// maxPhraseChoices bounds the word sequences one phrase with groups of
// alternatives stands for.
const maxPhraseChoices = 64

// phrase turns "..." (with ~N or /N) into a Phrase, Proximity or Quorum.
// Inside quotes a blended token counts by its parts (by itself when it
// has none: each was too short). Groups of
// alternatives in brackets, "door (opened | closed)", make an Or of one such
// node for each choice: every choice starts at the same query position, as
// each alternative is tried at the same place of the phrase.
func (p *parser) phrase(t token) (Node, error) {
	choices, err := phraseChoices(t.words)
	if err != nil {
		return nil, err
	}
	base, end := p.qpos, p.qpos
	var nodes []Node
	for _, words := range choices {
		p.qpos = base
		n, err := p.phraseOf(t, words)
		if err != nil {
			return nil, err
		}
		end = max(end, p.qpos)
		if n != nil {
			nodes = append(nodes, n)
		}
	}
	p.qpos = end
	switch len(nodes) {
	case 0:
		return nil, nil
	case 1:
		return nodes[0], nil
	}
	return Or{Children: nodes, Pos: t.pos}, nil
}

// phraseChoices expands the groups of alternatives of a phrase: the words
// of "a (b | c d) e" give the sequences [a b e] and [a c d e]. Groups nest.
// A '|' or ')' outside any group and a '(' never closed count as
// separators, as every non-word character in quotes does; an empty
// alternative stands for no word.
func phraseChoices(words []lexWord) ([][]lexWord, error) {
	i := 0
	var seq func(depth int) ([][]lexWord, error)
	group := func(depth int) ([][]lexWord, error) {
		var all [][]lexWord
		for {
			alt, err := seq(depth)
			if err != nil {
				return nil, err
			}
			all = append(all, alt...)
			if len(all) > maxPhraseChoices {
				return nil, errAt(words[i-1].pos, "the groups of alternatives in this phrase stand for more than %d phrases", maxPhraseChoices)
			}
			if i >= len(words) {
				return all, nil // a '(' never closed: the group ends with the phrase
			}
			mark := words[i].mark
			i++
			if mark == ')' {
				return all, nil
			}
		}
	}
	seq = func(depth int) ([][]lexWord, error) {
		out := [][]lexWord{nil}
		for i < len(words) {
			w := words[i]
			switch w.mark {
			case 0:
				for k := range out {
					out[k] = append(out[k], w) // each choice owns its array
				}
				i++
			case '(':
				if depth >= MaxDepth {
					return nil, errAt(w.pos, "groups in a phrase nest deeper than %d", MaxDepth)
				}
				i++
				alts, err := group(depth + 1)
				if err != nil {
					return nil, err
				}
				if len(out)*len(alts) > maxPhraseChoices {
					return nil, errAt(w.pos, "the groups of alternatives in this phrase stand for more than %d phrases", maxPhraseChoices)
				}
				if len(alts) == 1 {
					for k := range out {
						out[k] = append(out[k], alts[0]...)
					}
					continue
				}
				var next [][]lexWord
				for _, o := range out {
					for _, a := range alts {
						next = append(next, append(append(make([]lexWord, 0, len(o)+len(a)), o...), a...))
					}
				}
				out = next
			default: // '|' or ')'
				if depth > 0 {
					return out, nil // the group reads it
				}
				i++ // outside any group: a separator
			}
		}
		return out, nil
	}
	return seq(0)
}

// phraseOf makes the node of one sequence of phrase words.
func (p *parser) phraseOf(t token, lexWords []lexWord) (Node, error) {
	if p.forms {
		lexWords = p.joinPhraseForms(lexWords)
	}
	var words []Keyword
	for _, w := range lexWords {
		if w.wildcard && w.text == "*" {
			// A lone '*' in a phrase stands for any one word.
			if t.phraseOp != 0 {
				return nil, errAt(w.pos, "'*' stands for any word only in a plain phrase, not with %c", t.phraseOp)
			}
			p.qpos++
			continue
		}
		if w.wildcard || w.regex || w.exact {
			n, err := p.word(w)
			if err != nil {
				return nil, err
			}
			if k, ok := n.(Keyword); ok {
				words = append(words, k)
			}
			continue
		}
		toks := p.tokens(w.text)
		base := p.qpos
		if len(toks) == 0 {
			p.skip(w.text)
			continue
		}
		var got []Keyword
		last := 0
		// A blended word stands for itself, as outside quotes: its parts
		// only take their positions.
		blended := slices.ContainsFunc(toks, func(tk qtok) bool { return tk.blended })
		for _, tk := range toks {
			last = max(last, tk.pos)
			if blended && !tk.blended {
				continue
			}
			k, err := p.keyword(Keyword{Text: w.text, Term: tk.term, Pos: w.pos, QPos: base + tk.pos})
			if err != nil {
				return nil, err
			}
			got = append(got, k)
		}
		p.qpos = base + last
		if len(got) > 0 {
			got[0].FieldStart = w.start
			got[len(got)-1].FieldEnd = w.end
		}
		words = append(words, got...)
	}
	switch {
	case len(words) == 0:
		return nil, nil
	case len(words) == 1:
		return words[0], nil
	case t.phraseOp == '~':
		return Proximity{Words: words, Distance: t.num, Pos: t.pos}, nil
	case t.phraseOp == '/':
		return Quorum{Words: words, Count: t.num, Fraction: t.frac, Pos: t.pos}, nil
	}
	return Phrase{Words: words, Pos: t.pos}, nil
}

// Offset is the byte offset in the query text where a node starts (0 for nil).
func Offset(n Node) int {
	switch n := n.(type) {
	case Keyword:
		return n.Pos
	case And:
		return n.Pos
	case Or:
		return n.Pos
	case Not:
		return n.Pos
	case Phrase:
		return n.Pos
	case Proximity:
		return n.Pos
	case Quorum:
		return n.Pos
	case Near:
		return n.Pos
	case NotNear:
		return n.Pos
	case Before:
		return n.Pos
	case Maybe:
		return n.Pos
	case Sentence:
		return n.Pos
	case Paragraph:
		return n.Pos
	case Zone:
		return n.Pos
	case Field:
		return n.Pos
	}
	return 0
}
