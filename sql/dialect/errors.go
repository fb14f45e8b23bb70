package dialect

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxNear is the most bytes of text a SyntaxError quotes.
const maxNear = 40

// Error reads "<Msg> at line L column C near '<Near>'", or, when the error is at the
// end of the statement, "<Msg> at line L column C (end of statement)", or just Msg
// when the position is unknown (Line 0). Near is quoted as is, like MySQL does.
func (e *SyntaxError) Error() string {
	switch {
	case e.Line == 0:
		return e.Msg
	case e.Near == "":
		return fmt.Sprintf("%s at line %d column %d (end of statement)", e.Msg, e.Line, e.Column)
	default:
		return fmt.Sprintf("%s at line %d column %d near '%s'", e.Msg, e.Line, e.Column, e.Near)
	}
}

// errorAt returns a SyntaxError at byte offset off of text.
func errorAt(text string, off int, format string, args ...any) *SyntaxError {
	off = max(0, min(off, len(text)))
	line := 1 + strings.Count(text[:off], "\n")
	column := off - (strings.LastIndexByte(text[:off], '\n') + 1) + 1
	return &SyntaxError{
		Msg:    fmt.Sprintf(format, args...),
		Near:   near(text[off:]),
		Line:   line,
		Column: column,
	}
}

// near returns at most maxNear bytes from the start of s, cut before a UTF-8
// sequence rather than inside it, each run of bytes that are not UTF-8 shown
// as U+FFFD (an error message is text a client shows and JSON carries).
func near(s string) string {
	if len(s) > maxNear {
		n := maxNear
		for n > maxNear-utf8.UTFMax && !utf8.RuneStart(s[n]) {
			n--
		}
		if !utf8.RuneStart(s[n]) {
			n = maxNear // not UTF-8 anyway
		}
		s = s[:n]
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}
