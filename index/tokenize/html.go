package tokenize

// What the tokenizer needs of an HTML stripper (html_strip): the text to
// tokenize, the marks where paragraphs and zones start and end, and the way
// back from a range of that text to the original.

// markKind is the kind of an HTML mark.
type markKind uint8

const (
	markParagraph markKind = iota // a block element starts or ends (index_sp)
	markZoneOpen                  // a zone element opens (index_zones)
	markZoneClose                 // a zone element closes
)

// strippedDoc is one HTML field after stripping (an htmlstrip.Result).
type strippedDoc interface {
	// text is the text to tokenize.
	text() string
	// numMarks is the number of marks; mark returns mark i: its byte offset
	// in text (non-decreasing with i), its kind and its zone name (lower case).
	numMarks() int
	mark(i int) (at int, kind markKind, name string)
	// orig maps a byte range of text to the range of the original input that covers it.
	orig(start, end int) (int, int)
}

// htmlStripper strips HTML fields (an htmlstrip.Stripper); it is immutable
// and safe for concurrent use.
type htmlStripper interface {
	strip(input string) strippedDoc
}
