package highlight

import (
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
