package htmlstrip

// The Tokenizer hands out attribute values decoded but not where they stand
// in the input, and the highlighter needs that. scanAttrs reads a start tag's
// raw bytes again, by the same rules as the Tokenizer (HTML's tokenization
// states "before attribute name" to "attribute value (unquoted)").

// attrSpan is one attribute of a raw start tag: the offsets of its name and
// of its value (without quotes) in the raw tag.
type attrSpan struct {
	k0, k1 int
	v0, v1 int
}

// scanAttrs calls fn for each attribute of the raw start tag t ("<tag ...>"),
// in order, duplicates included.
func scanAttrs(t string, fn func(a attrSpan)) {
	i := 1
	for i < len(t) && !isHTMLSpace(t[i]) && t[i] != '/' && t[i] != '>' {
		i++
	}
	for {
		i = skipHTMLSpaces(t, i)
		if i >= len(t) || t[i] == '>' {
			return
		}
		if t[i] == '/' {
			i++ // a stray or self-closing solidus
			continue
		}
		// The name: its first byte may be '=', later ones end it.
		a := attrSpan{k0: i}
		i++
		for i < len(t) && !isHTMLSpace(t[i]) && t[i] != '/' && t[i] != '>' && t[i] != '=' {
			i++
		}
		a.k1 = i
		a.v0, a.v1 = i, i
		i = skipHTMLSpaces(t, i)
		if i >= len(t) || t[i] != '=' {
			fn(a) // no value; a '/' here is consumed by the loop
			continue
		}
		i = skipHTMLSpaces(t, i+1)
		switch {
		case i >= len(t) || t[i] == '>':
			a.v0, a.v1 = i, i
		case t[i] == '"' || t[i] == '\'':
			q := t[i]
			i++
			a.v0 = i
			for i < len(t) && t[i] != q {
				i++
			}
			a.v1 = i
			if i < len(t) {
				i++ // the closing quote
			}
		default:
			a.v0 = i
			for i < len(t) && !isHTMLSpace(t[i]) && t[i] != '>' {
				i++
			}
			a.v1 = i
		}
		fn(a)
	}
}

// isHTMLSpace reports whether c is whitespace to the HTML tokenizer.
func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

func skipHTMLSpaces(s string, i int) int {
	for i < len(s) && isHTMLSpace(s[i]) {
		i++
	}
	return i
}

// equalFoldASCII reports whether a lower-cased ASCII-wise equals the lower-case b.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}
