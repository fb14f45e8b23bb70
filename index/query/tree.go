package query

// The typed tree of a parsed full-text query (the syntax: docs/fulltext.md).
// The index evaluates it, and compiles it into the text matcher
// (index/match.go) that tells the highlighter which words to mark.
//
// Every node records Pos, the byte offset in the query text where it starts,
// for error messages. Words are normalized by the table's tokenizer: a Keyword
// holds the indexed form of one query word.

// Node is one node of a parsed full-text query.
type Node interface{ node() }

// Keyword is one query word.
type Keyword struct {
	Text  string // the word as written in the query (unescaped), for SHOW META and errors
	Term  string // the indexed form: what the tokenizer produced; for a wildcard, the folded pattern
	Pos   int    // byte offset of the word in the query text
	QPos  int    // 1-based position among the query's words (stopwords count), for phrases and ranking
	Exact bool   // =word: the exact (unstemmed) form; Term is then tokenize's exact term

	// Wildcard is set when Term is a pattern with '*' (any run of characters),
	// '?' (one character) or '%' (zero or one character) that the index
	// expands against its dictionary.
	Wildcard bool

	// Regex is set for REGEX(/pattern/): Term (and Text) is the pattern, a
	// regular expression (RE2 syntax) that the index matches against whole
	// words of its dictionary, as folded and not stemmed (CompileRegex).
	Regex bool

	FieldStart bool    // ^word: the word must be the first of its field
	FieldEnd   bool    // word$: the word must be the last of its field
	Boost      float64 // word^N; 0 means not given (1)
}

// And matches documents that match every child. Children that are Not
// exclude; an And needs at least one child that is not a Not.
type And struct {
	Children []Node
	Pos      int
}

// Or matches documents that match any child.
type Or struct {
	Children []Node
	Pos      int
}

// Not excludes the documents its child matches. It only appears as a child of
// And (the parser rejects a query that is only negative).
type Not struct {
	Child Node
	Pos   int
}

// Phrase matches the words adjacent and in order ("hello world"). Gaps left
// by stopwords count: Words[i].QPos - Words[0].QPos is the required offset of
// word i from the first.
type Phrase struct {
	Words []Keyword
	Pos   int
}

// Proximity matches when all words occur, in any order, within a window:
// "a b c"~N holds when some span of at most N+len(Words)-1 consecutive
// positions contains every word (Sphinx's rule; the evaluator documents the
// exact edge cases).
type Proximity struct {
	Words    []Keyword
	Distance int
	Pos      int
}

// Quorum matches when at least a number of the distinct words occur:
// "a b c d"/3 (Count) or "a b c d"/0.5 (Fraction of the words, rounded as
// the evaluator documents). Exactly one of Count and Fraction is set.
type Quorum struct {
	Words    []Keyword
	Count    int
	Fraction float64
	Pos      int
}

// Near matches when Left and Right occur within Distance words of each other,
// in any order (a NEAR/3 b). A chain a NEAR/3 b NEAR/4 c nests to the left.
// Operands are keywords, phrases and other Near nodes, and, as in Sphinx,
// any other positive expression: "a | b NEAR/2 c" is Near{Or{a, b}, c}
// (the parser's precedence, see the package documentation). Never a Not.
type Near struct {
	Left, Right Node
	Distance    int
	Pos         int
}

// NotNear matches when Left occurs and Right does not occur within Distance
// words of it (a NOTNEAR/3 b).
type NotNear struct {
	Left, Right Node
	Distance    int
	Pos         int
}

// Before matches when its children occur in this order (a << b << c).
// Children are any positive expressions (never a Not).
type Before struct {
	Children []Node
	Pos      int
}

// Maybe matches what Left matches; Right only adds to the weight (a MAYBE b).
type Maybe struct {
	Left, Right Node
	Pos         int
}

// Sentence matches when its children occur within one sentence (a SENTENCE b);
// Paragraph within one paragraph. Both need index_sp.
type Sentence struct {
	Children []Node
	Pos      int
}

// Paragraph: see Sentence.
type Paragraph struct {
	Children []Node
	Pos      int
}

// Zone limits Child to the text inside the named zones (ZONE:(h3,h4) ...);
// with Span set (ZONESPAN) every match must lie within one single zone span.
// Names ending in '*' are prefixes. Needs index_zones.
type Zone struct {
	Names []string
	Span  bool
	Child Node
	Pos   int
}

// Field limits Child to some fields: @title, @(title,body), @!title (every
// field but these: Negate), @* (all fields: Fields is nil and Negate false),
// @title[50] (MaxPos: only the first 50 positions of the field). A field
// limit applies to the rest of its group, so "@title a b @body c" is
// And{Field{[title], And{a, b}}, Field{[body], c}}. Field names are lower case.
type Field struct {
	Fields []string
	Negate bool
	MaxPos int // 0: no limit
	Child  Node
	Pos    int
}

func (Keyword) node()   {}
func (And) node()       {}
func (Or) node()        {}
func (Not) node()       {}
func (Phrase) node()    {}
func (Proximity) node() {}
func (Quorum) node()    {}
func (Near) node()      {}
func (NotNear) node()   {}
func (Before) node()    {}
func (Maybe) node()     {}
func (Sentence) node()  {}
func (Paragraph) node() {}
func (Zone) node()      {}
func (Field) node()     {}
