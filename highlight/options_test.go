package highlight

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// The one table gives the defaults: every row with a default sets it.
func TestOptionTableDefaults(t *testing.T) {
	o := DefaultOptions()
	require.Equal(t, "<b>", o.BeforeMatch)
	require.Equal(t, "</b>", o.AfterMatch)
	require.Equal(t, 256, o.Limit)
	require.Equal(t, 5, o.Around)
	require.Equal(t, 1, o.StartSnippetID)
	require.Equal(t, "index", o.HTMLStripMode)
	require.True(t, o.LimitsPerField)
	require.Equal(t, " ... ", o.SnippetSeparator)
	require.Equal(t, " | ", o.FieldSeparator)
	for _, s := range Table() {
		require.False(t, o.IsSet(s.Name), "a default is not an option given: %s", s.Name)
		for _, syn := range s.Synonyms {
			got, ok := Lookup(syn)
			require.True(t, ok)
			require.Equal(t, s.Name, got.Name, "a synonym names its row")
		}
	}
}

// A list refuses one option given twice, under the same name in another
// case or under a synonym, and names both.
func TestListGivenTwice(t *testing.T) {
	o := DefaultOptions()
	l := List{Opts: &o, Scope: ScopeSQL}
	require.NoError(t, l.Set("limit_passages", int64(1)))
	err := l.Set("LIMIT_SNIPPETS", int64(2))
	require.ErrorContains(t, err, "'limit_passages' and 'LIMIT_SNIPPETS' are names of one option")
	require.Equal(t, 1, o.LimitSnippets, "the refused value is not set")

	l = List{Opts: &o, Scope: ScopeSQL}
	require.NoError(t, l.Set("Around", int64(3)))
	require.ErrorContains(t, l.Set("around", int64(4)), "'around': is given twice")

	// JSON: pre_tags and before_match set one option.
	o = DefaultOptions()
	l = List{Opts: &o, Scope: ScopeJSON}
	require.NoError(t, l.Set("pre_tags", "<i>"))
	require.ErrorContains(t, l.Set("before_match", "<u>"), "'pre_tags' and 'before_match' are names of one option")

	// Options.Set alone overrides: a field's own options over the global ones.
	o = DefaultOptions()
	require.NoError(t, o.Set("limit", int64(10)))
	require.NoError(t, o.Set("limit", int64(20)))
	require.Equal(t, 20, o.Limit)
}

// TestListNamed: a check of the options together names an option as the
// client gave it (a synonym, in its own case); other errors pass as they are.
func TestListNamed(t *testing.T) {
	o := DefaultOptions()
	l := List{Opts: &o, Scope: ScopeCall}
	require.NoError(t, l.Set("Passage_Boundary", "sentence"))
	require.EqualError(t, l.Named(o.CheckTable(false, false)), "highlight option 'Passage_Boundary': 'sentence' needs a table with index_sp=1")

	o = DefaultOptions()
	l = List{Opts: &o, Scope: ScopeJSON}
	require.NoError(t, l.Set("encoder", "html"))
	require.NoError(t, l.Set("fragment_size", int64(20)))
	err := l.Named(o.Check())
	require.Error(t, err)
	require.NotContains(t, err.Error(), "html_strip_mode")

	o = DefaultOptions()
	l = List{Opts: &o, Scope: ScopeSQL}
	require.NoError(t, l.Set("snippet_boundary", "sentence"))
	require.EqualError(t, l.Named(o.CheckTable(false, false)), "highlight option 'snippet_boundary': 'sentence' needs a table with index_sp=1")
	require.NoError(t, l.Named(nil))
	plain := errors.New("other")
	require.Equal(t, plain, l.Named(plain))
}

// Each option belongs to the places that have it.
func TestListScope(t *testing.T) {
	o := DefaultOptions()
	require.ErrorContains(t, (&List{Opts: &o, Scope: ScopeJSON}).Set("chunk_separator", " "), "is for SQL only")
	require.ErrorContains(t, (&List{Opts: &o, Scope: ScopeSQL}).Set("load_files", int64(1)), "is for CALL SNIPPETS only")
	require.NoError(t, (&List{Opts: &o, Scope: ScopeCall}).Set("LOAD_FILES_SCATTERED", int64(1)))
	require.True(t, o.LoadFilesScattered)
	require.ErrorContains(t, (&List{Opts: &o, Scope: ScopeSQL}).Set("pre_tags", "<i>"), "unknown option")
}

// An unquoted word is a string: keyword and string options take it, in
// any case for keywords; numbers and flags do not.
func TestWordValue(t *testing.T) {
	o := DefaultOptions()
	require.NoError(t, o.Set("html_strip_mode", Word("Strip")))
	require.Equal(t, "strip", o.HTMLStripMode)
	require.NoError(t, o.Set("passage_boundary", Word("PARAGRAPH")))
	require.Equal(t, "paragraph", o.SnippetBoundary)
	require.NoError(t, o.Set("before_match", Word("Mark")))
	require.Equal(t, "Mark", o.BeforeMatch, "a string option keeps the word as written")
	require.ErrorContains(t, o.Set("limit", Word("ten")), "takes a number, not the word 'ten'")
	require.ErrorContains(t, o.Set("weight_order", Word("on")), "takes 0 or 1, not the word 'on'")
}

// Check validates and changes nothing; the default limit gives way to
// retain when the mode is set, and comes back with another mode, unless
// limit was given.
func TestCheckChangesNothing(t *testing.T) {
	o := DefaultOptions()
	require.NoError(t, o.Set("html_strip_mode", "retain"))
	require.Equal(t, 0, o.Limit)
	before := o
	require.NoError(t, o.Check())
	require.Equal(t, before, o)
	require.NoError(t, o.Set("html_strip_mode", "none"))
	require.Equal(t, 256, o.Limit)

	o = DefaultOptions()
	require.NoError(t, o.Set("limit", int64(50)))
	require.NoError(t, o.Set("html_strip_mode", "retain"))
	require.Equal(t, 50, o.Limit, "a limit given is kept")
	before = o
	require.ErrorContains(t, o.Check(), "needs limit=0")
	require.Equal(t, before, o)
}

// snippet_boundary is checked against the table in its lower-case form,
// however it was written.
func TestCheckTable(t *testing.T) {
	o := DefaultOptions()
	require.NoError(t, o.CheckTable(false, false), "no boundary: any table")
	require.NoError(t, o.Set("passage_boundary", "SENTENCE"))
	require.ErrorContains(t, o.CheckTable(false, true), "'sentence' needs a table with index_sp=1")
	require.NoError(t, o.CheckTable(true, false))
	require.NoError(t, o.Set("snippet_boundary", "Zone"))
	require.ErrorContains(t, o.CheckTable(true, false), "'zone' needs a table with index_zones")
	require.NoError(t, o.CheckTable(false, true))
}

// Copies of Options keep apart which options were given.
func TestOptionsCopy(t *testing.T) {
	global := DefaultOptions()
	field := global
	require.NoError(t, field.Set("limit", int64(9)))
	require.True(t, field.IsSet("limit"))
	require.False(t, global.IsSet("limit"))
}
func TestOptions(t *testing.T) {
	for _, c := range []struct {
		name  string
		value any
		err   string
	}{
		{"limit", int64(-1), "highlight option 'limit': must be from 0 to 1073741824, not -1"},
		{"limit", "ten", `highlight option 'limit': takes a number, not "ten"`},
		{"limit", 2.5, "highlight option 'limit': takes a whole number, not 2.5"},
		{"before_match", int64(1), "highlight option 'before_match': takes a string, not 1"},
		{"allow_empty", int64(2), "highlight option 'allow_empty': takes 0 or 1"},
		{"html_strip_mode", "keep", "highlight option 'html_strip_mode': must be none, strip, index or retain, not 'keep'"},
		{"snippet_boundary", "line", "highlight option 'snippet_boundary': must be sentence, paragraph or zone, not 'line'"},
		{"nosuch", int64(1), "highlight option 'nosuch': unknown option"},
		{"query_mode", int64(0), "query_mode=0"},
		{"exact_phrase", int64(1), "is not supported"},
	} {
		o := DefaultOptions()
		err := o.Set(c.name, c.value)
		require.ErrorContains(t, err, c.err, c.name)
	}
	o := DefaultOptions()
	require.NoError(t, o.Set("LIMIT_PASSAGES", int64(2)))
	require.Equal(t, 2, o.LimitSnippets)
	require.NoError(t, o.Set("limit_snippets", int64(0)))
	require.NoError(t, o.Set("chunk_separator", "|"))
	require.Equal(t, "|", o.SnippetSeparator)
	require.NoError(t, o.Set("query_mode", int64(1)))
	require.NoError(t, o.Set("html_strip_mode", "retain"))
	require.NoError(t, o.Check(), "the default limit gives way to retain")
	require.Equal(t, 0, o.Limit)
	require.NoError(t, o.Set("limit", int64(100)))
	require.ErrorContains(t, o.Check(), "needs limit=0")
	require.NoError(t, o.Set("limit", int64(0)))
	require.NoError(t, o.Check())
	// A snippet boundary cuts the markup too: refused with retain, unless
	// balance_markup makes each cut well-formed.
	require.NoError(t, o.Set("snippet_boundary", "sentence"))
	require.EqualError(t, o.Check(), "highlight option 'html_strip_mode': 'retain' highlights whole documents, so it takes no snippet_boundary ('sentence' cuts the markup; balance_markup=1 cuts it into well-formed snippets)")
	require.NoError(t, o.Set("balance_markup", true))
	require.NoError(t, o.Check())
}

func TestOptionsJSON(t *testing.T) {
	for _, c := range []struct {
		name  string
		value any
		err   string
	}{
		{"pre_tags", int64(1), "highlight option 'pre_tags': takes a string (or an array of strings), not 1"},
		{"pre_tags", []any{}, "highlight option 'pre_tags': is an empty array"},
		{"post_tags", []any{int64(2)}, "highlight option 'post_tags': takes a string (or an array of strings), not 2"},
		{"no_match_size", int64(-1), "highlight option 'no_match_size': takes a whole number from 0 to 1073741824, not -1"},
		{"no_match_size", "0", `highlight option 'no_match_size': takes a whole number from 0 to 1073741824, not "0"`},
		{"order", "date", `highlight option 'order': must be "score", not "date"`},
		{"encoder", "xml", `highlight option 'encoder': must be "default" or "html", not "xml"`},
		{"fragment_size", int64(-5), "highlight option 'fragment_size': must be from 0 to 1073741824, not -5"},
		{"number_of_fragments", "two", `highlight option 'number_of_fragments': takes a number, not "two"`},
		{"snippet_separator", " | ", "highlight option 'snippet_separator': is for SQL only"},
		{"field_separator", " | ", "highlight option 'field_separator': is for SQL only"},
		{"limits_per_field", int64(3), "highlight option 'limits_per_field': takes 0 or 1"},
		{"nosuch", true, "highlight option 'nosuch': unknown option"},
	} {
		o := DefaultOptions()
		require.ErrorContains(t, o.SetJSON(c.name, c.value), c.err, c.name)
	}
	o := DefaultOptionsOlder()
	require.Equal(t, "<strong>", o.BeforeMatch)
	for _, kv := range []struct {
		name  string
		value any
	}{
		{"pre_tags", []any{"<em>", "<i>"}}, {"post_tags", "</em>"}, {"no_match_size", int64(0)},
		{"order", "score"}, {"fragment_size", float64(80)}, {"number_of_fragments", int64(3)},
		{"limits_per_field", false}, {"around", int64(2)},
	} {
		require.NoError(t, o.SetJSON(kv.name, kv.value), kv.name)
	}
	require.Equal(t, "<em>", o.BeforeMatch)
	require.Equal(t, "</em>", o.AfterMatch)
	require.True(t, o.AllowEmpty)
	require.True(t, o.WeightOrder)
	require.Equal(t, 80, o.Limit)
	require.Equal(t, 3, o.LimitSnippets)
	require.False(t, o.LimitsPerField)
	require.Equal(t, 2, o.Around)
	require.NoError(t, o.SetJSON("no_match_size", int64(10)))
	require.False(t, o.AllowEmpty)

	o = DefaultOptions()
	require.NoError(t, o.SetJSON("encoder", "html"))
	require.NoError(t, o.Check())
	require.Equal(t, "retain", o.HTMLStripMode)
	require.Equal(t, 0, o.Limit)
	require.NoError(t, o.SetJSON("encoder", "default"))
	require.Equal(t, "index", o.HTMLStripMode)
}

// Check refuses the combinations the reference refuses, naming the option;
// CheckCall refuses, besides, what CALL SNIPPETS alone refuses there
// (emit_zones without a zone boundary).
func TestCheckCombinations(t *testing.T) {
	for _, c := range []struct {
		kv         []any
		want, call string
	}{
		{[]any{"snippet_boundary", "sentence", "around", int64(0)}, "'sentence' needs around above 0", "'sentence' needs around above 0"},
		{[]any{"snippet_boundary", "paragraph", "use_boundaries", int64(1)}, "'paragraph' and use_boundaries cannot be used together", "cannot be used together"},
		{[]any{"emit_zones", int64(1)}, "emit_zones': shows zones before snippets cut within units, so it needs a snippet_boundary", "so it needs a snippet_boundary"},
		{[]any{"emit_zones", int64(1), "snippet_boundary", "sentence"}, "", "needs snippet_boundary='zone'"},
		{[]any{"emit_zones", int64(1), "snippet_boundary", "zone", "html_strip_mode", "none"}, "", "needs html_strip_mode 'strip' or 'index', not 'none'"},
		{[]any{"emit_zones", int64(1), "snippet_boundary", "zone"}, "", ""},
		{[]any{"snippet_boundary", "sentence", "around", int64(1)}, "", ""},
	} {
		o := DefaultOptions()
		for i := 0; i < len(c.kv); i += 2 {
			require.NoError(t, o.Set(c.kv[i].(string), c.kv[i+1]))
		}
		for _, check := range []struct {
			err  error
			want string
		}{{o.Check(), c.want}, {o.CheckCall(), c.call}} {
			if check.want == "" {
				require.NoError(t, check.err, "%v", c.kv)
			} else {
				require.ErrorContains(t, check.err, check.want, "%v", c.kv)
			}
		}
	}
}
