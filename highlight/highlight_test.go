package highlight

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

// field tokenizes text with tok and marks every occurrence of the given
// terms; a term "a b" marks the phrase (one group per occurrence).
func field(t testing.TB, tok *tokenize.Tokenizer, text string, terms ...string) Field {
	f := Field{Text: text, HTML: tok.Config().HTMLStrip}
	if tok.Config().PhraseBoundary != "" {
		f.Boundaries = tok.IsPhraseBoundary
	}
	var words []tokenize.Token
	var it tokenize.Iter
	it.Reset(tok, text)
	for it.Next() {
		f.Add(it.Pos(), it.Start(), it.End(), it.Term())
		if tk := it.Token(); !tokenize.IsReserved(tk.Term) {
			words = append(words, tk)
		}
	}
	group := 0
	for k, term := range terms {
		parts := strings.Fields(term)
		for i := range words {
			if i+len(parts) > len(words) {
				break
			}
			ok := true
			for j, part := range parts {
				ok = ok && words[i+j].Term == part && words[i+j].Pos == words[i].Pos+j
			}
			if !ok {
				continue
			}
			g := 0
			if len(parts) > 1 {
				group++
				g = group
			}
			for j := range parts {
				w := words[i+j]
				f.Marks = append(f.Marks, Mark{Pos: w.Pos, Start: w.Start, End: w.End, Keyword: k, Group: g})
			}
		}
	}
	sortMarks(f.Marks)
	return f
}

func sortMarks(ms []Mark) {
	slices.SortStableFunc(ms, func(x, y Mark) int { return x.Start - y.Start })
}

func opts(t testing.TB, kv ...any) *Options {
	o := DefaultOptions()
	for i := 0; i < len(kv); i += 2 {
		require.NoError(t, o.Set(kv[i].(string), kv[i+1]))
	}
	require.NoError(t, o.Check())
	return &o
}

func tokenizer(t testing.TB, settings ...string) *tokenize.Tokenizer {
	var ss []tokenize.Setting
	for i := 0; i < len(settings); i += 2 {
		ss = append(ss, tokenize.Setting{Name: settings[i], Value: settings[i+1]})
	}
	cfg, err := tokenize.ParseSettings(ss, nil)
	require.NoError(t, err)
	tok, err := tokenize.New(cfg)
	require.NoError(t, err)
	return tok
}

const brown = "The Fulton County Grand Jury said Friday an investigation of Atlanta's recent primary election produced no evidence that any irregularities took place. The jury further said in term-end presentments that the City Executive Committee, which had over-all charge of the election, deserves the praise and thanks of the City of Atlanta for the manner in which the election was conducted."

// TestGolden runs every case and compares the output with testdata/golden.txt.
func TestGolden(t *testing.T) {
	plain := tokenizer(t)
	html := tokenizer(t, "html_strip", "1", "index_sp", "1", "index_zones", "h1, b")
	sp := tokenizer(t, "index_sp", "1")
	type fieldIn struct {
		tok   *tokenize.Tokenizer
		text  string
		terms []string
	}
	cases := []struct {
		name   string
		fields []fieldIn
		kv     []any
	}{
		{"whole field fits", []fieldIn{{plain, "The quick brown fox", []string{"fox"}}}, nil},
		{"custom markers", []fieldIn{{plain, "The quick brown fox", []string{"quick", "fox"}}}, []any{"before_match", "<X>", "after_match", "<Y>"}},
		{"snippet id", []fieldIn{{plain, brown, []string{"election"}}}, []any{"before_match", "[%SNIPPET_ID%:", "after_match", "]", "limit", 60}},
		{"start snippet id", []fieldIn{{plain, brown, []string{"election"}}}, []any{"before_match", "[%PASSAGE_ID%:", "after_match", "]", "limit", 60, "start_passage_id", 7}},
		{"limit", []fieldIn{{plain, brown, []string{"jury"}}}, []any{"limit", 80}},
		{"around 2", []fieldIn{{plain, brown, []string{"jury"}}}, []any{"limit", 80, "around", 2}},
		{"limit words", []fieldIn{{plain, brown, []string{"jury", "election"}}}, []any{"limit_words", 12}},
		{"limit snippets", []fieldIn{{plain, brown, []string{"election"}}}, []any{"limit", 0, "limit_words", 30, "limit_snippets", 1, "around", 3}},
		{"phrase first", []fieldIn{{plain, brown, []string{"the election", "atlanta"}}}, []any{"limit", 60, "around", 2}},
		{"new keywords", []fieldIn{{plain, brown, []string{"election", "praise", "jury"}}}, []any{"limit", 90, "around", 2}},
		{"weight order", []fieldIn{{plain, brown, []string{"the election", "atlanta"}}}, []any{"limit", 120, "around", 2, "weight_order", 1}},
		{"force all words", []fieldIn{{plain, brown, []string{"fulton", "conducted"}}}, []any{"limit", 30, "around", 1, "force_all_words", 1}},
		{"without force all words", []fieldIn{{plain, brown, []string{"fulton", "conducted"}}}, []any{"limit", 30, "around", 1}},
		{"force snippets", []fieldIn{{plain, "The quick brown fox jumps over the lazy dog and runs far away", []string{"fox"}}}, []any{"force_snippets", 1, "around", 2}},
		{"no match", []fieldIn{{plain, brown, nil}}, []any{"limit", 50}},
		{"no match allow empty", []fieldIn{{plain, brown, nil}}, []any{"limit", 50, "allow_empty", 1}},
		{"two fields per field", []fieldIn{{plain, "Atlanta election", []string{"election"}}, {plain, brown, []string{"election"}}}, []any{"limit", 60}},
		{"two fields one budget", []fieldIn{{plain, "Atlanta election news", []string{"election"}}, {plain, brown, []string{"election"}}}, []any{"limit", 60, "limits_per_field", 0}},
		{"two fields one budget fits", []fieldIn{{plain, "Atlanta election", []string{"election"}}, {plain, "an election", []string{"election"}}}, []any{"limits_per_field", 0}},
		{"two fields one budget one snippet", []fieldIn{{plain, "Atlanta election", []string{"election"}}, {plain, "an election", []string{"election"}}}, []any{"limits_per_field", 0, "limit_snippets", 1}},
		{"unmarked field outside the budget", []fieldIn{{plain, "Atlanta election", []string{"election"}}, {plain, brown, nil}}, []any{"limits_per_field", 0, "limit", 20}},
		{"cyrillic and cjk", []fieldIn{{plain, "Привет мир, 東京 タワー and some more words here", []string{"мир", "東京"}}}, []any{"limit", 20, "around", 1}},
		{"combining", []fieldIn{{plain, "cafe\u0301 au lait", []string{"cafe\u0301"}}}, nil},
		{"html index", []fieldIn{{html, "<h1>Title &amp; more</h1><p>The <b>quick</b> fox</p>", []string{"quick", "more"}}}, nil},
		{"html none", []fieldIn{{html, "<p>The <b>quick</b> fox</p>", []string{"quick"}}}, []any{"html_strip_mode", "none"}},
		{"html retain", []fieldIn{{html, "<p>The <b>quick</b> fox and qu<i>ick</i></p>", []string{"quick", "fox"}}}, []any{"html_strip_mode", "retain", "limit", 0}},
		{"html strip on a plain table", []fieldIn{{plain, "<p>The quick fox</p>", []string{"quick"}}}, []any{"html_strip_mode", "strip"}},
		{"sentence boundary", []fieldIn{{sp, "The jury said it. The election was fine. Another jury met.", []string{"election"}}}, []any{"limit", 30, "around", 5, "snippet_boundary", "sentence"}},
		{"emit zones", []fieldIn{{html, "<h1>Grand jury</h1><p>Some text about nothing at all here</p><b>jury</b>", []string{"jury"}}}, []any{"emit_zones", 1, "force_snippets", 1, "around", 1}},
		{"use boundaries", []fieldIn{{tokenizer(t, "phrase_boundary", ";"), "one two three; jury four five six", []string{"jury"}}}, []any{"use_boundaries", 1, "force_snippets", 1, "around", 3}},
	}
	var out strings.Builder
	for _, c := range cases {
		var fields []Field
		for _, f := range c.fields {
			fields = append(fields, field(t, f.tok, f.text, f.terms...))
		}
		o := opts(t, c.kv...)
		got := Document(fields, 4, o)
		fmt.Fprintf(&out, "== %s %v\n", c.name, c.kv)
		for i, snips := range got {
			fmt.Fprintf(&out, "field %d:\n", i)
			for _, s := range snips {
				fmt.Fprintf(&out, "  %q\n", s)
			}
		}
		fmt.Fprintf(&out, "sql: %q\n", Join(got, o, false))
	}
	if *update {
		require.NoError(t, os.WriteFile("testdata/golden.txt", []byte(out.String()), 0o644))
		return
	}
	want, err := os.ReadFile("testdata/golden.txt")
	require.NoError(t, err)
	require.Equal(t, string(want), out.String())
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

// FuzzDocument: no panic; the output without markers is made of pieces of
// the field's text; limits hold; markers balance.
func FuzzDocument(f *testing.F) {
	f.Add(brown, "election", 60, 0, 5)
	f.Add("Привет мир мир", "мир", 5, 2, 1)
	f.Add("<b>a</b> b a", "a", 3, 0, 0)
	tok := tokenizer(f)
	f.Fuzz(func(t *testing.T, text, term string, limit, limitWords, around int) {
		if !utf8.ValidString(text) || strings.ContainsAny(text, "\x01\x02") || limit < 0 || limitWords < 0 || around < 0 || around > 100 || limit > 1000 || limitWords > 1000 {
			return
		}
		fl := field(t, tok, text, strings.ToLower(strings.TrimSpace(term)))
		o := opts(t, "limit", int64(limit), "limit_words", int64(limitWords), "around", int64(around),
			"before_match", "\x01", "after_match", "\x02")
		for _, s := range Document([]Field{fl}, 1, o)[0] {
			if strings.Count(s, "\x01") != strings.Count(s, "\x02") {
				t.Fatalf("unbalanced markers in %q", s)
			}
			plain := strings.NewReplacer("\x01", "", "\x02", "").Replace(s)
			if !strings.Contains(text, plain) {
				t.Fatalf("%q is not a piece of the text", plain)
			}
			if limit > 0 && utf8.RuneCountInString(plain) > limit {
				t.Fatalf("%q is over the limit %d", plain, limit)
			}
		}
	})
}

func BenchmarkDocument(b *testing.B) {
	tok := tokenizer(b)
	for _, size := range []int{1 << 10, 10 << 10, 100 << 10, 1 << 20} {
		text := strings.Repeat(brown+" ", size/len(brown)+1)[:size]
		fl := field(b, tok, text, "election", "jury", "the city")
		o := DefaultOptions()
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				Document([]Field{fl}, 3, &o)
			}
		})
	}
}

func TestIsASCII(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{"short", true},
		{"exactly8", true},
		{"a longer text of many blocks, all ASCII ~\x7f", true},
		{"é", false},
		{"1234567é", false},        // in the tail
		{"12345678é123456", false}, // in a block
		{"abcdefgh\x80", false},
	} {
		require.Equal(t, c.want, isASCII(c.s), "%q", c.s)
	}
}
