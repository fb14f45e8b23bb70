package index

import (
	"fmt"
	"math"
	"strings"

	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/index/tokenize"
)

// The operator nodes of a compiled query (plan.root). Field limits and zones
// are pushed down into the leaves; every other query operator has a node.
type node interface{ exactBitmap() bool }

// leaf is one keyword: its leafTerm and where it may occur.
type leaf struct {
	lt     int // index in plan.leaves
	kw     query.Keyword
	fields fieldSet
	maxPos uint32      // 0: anywhere in the field
	zone   *zoneFilter // nil: anywhere
	neg    bool        // under NOT or on the right of NOTNEAR: never ranks
	idx    int         // index in plan.keywords

	unrestricted bool // every field, no position limit, start, end or zone: its positions are the raw ones
}

type andNode struct {
	pos []node
	neg []node
}

type orNode struct{ children []node }

// phraseNode: words[i] at offs[i] positions after words[0].
type phraseNode struct {
	words []*leaf
	offs  []uint32
}

type proximityNode struct {
	words []*leaf
	dist  int
}

type quorumNode struct {
	words []*leaf // distinct terms
	need  int
}

type nearNode struct {
	left, right node
	dist        int
	not         bool // NOTNEAR
}

type beforeNode struct{ children []node }

type maybeNode struct{ left, right node }

// unitNode is SENTENCE or PARAGRAPH: the children within one unit, whose
// boundaries are the occurrences of leafTerm boundary.
type unitNode struct {
	children []node
	boundary int
}

// zoneSpanNode matches when child matches inside one single span of the zones.
type zoneSpanNode struct {
	zone  *zoneFilter
	child node
}

func (l *leaf) exactBitmap() bool {
	return l.maxPos == 0 && l.zone == nil && !l.kw.FieldStart && !l.kw.FieldEnd
}
func (n *andNode) exactBitmap() bool {
	for _, c := range n.pos {
		if !c.exactBitmap() {
			return false
		}
	}
	for _, c := range n.neg {
		if !c.exactBitmap() {
			return false
		}
	}
	return true
}
func (n *orNode) exactBitmap() bool {
	for _, c := range n.children {
		if !c.exactBitmap() {
			return false
		}
	}
	return true
}
func (n *phraseNode) exactBitmap() bool    { return false }
func (n *proximityNode) exactBitmap() bool { return false }
func (n *quorumNode) exactBitmap() bool    { return false }
func (n *nearNode) exactBitmap() bool      { return false }
func (n *beforeNode) exactBitmap() bool    { return false }
func (n *maybeNode) exactBitmap() bool     { return n.left.exactBitmap() }
func (n *unitNode) exactBitmap() bool      { return false }
func (n *zoneSpanNode) exactBitmap() bool  { return false }

// fieldSet is a set of indexed field numbers (a posting key has one byte for
// the field, so there are at most 256).
type fieldSet [4]uint64

func (s *fieldSet) add(f int)     { s[f>>6] |= 1 << (f & 63) }
func (s fieldSet) has(f int) bool { return s[f>>6]&(1<<(f&63)) != 0 }
func allFields(n int) (s fieldSet) {
	for f := 0; f < n; f++ {
		s.add(f)
	}
	return s
}

// zoneFilter is the zones of a ZONE or ZONESPAN operator: the leafTerms of
// the open and close marks of each zone name.
type zoneFilter struct {
	names       []string
	open, close []int
}

// scope is what the enclosing operators impose on the keywords below.
type scope struct {
	fields fieldSet
	maxPos uint32
	zone   *zoneFilter
	neg    bool
	depth  int
}

// maxPlanDepth bounds the nesting the compiler follows (the parser has its own,
// lower limit; this one guards trees built by hand).
const maxPlanDepth = 1000

// compile turns a parsed query into a plan for this snapshot.
func (s *Snapshot) compile(q query.Node) (*plan, error) {
	p := &plan{sentence: -1, paragraph: -1}
	if q == nil {
		return p, nil
	}
	c := compiler{s: s, p: p, cfg: s.t.tok.Config()}
	root, err := c.node(q, scope{fields: allFields(c.nfields())})
	if err != nil {
		return nil, err
	}
	p.root = root
	p.exact = root != nil && root.exactBitmap()
	return p, nil
}

type compiler struct {
	s        *Snapshot
	p        *plan
	cfg      tokenize.Config
	anyField bool // field limits are ignored (text that is no field of the table)
	texts    bool // the plan matches texts (TextMatcher), never the dictionary
}

// node compiles n; a nil node (and nil error) is a part of the query that
// asks for nothing (a wildcard that reduced to a stopword) and is left out.
func (c *compiler) node(n query.Node, sc scope) (node, error) {
	if sc.depth++; sc.depth > maxPlanDepth {
		return nil, &QueryError{Pos: query.Offset(n), Msg: fmt.Sprintf("query is nested more than %d levels deep", maxPlanDepth)}
	}
	switch n := n.(type) {
	case query.Keyword:
		l, err := c.leaf(n, sc)
		if l == nil || err != nil {
			return nil, err
		}
		return l, nil
	case query.And:
		a := &andNode{}
		for _, ch := range n.Children {
			if not, ok := ch.(query.Not); ok {
				sub := sc
				sub.neg = true
				x, err := c.node(not.Child, sub)
				if err != nil {
					return nil, err
				}
				if x != nil {
					a.neg = append(a.neg, x)
				}
				continue
			}
			x, err := c.node(ch, sc)
			if err != nil {
				return nil, err
			}
			if x != nil {
				a.pos = append(a.pos, x)
			}
		}
		if len(a.pos) == 0 {
			if len(a.neg) > 0 {
				return nil, &QueryError{Pos: n.Pos, Msg: "query is only negative: NOT needs a word to exclude from"}
			}
			return nil, nil
		}
		if len(a.pos) == 1 && len(a.neg) == 0 {
			return a.pos[0], nil
		}
		return a, nil
	case query.Or:
		o := &orNode{}
		for _, ch := range n.Children {
			x, err := c.node(ch, sc)
			if err != nil {
				return nil, err
			}
			if x != nil {
				o.children = append(o.children, x)
			}
		}
		switch len(o.children) {
		case 0:
			return nil, nil
		case 1:
			return o.children[0], nil
		}
		return o, nil
	case query.Not:
		return nil, &QueryError{Pos: n.Pos, Msg: "query is only negative: NOT needs a word to exclude from"}
	case query.Phrase:
		ph := &phraseNode{}
		first := -1
		for _, w := range n.Words {
			l, err := c.leaf(w, sc)
			if err != nil {
				return nil, err
			}
			if l == nil {
				continue
			}
			if first < 0 {
				first = w.QPos
			}
			ph.words = append(ph.words, l)
			ph.offs = append(ph.offs, uint32(max(0, w.QPos-first)))
		}
		switch len(ph.words) {
		case 0:
			return nil, nil
		case 1:
			return ph.words[0], nil
		}
		return ph, nil
	case query.Proximity:
		words, err := c.leaves(n.Words, sc, false)
		if len(words) == 0 || err != nil {
			return nil, err
		}
		if len(words) == 1 {
			return words[0], nil
		}
		return &proximityNode{words: words, dist: n.Distance}, nil
	case query.Quorum:
		words, err := c.leaves(n.Words, sc, true)
		if len(words) == 0 || err != nil {
			return nil, err
		}
		need := n.Count
		if n.Count == 0 {
			need = quorumFraction(len(words), n.Fraction)
		}
		need = max(1, min(need, len(words)))
		if need == 1 && len(words) == 1 {
			return words[0], nil
		}
		return &quorumNode{words: words, need: need}, nil
	case query.Near:
		return c.near(n.Left, n.Right, n.Distance, false, sc)
	case query.NotNear:
		return c.near(n.Left, n.Right, n.Distance, true, sc)
	case query.Before:
		b := &beforeNode{}
		for _, ch := range n.Children {
			x, err := c.node(ch, sc)
			if err != nil {
				return nil, err
			}
			if x != nil {
				b.children = append(b.children, x)
			}
		}
		switch len(b.children) {
		case 0:
			return nil, nil
		case 1:
			return b.children[0], nil
		}
		return b, nil
	case query.Maybe:
		l, err := c.node(n.Left, sc)
		if err != nil {
			return nil, err
		}
		r, err := c.node(n.Right, sc)
		if err != nil {
			return nil, err
		}
		if l == nil || r == nil {
			return l, nil
		}
		return &maybeNode{left: l, right: r}, nil
	case query.Sentence:
		c.p.units = max(c.p.units, unitSentence)
		return c.unit(n.Children, tokenize.SentenceTerm, "SENTENCE", n.Pos, sc)
	case query.Paragraph:
		c.p.units = max(c.p.units, unitParagraph)
		return c.unit(n.Children, tokenize.ParagraphTerm, "PARAGRAPH", n.Pos, sc)
	case query.Zone:
		c.p.units = max(c.p.units, unitZone)
		z, err := c.zone(n)
		if err != nil {
			return nil, err
		}
		if n.Span {
			ch, err := c.node(n.Child, sc)
			if ch == nil || err != nil {
				return nil, err
			}
			return &zoneSpanNode{zone: z, child: ch}, nil
		}
		sub := sc
		sub.zone = z
		return c.node(n.Child, sub)
	case query.Field:
		if c.anyField {
			// A text that is no field of the table ignores which fields a
			// limit names, but not how far into the text it reaches: in
			// @body[3] word, only the first three positions count.
			sub := sc
			sub.maxPos = uint32(max(n.MaxPos, 0))
			return c.node(n.Child, sub)
		}
		sub := sc
		fs, err := c.fields(n)
		if err != nil {
			return nil, err
		}
		sub.fields = fs
		sub.maxPos = 0
		if n.MaxPos > 0 {
			sub.maxPos = uint32(n.MaxPos)
		}
		return c.node(n.Child, sub)
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("index: query node %T is not supported", n)
}

// quorumFraction is the number of words a fractional quorum needs: the
// fraction of the words, rounded half up, and at least one.
func quorumFraction(words int, fraction float64) int {
	return max(1, int(math.Floor(float64(words)*fraction+0.5)))
}

func (c *compiler) leaves(words []query.Keyword, sc scope, distinct bool) ([]*leaf, error) {
	var out []*leaf
	for _, w := range words {
		l, err := c.leaf(w, sc)
		if err != nil {
			return nil, err
		}
		if l == nil {
			continue
		}
		if distinct && containsLeafTerm(out, l.lt) {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

func containsLeafTerm(ls []*leaf, lt int) bool {
	for _, l := range ls {
		if l.lt == lt {
			return true
		}
	}
	return false
}

func (c *compiler) near(left, right query.Node, dist int, not bool, sc scope) (node, error) {
	l, err := c.node(left, sc)
	if err != nil {
		return nil, err
	}
	rsc := sc
	if not {
		rsc.neg = true
	}
	r, err := c.node(right, rsc)
	if err != nil {
		return nil, err
	}
	if l == nil || r == nil {
		if not {
			return l, nil
		}
		if l == nil {
			return r, nil
		}
		return l, nil
	}
	return &nearNode{left: l, right: r, dist: dist, not: not}, nil
}

func (c *compiler) unit(children []query.Node, term, op string, pos int, sc scope) (node, error) {
	if !c.cfg.IndexSP {
		return nil, &QueryError{Pos: pos, Msg: fmt.Sprintf("%s needs index_sp=1, which table %s does not have", op, c.s.schema.Name)}
	}
	u := &unitNode{boundary: c.p.addLeaf(leafTerm{term: term})}
	for _, ch := range children {
		x, err := c.node(ch, sc)
		if err != nil {
			return nil, err
		}
		if x != nil {
			u.children = append(u.children, x)
		}
	}
	switch len(u.children) {
	case 0:
		return nil, nil
	case 1:
		return u.children[0], nil
	}
	return u, nil
}

func (c *compiler) zone(n query.Zone) (*zoneFilter, error) {
	op := "ZONE"
	if n.Span {
		op = "ZONESPAN"
	}
	if len(c.cfg.IndexZones) == 0 {
		return nil, &QueryError{Pos: n.Pos, Msg: fmt.Sprintf("%s needs index_zones, which table %s does not have", op, c.s.schema.Name)}
	}
	z := &zoneFilter{names: n.Names}
	for _, name := range n.Names {
		if !zoneIndexed(c.cfg.IndexZones, name) {
			return nil, &QueryError{Pos: n.Pos, Msg: fmt.Sprintf("%s: zone '%s' is not in index_zones of table %s (%s)",
				op, name, c.s.schema.Name, strings.Join(c.cfg.IndexZones, ","))}
		}
		prefix, isPrefix := strings.CutSuffix(name, "*")
		for i, term := range []string{tokenize.ZoneOpenTerm(prefix), tokenize.ZoneCloseTerm(prefix)} {
			lt := leafTerm{term: term}
			if isPrefix {
				lt = leafTerm{term: term + "*", wildcard: true, prefix: term, pattern: glob([]rune(term + "*"))}
			}
			idx := c.p.addLeaf(lt)
			if i == 0 {
				z.open = append(z.open, idx)
			} else {
				z.close = append(z.close, idx)
			}
		}
	}
	return z, nil
}

// zoneIndexed reports whether the zone name (possibly a prefix with '*') is
// covered by the index_zones list.
func zoneIndexed(zones []string, name string) bool {
	bare := strings.TrimSuffix(name, "*")
	for _, z := range zones {
		if p, ok := strings.CutSuffix(z, "*"); ok {
			if strings.HasPrefix(bare, p) {
				return true
			}
		} else if z == name || strings.HasSuffix(name, "*") && strings.HasPrefix(z, bare) {
			return true
		}
	}
	return false
}

func (c *compiler) fields(n query.Field) (fieldSet, error) {
	l := c.s.layout
	if n.Fields == nil && !n.Negate {
		return allFields(len(l.indexed)), nil
	}
	var named fieldSet
	for _, name := range n.Fields {
		f := -1
		for i, col := range l.indexed {
			if strings.EqualFold(c.s.schema.Columns[col].Name, name) {
				f = i
			}
		}
		if f < 0 {
			var names []string
			for _, col := range l.indexed {
				names = append(names, c.s.schema.Columns[col].Name)
			}
			return named, &QueryError{Pos: n.Pos, Msg: fmt.Sprintf("unknown field '%s' in field limit: the full-text fields of %s are %s",
				name, c.s.schema.Name, strings.Join(names, ", "))}
		}
		named.add(f)
	}
	if !n.Negate {
		return named, nil
	}
	var out fieldSet
	for f := range l.indexed {
		if !named.has(f) {
			out.add(f)
		}
	}
	return out, nil
}

// leaf compiles one keyword; nil when it asks for nothing.
func (c *compiler) leaf(kw query.Keyword, sc scope) (*leaf, error) {
	lt := leafTerm{term: kw.Term, text: kw.Text, stat: true}
	if lt.text == "" {
		lt.text = kw.Term
	}
	if kw.Exact && !strings.HasPrefix(lt.text, "=") {
		lt.text = "=" + lt.text // (SHOW META tells it as written: =running)
	}
	if kw.Regex {
		if err := c.regexLeaf(&lt, kw); err != nil {
			return nil, err
		}
	}
	if kw.Wildcard {
		ok, why := c.wildcardSupported(kw.Term)
		if ok {
			pattern := kw.Term
			if c.cfg.WildcardsOverExact() {
				pattern = tokenize.ExactTerm(pattern) // (checki* finds checking, whose stem is check)
			}
			lt.wildcard = true
			lt.term = pattern
			lt.pattern = glob([]rune(pattern))
			lt.prefix = pattern[:strings.IndexAny(pattern, "*?%")]
		} else {
			word := strings.Map(func(r rune) rune {
				if isWildcardRune(r) {
					return -1
				}
				return r
			}, kw.Text)
			var it tokenize.Iter
			it.Reset(c.s.t.tok.Query(), word)
			term := ""
			for it.Next() {
				if t := string(it.Term()); !tokenize.IsReserved(t) {
					term = t
					break
				}
			}
			if term == "" {
				c.p.warnings = append(c.p.warnings, fmt.Sprintf("wildcard '%s' ignored: %s, and '%s' is not a searchable word", kw.Text, why, word))
				return nil, nil
			}
			c.p.warnings = append(c.p.warnings, fmt.Sprintf("wildcard '%s' searched as the word '%s': %s", kw.Text, term, why))
			lt.term = term
		}
	}
	if lt.term == "" {
		return nil, nil
	}
	idx := c.p.addLeaf(lt)
	l := &leaf{lt: idx, kw: kw, fields: sc.fields, maxPos: sc.maxPos, zone: sc.zone, neg: sc.neg, idx: len(c.p.keywords)}
	l.unrestricted = l.exactBitmap() && l.fields == allFields(c.nfields())
	c.p.keywords = append(c.p.keywords, l)
	return l, nil
}

// regexLeaf makes lt the expansion of REGEX(/pattern/): the terms of the
// dictionary its expression matches whole, over the words as written where
// the table indexes them beside their stems (as its wildcards do). As for
// wildcards, a search needs min_prefix_len or min_infix_len (the reference
// then matches nothing, without a word of why); matching texts (CALL
// SNIPPETS, highlighting) tests their words and needs neither, as the
// reference's snippets do.
func (c *compiler) regexLeaf(lt *leafTerm, kw query.Keyword) error {
	if c.cfg.MinPrefixLen == 0 && c.cfg.MinInfixLen == 0 && !c.texts {
		return &QueryError{Pos: kw.Pos, Msg: fmt.Sprintf("REGEX(/%s/) needs min_prefix_len or min_infix_len: table %s has neither", kw.Term, c.s.schema.Name)}
	}
	re, err := query.CompileRegex(kw.Term)
	if err != nil {
		return &QueryError{Pos: kw.Pos, Msg: fmt.Sprintf("REGEX(/%s/): %v", kw.Term, err)}
	}
	exact := c.cfg.WildcardsOverExact()
	prefix, _ := re.LiteralPrefix()
	lt.wildcard, lt.pattern, lt.term, lt.prefix = true, regexTerm{re: re, exact: exact}, kw.Term, prefix
	if exact {
		lt.term, lt.prefix = tokenize.ExactTerm(kw.Term), tokenize.ExactTerm(prefix)
	}
	return nil
}

// wildcardSupported tells whether the table expands the folded pattern, and
// if not, why not. With min_infix_len a pattern needs that many characters
// that are not wildcards; with min_prefix_len (only) it must start with at
// least that many.
func (c *compiler) wildcardSupported(pattern string) (bool, string) {
	name := c.s.schema.Name
	longest, run, lead := 0, 0, -1
	for _, r := range pattern {
		if isWildcardRune(r) {
			if lead < 0 {
				lead = run
			}
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	if lead < 0 {
		lead = run
	}
	switch {
	case c.cfg.MinInfixLen > 0:
		if longest < c.cfg.MinInfixLen {
			return false, fmt.Sprintf("it has no run of min_infix_len=%d characters without wildcards", c.cfg.MinInfixLen)
		}
		return true, ""
	case c.cfg.MinPrefixLen > 0:
		if lead == 0 {
			return false, fmt.Sprintf("table %s has min_prefix_len but not min_infix_len, so a wildcard can only end a word", name)
		}
		if lead < c.cfg.MinPrefixLen {
			return false, fmt.Sprintf("its prefix is shorter than min_prefix_len=%d", c.cfg.MinPrefixLen)
		}
		return true, ""
	}
	return false, fmt.Sprintf("table %s has neither min_prefix_len nor min_infix_len", name)
}

// nfields is the number of fields a plan's field sets range over.
func (c *compiler) nfields() int {
	if c.anyField {
		return 1
	}
	return len(c.s.layout.indexed)
}
