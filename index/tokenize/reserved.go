package tokenize

// Reserved terms. Besides words, the tokenizer emits terms that record where
// exact forms, sentences, paragraphs and zones are, so that the index can
// answer =word, SENTENCE, PARAGRAPH and ZONE with the same posting lists as
// words. They start with a control byte, which no word term can contain
// (charset_table cannot map control characters), and share positions with
// the words around them (they do not advance positions).
const (
	exactMark     = '\x01'
	boundaryMark  = '\x02'
	zoneOpenMark  = '\x03'
	zoneCloseMark = '\x04'
)

const (
	// SentenceTerm is emitted at the position of the first word of every
	// sentence but the first of a field (index_sp).
	SentenceTerm = "\x02s"
	// ParagraphTerm is emitted at the position of the first word of every
	// paragraph but the first of a field (index_sp).
	ParagraphTerm = "\x02p"
	// StopwordTerm stands for a stopword at its position and range, given
	// only by an Iter asked to (KeepStopwords): a highlighter counts
	// stopwords as words, and nothing indexes them.
	StopwordTerm = "\x02w"
)

// ZoneOpenTerm is emitted at the position of the first word inside an
// element of zone name (index_zones); ZoneCloseTerm at the position of the
// last word inside it. An element without words gives a close position one
// less than its open position.
func ZoneOpenTerm(name string) string { return string(zoneOpenMark) + name }

// ZoneCloseTerm: see ZoneOpenTerm.
func ZoneCloseTerm(name string) string { return string(zoneCloseMark) + name }

// ExactTerm is the term of a word as written (folded, not stemmed), which
// index_exact_words (and WildcardForms) index beside its stem.
func ExactTerm(folded string) string { return string(exactMark) + folded }

// WildcardsOverExact reports whether c's wildcards expand over the words as
// written (ExactTerm forms) rather than over the stems: with morphology,
// when those forms are indexed.
func (c *Config) WildcardsOverExact() bool {
	return len(c.Morphology) > 0 && (c.IndexExactWords || c.WildcardForms)
}

// IsReserved reports whether term is a reserved term rather than a word.
func IsReserved(term string) bool { return term != "" && term[0] <= zoneCloseMark }
