package htmlstrip

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// entityAt decodes the character reference at the start of s (s[0] == '&')
// the way browsers do, and returns the decoded text and the number of bytes
// of s it replaces; n == 0 if s does not start with a character reference.
// attr selects the rules for attribute values: there, a name that is only a
// prefix of a legacy entity ("&notit;") and a name without ';' followed by
// '=' ("&amp=") are left alone.
//
// The decoding itself is golang.org/x/net/html's, so that it agrees with its
// Tokenizer; this function only finds out how many bytes one reference spans.
// s must be cut where the text (or attribute value) ends.
func entityAt(s string, attr bool) (dec string, n int) {
	if len(s) < 2 {
		return "", 0
	}
	if s[1] == '#' {
		// "&#" digits [";"] or "&#x" hex digits [";"]
		i := 2
		hex := i < len(s) && (s[i] == 'x' || s[i] == 'X')
		if hex {
			i++
		}
		d0 := i
		for i < len(s) && (isDigit(s[i]) || hex && isHexLetter(s[i])) {
			i++
		}
		if i == d0 {
			return "", 0
		}
		if i < len(s) && s[i] == ';' {
			i++
		}
		return html.UnescapeString(s[:i]), i
	}
	// "&" name [";"]: the name is the longest run of ASCII letters and digits.
	i := 1
	for i < len(s) && (isLetter(s[i]) || isDigit(s[i])) {
		i++
	}
	if i == 1 {
		return "", 0
	}
	semi := i < len(s) && s[i] == ';'
	if semi {
		i++
	}
	if attr && !semi && i < len(s) && s[i] == '=' {
		return "", 0
	}
	cand := s[:i]
	dec = html.UnescapeString(cand)
	if dec == cand {
		return "", 0
	}
	// Either the whole name is an entity (its value is one or two runes), or
	// only a prefix of it is a legacy entity without ';' (its value is one
	// rune) and the rest of the name follows the value unchanged. Values of
	// whole-name entities never end with the last byte of their name, so a
	// decoded text that ends with the rest of the name was a prefix match.
	_, l := utf8.DecodeRuneInString(dec)
	if tail := dec[l:]; tail != "" && strings.HasSuffix(cand, tail) {
		if attr {
			return "", 0
		}
		return dec[:l], i - len(tail)
	}
	return dec, i
}

func isHexLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'f' }
