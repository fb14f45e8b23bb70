package query

import (
	"strconv"
	"strings"
)

// String prints a tree in a compact canonical form, for tests, debugging and
// error messages: AND(a, OR(b, c), NOT(d)), PHRASE(a b), PROXIMITY/3(a b),
// QUORUM/2(a b c), NEAR/3(a, b), NOTNEAR/3(a, b), BEFORE(a, b),
// MAYBE(a, b), SENTENCE(a, b), PARAGRAPH(a, b), ZONE(h1,h2; a),
// ZONESPAN(h1; a), FIELD(title; a), FIELD(!title[50]; a), FIELD(*; a).
// A keyword prints its term with its decorations: =exact (the term of an
// exact form is printed without its mark), ^start, end$, pattern* (a
// wildcard, marked ~ when its term differs from the text), ^N boost, and
// @N for its query position.
func String(n Node) string {
	var b strings.Builder
	format(&b, n)
	return b.String()
}

func format(b *strings.Builder, n Node) {
	list := func(name string, ns []Node) {
		b.WriteString(name + "(")
		for i, c := range ns {
			if i > 0 {
				b.WriteString(", ")
			}
			format(b, c)
		}
		b.WriteString(")")
	}
	words := func(name string, ws []Keyword) {
		b.WriteString(name + "(")
		for i, w := range ws {
			if i > 0 {
				b.WriteString(" ")
			}
			format(b, w)
		}
		b.WriteString(")")
	}
	switch n := n.(type) {
	case nil:
		b.WriteString("<nothing>")
	case Keyword:
		if n.Exact {
			b.WriteString("=")
		}
		if n.FieldStart {
			b.WriteString("^")
		}
		term := n.Term
		if len(term) > 0 && term[0] == '\x01' {
			term = term[1:]
		}
		if n.Regex {
			term = "REGEX(/" + term + "/)"
		}
		b.WriteString(term)
		if n.FieldEnd {
			b.WriteString("$")
		}
		if n.Boost != 0 {
			b.WriteString("^" + strconv.FormatFloat(n.Boost, 'g', -1, 64))
		}
		b.WriteString("@" + strconv.Itoa(n.QPos))
	case And:
		list("AND", n.Children)
	case Or:
		list("OR", n.Children)
	case Not:
		list("NOT", []Node{n.Child})
	case Phrase:
		words("PHRASE", n.Words)
	case Proximity:
		words("PROXIMITY/"+strconv.Itoa(n.Distance), n.Words)
	case Quorum:
		if n.Count > 0 {
			words("QUORUM/"+strconv.Itoa(n.Count), n.Words)
		} else {
			words("QUORUM/"+strconv.FormatFloat(n.Fraction, 'g', -1, 64), n.Words)
		}
	case Near:
		list("NEAR/"+strconv.Itoa(n.Distance), []Node{n.Left, n.Right})
	case NotNear:
		list("NOTNEAR/"+strconv.Itoa(n.Distance), []Node{n.Left, n.Right})
	case Before:
		list("BEFORE", n.Children)
	case Maybe:
		list("MAYBE", []Node{n.Left, n.Right})
	case Sentence:
		list("SENTENCE", n.Children)
	case Paragraph:
		list("PARAGRAPH", n.Children)
	case Zone:
		name := "ZONE"
		if n.Span {
			name = "ZONESPAN"
		}
		b.WriteString(name + "(" + strings.Join(n.Names, ",") + "; ")
		format(b, n.Child)
		b.WriteString(")")
	case Field:
		b.WriteString("FIELD(")
		switch {
		case n.Fields == nil && !n.Negate:
			b.WriteString("*")
		case n.Negate:
			b.WriteString("!" + strings.Join(n.Fields, ","))
		default:
			b.WriteString(strings.Join(n.Fields, ","))
		}
		if n.MaxPos > 0 {
			b.WriteString("[" + strconv.Itoa(n.MaxPos) + "]")
		}
		b.WriteString("; ")
		format(b, n.Child)
		b.WriteString(")")
	default:
		b.WriteString("?")
	}
}
