package htmlstrip

import (
	"errors"
	"fmt"
	"strings"
)

// Options come from the table settings. The zero value (or a nil *Options)
// strips tags and decodes entities, and nothing more.
type Options struct {
	// RemoveElements (html_remove_elements) are lower-case tag names whose
	// whole content is dropped, e.g. style, script.
	RemoveElements []string
	// IndexAttrs (html_index_attrs) maps a lower-case tag name to the
	// lower-case names of the attributes whose values are kept as text.
	IndexAttrs map[string][]string
	// Zones (index_zones) are lower-case tag names; a trailing '*' makes a
	// prefix (h* is h1..h6, but also hr, header, ...).
	Zones []string
	// UnitTags asks for Result.UnitTags (highlighting with
	// snippet_boundary).
	UnitTags bool
	// ZonesNoParagraph reads a zone's tags as the reference's snippets
	// read them: they end no paragraph, and a Paragraph mark they touch
	// (with only white space between) goes (in "<p><z>" and "</z><p>" the
	// zone takes the paragraph's place). Without it a zone's tags end a
	// paragraph, as the index (and Sphinx's search) reads them.
	ZonesNoParagraph bool
	// KeepEntities leaves character references as they are written
	// ("&lt;" stays "&lt;"): tags are stripped, text is not decoded. The
	// reference shows stripped text so in snippets of
	// html_strip_mode=strip.
	KeepEntities bool
}

// ErrSyntax is what every error of the Parse functions wraps.
var ErrSyntax = errors.New("htmlstrip: syntax error")

// SyntaxError is a malformed setting value: Setting names the setting, Offset
// is the byte offset in Value where the problem was found.
type SyntaxError struct {
	Setting string
	Value   string
	Offset  int
	Msg     string
}

func (e *SyntaxError) Error() string {
	near := e.Value[min(e.Offset, len(e.Value)):]
	if len(near) > 20 {
		near = near[:20] + "..."
	}
	if near == "" {
		return fmt.Sprintf("htmlstrip: %s: %s at end of %q", e.Setting, e.Msg, e.Value)
	}
	return fmt.Sprintf("htmlstrip: %s: %s at offset %d near %q", e.Setting, e.Msg, e.Offset, near)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// ParseRemoveElements parses html_remove_elements: tag names separated by
// commas, semicolons or spaces ("style, script"). Names are lower-cased and
// deduplicated; an empty value gives nil.
func ParseRemoveElements(s string) ([]string, error) {
	const setting = "html_remove_elements"
	var out []string
	i := 0
	for i < len(s) {
		c := s[i]
		if c == ',' || c == ';' || isSpace(c) {
			i++
			continue
		}
		n := nameLen(s[i:])
		if n == 0 {
			return nil, &SyntaxError{setting, s, i, fmt.Sprintf("unexpected %q, want a tag name", c)}
		}
		out = appendUnique(out, strings.ToLower(s[i:i+n]))
		i += n
	}
	return out, nil
}

// ParseZones parses index_zones: tag names separated by commas, each with an
// optional trailing '*' that makes it a prefix ("h*, th, title"). Spaces may
// surround the names; a trailing comma is allowed. Names are lower-cased and
// deduplicated; an empty value gives nil.
func ParseZones(s string) ([]string, error) {
	const setting = "index_zones"
	var out []string
	i := skipSpaces(s, 0)
	for i < len(s) {
		n := nameLen(s[i:])
		if n == 0 {
			return nil, &SyntaxError{setting, s, i, fmt.Sprintf("unexpected %q, want a zone name", s[i])}
		}
		name := strings.ToLower(s[i : i+n])
		i += n
		if i < len(s) && s[i] == '*' {
			name += "*"
			i++
		}
		out = appendUnique(out, name)
		i = skipSpaces(s, i)
		if i == len(s) {
			break
		}
		if s[i] != ',' {
			return nil, &SyntaxError{setting, s, i, fmt.Sprintf("unexpected %q, want ',' after a zone name", s[i])}
		}
		i = skipSpaces(s, i+1)
	}
	return out, nil
}

// ParseIndexAttrs parses html_index_attrs in Sphinx's syntax: entries
// "tag=attr[,attr...]" separated by semicolons, with an optional trailing
// semicolon ("img=alt,title; a=title;"). Spaces may surround every name. An
// entry without attributes ("img=") is allowed and adds nothing. Names are
// lower-cased; the attributes of a tag named twice are merged.
func ParseIndexAttrs(s string) (map[string][]string, error) {
	const setting = "html_index_attrs"
	var out map[string][]string
	i := skipSpaces(s, 0)
	for i < len(s) {
		n := nameLen(s[i:])
		if n == 0 {
			return nil, &SyntaxError{setting, s, i, fmt.Sprintf("unexpected %q, want a tag name", s[i])}
		}
		tag := strings.ToLower(s[i : i+n])
		i = skipSpaces(s, i+n)
		if i == len(s) || s[i] != '=' {
			return nil, &SyntaxError{setting, s, i, "want '=' after tag name " + tag}
		}
		i = skipSpaces(s, i+1)
		var attrs []string
		for i < len(s) && s[i] != ';' {
			n := nameLen(s[i:])
			if n == 0 {
				return nil, &SyntaxError{setting, s, i, fmt.Sprintf("unexpected %q, want an attribute name", s[i])}
			}
			attrs = appendUnique(attrs, strings.ToLower(s[i:i+n]))
			i = skipSpaces(s, i+n)
			if i == len(s) || s[i] == ';' {
				break
			}
			if s[i] != ',' {
				return nil, &SyntaxError{setting, s, i, fmt.Sprintf("unexpected %q, want ',' or ';'", s[i])}
			}
			i = skipSpaces(s, i+1)
			if i == len(s) || s[i] == ';' {
				return nil, &SyntaxError{setting, s, i, "want an attribute name after ','"}
			}
		}
		if len(attrs) > 0 {
			if out == nil {
				out = make(map[string][]string)
			}
			for _, a := range attrs {
				out[tag] = appendUnique(out[tag], a)
			}
		}
		if i < len(s) { // at ';'
			i = skipSpaces(s, i+1)
		}
	}
	return out, nil
}

// nameLen is the length of the tag or attribute name at the start of s: an
// ASCII letter, then letters, digits, '-', '_', ':' and '.'.
func nameLen(s string) int {
	if s == "" || !isLetter(s[0]) {
		return 0
	}
	i := 1
	for i < len(s) && (isLetter(s[i]) || isDigit(s[i]) || s[i] == '-' || s[i] == '_' || s[i] == ':' || s[i] == '.') {
		i++
	}
	return i
}

func skipSpaces(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// isSpace reports whether c is HTML whitespace (and \v, which HTML does not
// count but a setting may hold).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// Stripper is a compiled Options: build it once per table (New), then call
// Strip for each field. It is immutable and safe for concurrent use.
type Stripper struct {
	remove     map[string]bool
	attrs      map[string][]string
	zoneExact  map[string]bool
	zonePrefix []string
	unitTags   bool
	keepEnts   bool
	zoneNoPara bool
}

// New compiles opts (nil means the zero Options). Names are lower-cased; the
// caller's slices and maps are not kept.
func New(opts *Options) *Stripper {
	s := &Stripper{}
	if opts == nil {
		return s
	}
	s.unitTags, s.keepEnts, s.zoneNoPara = opts.UnitTags, opts.KeepEntities, opts.ZonesNoParagraph
	for _, e := range opts.RemoveElements {
		if s.remove == nil {
			s.remove = make(map[string]bool)
		}
		s.remove[strings.ToLower(e)] = true
	}
	for tag, attrs := range opts.IndexAttrs {
		if len(attrs) == 0 {
			continue
		}
		if s.attrs == nil {
			s.attrs = make(map[string][]string)
		}
		tag = strings.ToLower(tag)
		for _, a := range attrs {
			s.attrs[tag] = appendUnique(s.attrs[tag], strings.ToLower(a))
		}
	}
	for _, z := range opts.Zones {
		z = strings.ToLower(z)
		if p, ok := strings.CutSuffix(z, "*"); ok {
			s.zonePrefix = appendUnique(s.zonePrefix, p)
			continue
		}
		if s.zoneExact == nil {
			s.zoneExact = make(map[string]bool)
		}
		s.zoneExact[z] = true
	}
	return s
}

// hasZones reports whether any zone is configured, in which case Strip keeps
// the stack of open elements.
func (s *Stripper) hasZones() bool { return len(s.zoneExact) > 0 || len(s.zonePrefix) > 0 }

// isZone reports whether the lower-case tag name is a zone.
func (s *Stripper) isZone(name []byte) bool {
	if s.zoneExact[string(name)] {
		return true
	}
	for _, p := range s.zonePrefix {
		if len(name) >= len(p) && string(name[:len(p)]) == p {
			return true
		}
	}
	return false
}
