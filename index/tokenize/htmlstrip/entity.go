package htmlstrip

import "unicode/utf8"

// entityAt decodes the character reference at the start of s (s[0] == '&')
// as the reference's HTML stripper decodes text, and returns the decoded
// text and the number of bytes of s it replaces; n == 0 if s does not start
// with a reference (the '&' is then text):
//
//   - "&name;" with a name of the HTML 4.01 set (html4Entities, and "apos"),
//     case as written, ';' required; "&nbsp;" is a plain space;
//   - "&#" decimal digits or "&#x" hex digits, then ';': the code point (a
//     surrogate reads as U+FFFD); without the ';', or for a code under 32,
//     "&#" and its digits are dropped (dec is "", n their length).
//
// Anything else ("&amp" without ';', "&bogus;", "&#x;") leaves the '&' as
// text.
func entityAt(s string) (dec string, n int) {
	if len(s) < 2 {
		return "", 0
	}
	if s[1] == '#' {
		i := 2
		hex := i < len(s) && (s[i] == 'x' || s[i] == 'X')
		if hex {
			i++
		}
		var code uint32 // (wrapping as the reference's does, then cut to Unicode's range)
		base := uint32(10)
		if hex {
			base = 16
		}
		for ; i < len(s); i++ {
			c := s[i]
			switch {
			case isDigit(c):
				code = code*base + uint32(c-'0')
				continue
			case hex && isHexLetter(c):
				code = code*base + uint32(c|0x20-'a') + 10
				continue
			}
			break
		}
		code %= 0x110000
		if code <= 0x1f || i >= len(s) || s[i] != ';' {
			return "", i // (dropped)
		}
		r := rune(code)
		if !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return string(r), i + 1
	}
	if !isLetter(s[1]) {
		return "", 0
	}
	// The name runs to ';', at most 8 bytes long (the longest of the set).
	end := 1
	for end < len(s) && s[end] != ';' && end <= 8 {
		end++
	}
	if end >= len(s) || s[end] != ';' {
		return "", 0
	}
	name := s[1:end]
	code, ok := html4Entities[name]
	switch {
	case name == "nbsp":
		code = ' '
	case name == "apos":
		code, ok = '\'', true
	case !ok:
		return "", 0
	}
	return string(code), end + 1
}

func isHexLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'f' }
