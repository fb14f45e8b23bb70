package sql

import (
	"strings"

	"github.com/glint-search/glint/sql/dialect"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A collation is how string values compare: in WHERE (=, <>, <, IN,
// BETWEEN ...), ORDER BY, GROUP BY and FACET keys, COUNT(DISTINCT),
// MIN and MAX. It is the session's @@collation_connection, as in the
// reference, whose default, libc_ci, folds the case of ASCII letters:
// WHERE tag = 'abc' finds 'Abc'. Full-text matching does not use it (the
// table's charset_table folds the words it indexes).
type collation uint8

const (
	// collLibcCI compares bytes with ASCII letters folded to lower case;
	// of two strings equal that far, the shorter comes first (C's
	// strncasecmp then the lengths, as the reference does it).
	collLibcCI collation = iota
	// collLibcCS compares bytes (strcoll in the C locale).
	collLibcCS
	// collUTF8CI compares UTF-8 text letter by letter with case and
	// accents folded (é, É and E are one letter; ß is S), as MySQL's
	// utf8_general_ci does for the letters of the Basic Multilingual
	// Plane; bytes that are not UTF-8 compare as themselves.
	collUTF8CI
	// collBinary compares bytes.
	collBinary
)

// collationNames are the names SET collation_connection takes: the
// reference's four, and MySQL's names as connectors send them, which
// compare as the reference's of the same kind (a name ending in _bin,
// or binary, compares bytes; in _cs, bytes; in _ci, as libc_ci, glint's
// default, which it reports under MySQL's name utf8mb4_general_ci).
func parseCollation(name string) (collation, bool) {
	switch n := strings.ToLower(name); {
	case n == "libc_ci":
		return collLibcCI, true
	case n == "libc_cs":
		return collLibcCS, true
	case n == "utf8_general_ci":
		return collUTF8CI, true
	case n == "binary" || strings.HasSuffix(n, "_bin"):
		return collBinary, true
	case !mysqlCharset(n):
		return 0, false
	case strings.HasSuffix(n, "_cs"):
		return collLibcCS, true
	case strings.HasSuffix(n, "_ci"):
		return collLibcCI, true
	}
	return 0, false
}

// mysqlCharset reports whether a collation name starts with a character
// set of MySQL's that holds the text glint stores (UTF-8, or its ASCII
// and Latin-1 subsets as connectors name them).
func mysqlCharset(n string) bool {
	for _, cs := range []string{"utf8mb4_", "utf8mb3_", "utf8_", "latin1_", "ascii_"} {
		if strings.HasPrefix(n, cs) {
			return true
		}
	}
	return false
}

// compare orders two strings under c.
func (c collation) compare(a, b string) int {
	switch c {
	case collLibcCI:
		n := min(len(a), len(b))
		for i := range n {
			x, y := a[i], b[i]
			if x == y {
				continue
			}
			if 'A' <= x && x <= 'Z' {
				x += 'a' - 'A'
			}
			if 'A' <= y && y <= 'Z' {
				y += 'a' - 'A'
			}
			if x != y {
				return int(x) - int(y)
			}
		}
		return len(a) - len(b)
	case collUTF8CI:
		for len(a) > 0 && len(b) > 0 {
			x, n := generalWeight(a)
			y, m := generalWeight(b)
			if x != y {
				return int(x) - int(y)
			}
			a, b = a[n:], b[m:]
		}
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// key is s as a map key under c: two strings are one key when they
// compare equal.
func (c collation) key(s string) string {
	switch c {
	case collLibcCI:
		for i := 0; i < len(s); i++ {
			if 'A' <= s[i] && s[i] <= 'Z' {
				return asciiLower(s, i)
			}
		}
	case collUTF8CI:
		var b strings.Builder
		for len(s) > 0 {
			w, n := generalWeight(s)
			if w < 0 {
				b.WriteByte(0xFF) // (never in UTF-8: apart from every letter)
				b.WriteByte(s[0])
			} else {
				b.WriteRune(w)
			}
			s = s[n:]
		}
		return b.String()
	}
	return s
}

// asciiLower is s with its ASCII letters from i on in lower case.
func asciiLower(s string, i int) string {
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// generalWeight is the weight of the first letter of s under
// utf8_general_ci, and its length in bytes: its base letter (the first
// rune of its canonical decomposition), in upper case. A byte that does
// not start a UTF-8 letter weighs as itself, below every letter but NUL.
func generalWeight(s string) (rune, int) {
	r, n := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && n <= 1:
		return rune(s[0]) - 0x100, 1 // (negative: not a letter, apart)
	case r < 0x80:
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return r, n
	case r == 'ß':
		return 'S', n
	case r > 0xFFFF:
		return 0xFFFD, n // (as MySQL's utf8 collations take them)
	}
	if d := norm.NFD.PropertiesString(s[:n]).Decomposition(); len(d) > 0 {
		if base, _ := utf8.DecodeRune(d); base != utf8.RuneError {
			r = base
		}
	}
	return unicode.ToUpper(r), n
}

// String is the reference's name of c.
func (c collation) String() string {
	switch c {
	case collLibcCS:
		return "libc_cs"
	case collUTF8CI:
		return "utf8_general_ci"
	case collBinary:
		return "binary"
	}
	return "libc_ci"
}

// collation is the session's @@collation_connection, or the collation
// of the statement being planned when it names one.
func (s *Session) collation() collation {
	if s == nil {
		return collLibcCI
	}
	if s.hasStmtColl {
		return s.stmtColl
	}
	v, _ := s.variable("collation_connection")
	name, _ := v.(string)
	c, _ := parseCollation(name)
	return c
}

// collationOption is the collation OPTION collation='name' gives, if any
// (a coordinator sends its own to its shards with it).
func collationOption(options []dialect.Setting) (c collation, given bool, err error) {
	for _, opt := range options {
		if opt.Name != "collation" {
			continue
		}
		name, ok := stringValue(opt.Value)
		if !ok {
			return 0, false, Errorf(CodeBadOption, "OPTION collation takes a collation's name, quoted: libc_ci, libc_cs, utf8_general_ci or binary")
		}
		if c, ok = parseCollation(name); !ok {
			return 0, false, Errorf(CodeUnknownCollation, "OPTION collation: unknown collation '%s' (glint takes libc_ci, libc_cs, utf8_general_ci and binary)", name)
		}
		given = true
	}
	return c, given, nil
}

// useCollation makes the statement being planned compare strings under
// the collation its OPTION names, if it names one, until the returned
// function runs.
func (s *Session) useCollation(options []dialect.Setting) (func(), error) {
	c, given, err := collationOption(options)
	if err != nil || !given {
		return func() {}, err
	}
	s.stmtColl, s.hasStmtColl = c, true
	return func() { s.hasStmtColl = false }, nil
}
