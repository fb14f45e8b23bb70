package highlight

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// Options are the highlighting options: the common ones of the
// specification (section 4.3), the ones dialect.md names, and the SQL-only
// separators. The zero value is not useful: start from DefaultOptions.
type Options struct {
	BeforeMatch, AfterMatch string
	Limit                   int // codepoints per field (or document); 0: no limit
	LimitWords              int // 0: no limit
	LimitSnippets           int // 0: no limit
	LimitsPerField          bool
	StartSnippetID          int
	HTMLStripMode           string // none, strip, index, retain
	AllowEmpty              bool
	Around                  int
	UseBoundaries           bool
	WeightOrder             bool
	ForceAllWords           bool
	SnippetBoundary         string // "", sentence, paragraph, zone
	EmitZones               bool
	ForceSnippets           bool
	SnippetSeparator        string
	FieldSeparator          string

	set map[string]bool // canonical names given explicitly
}

// DefaultOptions are the defaults of the newer form of the interface.
func DefaultOptions() Options {
	return Options{
		BeforeMatch: "<b>", AfterMatch: "</b>", Limit: 256, LimitsPerField: true, StartSnippetID: 1,
		HTMLStripMode: "index", Around: 5, SnippetSeparator: " ... ", FieldSeparator: " | ",
	}
}

// DefaultOptionsOlder are the defaults of the older form (<strong> markers).
func DefaultOptionsOlder() Options {
	o := DefaultOptions()
	o.BeforeMatch, o.AfterMatch = "<strong>", "</strong>"
	return o
}

// OptionError is an option that cannot be used.
type OptionError struct {
	Option string
	Msg    string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("highlight option '%s': %s", e.Option, e.Msg)
}

// synonyms are the older names clients still send.
var synonyms = map[string]string{
	"passage_boundary": "snippet_boundary",
	"limit_passages":   "limit_snippets",
	"force_passages":   "force_snippets",
	"start_passage_id": "start_snippet_id",
	"chunk_separator":  "snippet_separator",
}

// maxLimit bounds the numeric options (a larger value is an error, not a wrap).
const maxLimit = 1 << 30

// Set sets one option by name (case-insensitive; older synonyms accepted).
// value is a string, an int64 or a float64 (a whole number).
func (o *Options) Set(name string, value any) error {
	lname := strings.ToLower(name)
	if canon, ok := synonyms[lname]; ok {
		lname = canon
	}
	str := func() (string, error) {
		s, ok := value.(string)
		if !ok {
			return "", &OptionError{name, fmt.Sprintf("takes a string, not %v", value)}
		}
		return s, nil
	}
	num := func(lo, hi int) (int, error) {
		var n int64
		switch v := value.(type) {
		case int64:
			n = v
		case int:
			n = int64(v)
		case float64:
			if v != math.Trunc(v) {
				return 0, &OptionError{name, fmt.Sprintf("takes a whole number, not %v", v)}
			}
			n = int64(v)
		default:
			return 0, &OptionError{name, fmt.Sprintf("takes a number, not %q", value)}
		}
		if n < int64(lo) || n > int64(hi) {
			return 0, &OptionError{name, fmt.Sprintf("must be from %d to %d, not %d", lo, hi, n)}
		}
		return int(n), nil
	}
	flag := func() (bool, error) {
		n, err := num(0, 1)
		if err != nil {
			return false, &OptionError{name, "takes 0 or 1"}
		}
		return n == 1, nil
	}
	var err error
	switch lname {
	case "before_match":
		o.BeforeMatch, err = str()
	case "after_match":
		o.AfterMatch, err = str()
	case "snippet_separator":
		o.SnippetSeparator, err = str()
	case "field_separator":
		o.FieldSeparator, err = str()
	case "limit":
		o.Limit, err = num(0, maxLimit)
	case "limit_words":
		o.LimitWords, err = num(0, maxLimit)
	case "limit_snippets":
		o.LimitSnippets, err = num(0, maxLimit)
	case "around":
		o.Around, err = num(0, maxLimit)
	case "start_snippet_id":
		o.StartSnippetID, err = num(-maxLimit, maxLimit)
	case "limits_per_field":
		o.LimitsPerField, err = flag()
	case "allow_empty":
		o.AllowEmpty, err = flag()
	case "use_boundaries":
		o.UseBoundaries, err = flag()
	case "weight_order":
		o.WeightOrder, err = flag()
	case "force_all_words":
		o.ForceAllWords, err = flag()
	case "emit_zones":
		o.EmitZones, err = flag()
	case "force_snippets":
		o.ForceSnippets, err = flag()
	case "html_strip_mode":
		var s string
		if s, err = str(); err == nil {
			switch s = strings.ToLower(s); s {
			case "none", "strip", "index", "retain":
				o.HTMLStripMode = s
			default:
				err = &OptionError{name, fmt.Sprintf("must be none, strip, index or retain, not '%s'", s)}
			}
		}
	case "snippet_boundary":
		var s string
		if s, err = str(); err == nil {
			switch s = strings.ToLower(s); s {
			case "sentence", "paragraph", "zone":
				o.SnippetBoundary = s
			default:
				err = &OptionError{name, fmt.Sprintf("must be sentence, paragraph or zone, not '%s'", s)}
			}
		}
	case "query_mode":
		var on bool
		if on, err = flag(); err == nil && !on {
			err = &OptionError{name, "query_mode=0 (a bag of words) is not supported: the query always uses the full syntax, so leave it out or set 1"}
		}
	case "exact_phrase":
		err = &OptionError{name, "is not supported: put the words in quotes in the query instead (\"exact phrase\")"}
	default:
		err = &OptionError{name, "unknown option"}
	}
	if err != nil {
		return err
	}
	if o.set == nil {
		o.set = map[string]bool{}
	}
	o.set[lname] = true
	return nil
}

// IsSet reports whether an option (canonical name) was given explicitly.
func (o *Options) IsSet(name string) bool { return o.set[name] }

// SetJSON sets one member of the JSON highlight object (spec 4.1): the
// JSON names (pre_tags, post_tags, no_match_size, order, encoder,
// fragment_size, number_of_fragments) and every common option, with JSON
// values (true and false count as 1 and 0; pre_tags and post_tags may be
// arrays, whose first element is used). The SQL-only separators are errors:
// JSON answers keep snippets apart in arrays.
func (o *Options) SetJSON(name string, value any) error {
	if b, ok := value.(bool); ok {
		value = int64(0)
		if b {
			value = int64(1)
		}
	}
	lname := strings.ToLower(name)
	switch lname {
	case "pre_tags", "post_tags":
		if list, ok := value.([]any); ok {
			if len(list) == 0 {
				return &OptionError{name, "is an empty array: give a string, or an array whose first element is a string"}
			}
			value = list[0]
		}
		if _, ok := value.(string); !ok {
			return &OptionError{name, fmt.Sprintf("takes a string (or an array of strings), not %s", jsonKind(value))}
		}
		target := "before_match"
		if lname == "post_tags" {
			target = "after_match"
		}
		return o.setAs(name, target, value)
	case "no_match_size":
		n, ok := wholeNumber(value)
		if !ok || n < 0 || n > maxLimit {
			return &OptionError{name, fmt.Sprintf("takes a whole number from 0 to %d, not %s", maxLimit, jsonKind(value))}
		}
		return o.setAs(name, "allow_empty", boolInt(n == 0))
	case "order":
		if s, ok := value.(string); ok && strings.EqualFold(s, "score") {
			return o.setAs(name, "weight_order", int64(1))
		}
		return &OptionError{name, fmt.Sprintf("must be \"score\", not %s", jsonKind(value))}
	case "encoder":
		s, _ := value.(string)
		switch strings.ToLower(s) {
		case "default":
			return o.setAs(name, "html_strip_mode", "index")
		case "html":
			return o.setAs(name, "html_strip_mode", "retain")
		}
		return &OptionError{name, fmt.Sprintf("must be \"default\" or \"html\", not %s", jsonKind(value))}
	case "fragment_size":
		return o.setAs(name, "limit", value)
	case "number_of_fragments":
		return o.setAs(name, "limit_snippets", value)
	case "snippet_separator", "field_separator", "chunk_separator":
		return &OptionError{name, "is for SQL only: JSON answers give each field's snippets as an array"}
	}
	return o.Set(name, value)
}

// setAs sets the option target for the JSON member name, naming the member
// in an error.
func (o *Options) setAs(name, target string, value any) error {
	if err := o.Set(target, value); err != nil {
		var oe *OptionError
		if errors.As(err, &oe) {
			oe.Option = name
		}
		return err
	}
	return nil
}

func wholeNumber(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// jsonKind describes a value in an error.
func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(v)
}

// Check reports combinations that cannot work. html_strip_mode=retain
// highlights whole documents: without an explicit limit, the default limit
// gives way to it.
func (o *Options) Check() error {
	if o.HTMLStripMode == "retain" && !o.set["limit"] {
		o.Limit = 0
	}
	if o.HTMLStripMode == "retain" && (o.Limit > 0 || o.LimitWords > 0 || o.LimitSnippets > 0) {
		return &OptionError{"html_strip_mode", "'retain' highlights whole documents, so it needs limit=0 and no limit_words or limit_snippets"}
	}
	return nil
}

// expandID replaces the first %SNIPPET_ID% (or %PASSAGE_ID%) in a marker.
func expandID(marker string, id int) string {
	for _, macro := range []string{"%SNIPPET_ID%", "%PASSAGE_ID%"} {
		if i := strings.Index(marker, macro); i >= 0 {
			return marker[:i] + fmt.Sprint(id) + marker[i+len(macro):]
		}
	}
	return marker
}
