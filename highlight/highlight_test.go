package highlight

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	benchcorpus "github.com/glint-search/glint/bench/corpus"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/require"
)

// TestRules: the rules of snippets, each stated by a case in
// testdata/rules.txt (see its header for the command).
func TestRules(t *testing.T) {
	golden.Run(t, "testdata/rules.txt", func(t *testing.T, d *golden.TestData) string {
		require.Equal(t, "highlight", d.Cmd, d.Pos)
		return runRule(t, d)
	})
}

// runRule runs one case: its request, rendered both ways.
func runRule(t *testing.T, d *golden.TestData) string {
	o := DefaultOptions()
	var marks []string
	var settings []string
	mode, units := "", ""
	for _, arg := range d.CmdArgs {
		name, value := arg.Key, arg.SingleVal(t)
		switch name {
		case "marks":
			marks = strings.Split(value, ",")
		case "mode":
			mode = value
		case "units":
			units = value
		case "tokenizer":
			for _, kv := range strings.Split(value, ";;") {
				k, v, _ := strings.Cut(kv, ":")
				settings = append(settings, k, v)
			}
		default:
			var v any = value
			if x, err := strconv.ParseInt(value, 10, 64); err == nil {
				v = x
			}
			require.NoError(t, o.Set(name, v), d.Pos)
		}
	}
	require.NoError(t, o.Check())
	tok := tokenizer(t, settings...)
	req := &Request{Options: &o, Stored: mode != "", Pack: mode == "packed", Units: units}
	for _, m := range marks {
		req.Weights = append(req.Weights, utf8.RuneCountInString(m))
	}
	for line := range strings.SplitSeq(d.Input, "\n") {
		text, ok := strings.CutPrefix(line, "field: ")
		require.True(t, ok, "%s: an input line is \"field: text\", not %q", d.Pos, line)
		req.Fields = append(req.Fields, field(t, tok, text, marks...))
	}
	res := Highlight(req)
	var b strings.Builder
	fmt.Fprintf(&b, "sql: %s\njson:", res.Join())
	for _, s := range res.Strings() {
		if s == nil {
			s = []string{}
		}
		j, err := json.Marshal(s)
		require.NoError(t, err)
		b.WriteString(" " + strings.ReplaceAll(string(j), `\u003c`, "<"))
	}
	res.Release() // (the next case reuses its storage)
	return strings.NewReplacer(`\u003e`, ">", `\u0026`, "&").Replace(b.String()) + "\n"
}

// TestReleaseReuse: a result made with the storage of released ones shows
// what a result of its own shows, whatever came before it: more or fewer
// snippets, with or without marks, one field or several.
func TestReleaseReuse(t *testing.T) {
	tok := tokenizer(t)
	o := DefaultOptions()
	o.Limit, o.Around = 60, 2
	few := DefaultOptions()
	few.Limit = 400
	var reqs []*Request
	for n := 1; n <= 3; n++ {
		text := strings.Repeat(brown+" ", n)
		for _, terms := range [][]string{{"jury"}, {"election", "city"}, {"zebra"}, {"the city", "atlanta"}} {
			fl := field(t, tok, text, terms...)
			weights := make([]int, len(terms))
			for k := range weights {
				weights[k] = 1
			}
			for _, opts := range []*Options{&o, &few} {
				reqs = append(reqs, &Request{Fields: []Field{fl}, Weights: weights, Options: opts, Stored: true})
				reqs = append(reqs, &Request{Fields: []Field{fl, field(t, tok, brown, terms...)}, Weights: weights, Options: opts, Stored: true, Pack: true})
			}
		}
	}
	render := func(res *Result) string {
		return fmt.Sprint(res.Join(), res.Strings())
	}
	want := make([]string, len(reqs))
	for i, r := range reqs {
		want[i] = render(Highlight(r)) // (not released: storage of its own)
	}
	order := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		for _, i := range order.Perm(len(reqs)) {
			res := Highlight(reqs[i])
			require.Equal(t, want[i], render(res), "request %d", i)
			res.Release()
		}
	}
}

// FuzzDocument: no panic; each snippet without its markers is a piece of
// the shown text; markers balance; the limits hold: codepoints, words and
// snippets of a field (as fixLimits raises them), unless force_all_words.
func FuzzDocument(f *testing.F) {
	f.Add(brown, "election", 60, 0, 0, 5)
	f.Add(brown, "jury", 0, 7, 2, 1)
	f.Add("Привет мир мир", "мир", 5, 2, 1, 1)
	f.Add("a a a a a a a a a a", "a", 3, 0, 1, 0)
	tok := tokenizer(f)
	f.Fuzz(func(t *testing.T, text, term string, limit, limitWords, limitSnippets, around int) {
		if !utf8.ValidString(text) || strings.ContainsAny(text, "\x01\x02") || limit < 0 || limitWords < 0 || limitSnippets < 0 ||
			around < 0 || around > 100 || limit > 1000 || limitWords > 1000 || limitSnippets > 100 {
			return
		}
		term = strings.ToLower(strings.TrimSpace(term))
		fl := field(t, tok, text, term)
		o := opts(t, "limit", int64(limit), "limit_words", int64(limitWords), "limit_snippets", int64(limitSnippets),
			"around", int64(around), "before_match", "\x01", "after_match", "\x02")
		weights := []int{utf8.RuneCountInString(term)}
		res := Highlight(&Request{Fields: []Field{fl}, Weights: weights, Options: o})
		r := res.Fields[0]
		lim := fixLimits(limitsOf(o), o, weights, fl.Found|foundOf(fl))
		cps, nwords, marked := 0, 0, false
		for _, s := range r.Snippets {
			out := r.text(&s, o)
			if strings.Count(out, "\x01") != strings.Count(out, "\x02") {
				t.Fatalf("unbalanced markers in %q", out)
			}
			plain := strings.TrimSuffix(strings.NewReplacer("\x01", "", "\x02", "").Replace(out), o.SnippetSeparator)
			if !strings.Contains(r.Text, plain) {
				t.Fatalf("%q is not a piece of the text", plain)
			}
			cps += utf8.RuneCountInString(plain)
			nwords += countWords(tok, plain)
			marked = marked || strings.Contains(out, "\x01")
		}
		if len(fl.Marks) == 0 || !marked {
			// The field's beginning: shown when nothing matched, or
			// when no passage fits the limits (the first window may
			// hold one word over limit_words, as the reference's does,
			// and then fit nowhere).
			// A field's beginning: the codepoint limit only.
			if lim.chars > 0 && cps > lim.chars && len(r.Snippets) == 1 && r.Snippets[0].End-r.Snippets[0].Start > 0 &&
				cps > utf8.RuneCountInString(firstUnit(r.Text)) {
				t.Fatalf("beginning %q is over the limit %d", r.Text[r.Snippets[0].Start:r.Snippets[0].End], lim.chars)
			}
			return
		}
		if len(r.Snippets) == 1 && r.Snippets[0].Start == 0 && r.Snippets[0].End == len(r.Text) {
			return // shown whole: the limits allowed it
		}
		if lim.chars > 0 && cps > lim.chars {
			t.Fatalf("%d codepoints over the limit %d", cps, lim.chars)
		}
		if lim.words > 0 && nwords > lim.words {
			t.Fatalf("%d words over limit_words %d", nwords, lim.words)
		}
		if lim.snippets > 0 && len(r.Snippets) > lim.snippets {
			t.Fatalf("%d snippets over limit_snippets %d", len(r.Snippets), lim.snippets)
		}
	})
}

// foundOf is the keywords a field's marks show.
func foundOf(f Field) uint64 {
	var m uint64
	for _, k := range f.Marks {
		m |= 1 << uint(k.Keyword)
	}
	return m
}

// countWords counts the words tok finds in s.
func countWords(tok *tokenize.Tokenizer, s string) int {
	return len(tok.Append(nil, s))
}

// firstUnit is the first word or run of s (white space as the stream
// tells it), which a beginning shows even when it is over the limit.
func firstUnit(s string) string {
	for i, r := range s {
		if i > 0 && (r < utf8.RuneSelf && isSpace(byte(r))) != isSpace(s[0]) {
			return s[:i]
		}
	}
	return s
}

// BenchmarkDocument highlights prose of several sizes on a given layout
// (what HIGHLIGHT() does with a stored document): the highlighter alone.
func BenchmarkDocument(b *testing.B) {
	tok := tokenizer(b)
	for _, size := range []int{1 << 10, 10 << 10, 100 << 10, 1 << 20} {
		text := strings.Repeat(brown+" ", size/len(brown)+1)[:size]
		fl := field(b, tok, text, "election", "jury", "the city")
		o := DefaultOptions()
		req := &Request{Fields: []Field{fl}, Weights: []int{8, 4, 8}, Options: &o, Stored: true}
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				res := Highlight(req)
				res.Join()
				res.Release() // (as HIGHLIGHT() does)
			}
		})
	}
}

// BenchmarkBrown highlights what the race's search + HIGHLIGHT() workload
// on Brown highlights, on stored layouts: for each of the race's queries,
// the first 20 documents of the corpus it marks a word in (where the dense
// BenchmarkDocument has a mark every seven words, these have the marks
// the queries give: frequent words, rare ones, three words, phrases).
// MB/s is of field text. It needs the benchmark's cached corpus (go run
// ./bench/cmd/corpus -queries brown).
func BenchmarkBrown(b *testing.B) {
	docs, queries, err := benchcorpus.ReadCached(filepath.Join("..", "bench", "cache"), benchcorpus.Brown)
	if errors.Is(err, fs.ErrNotExist) {
		b.Skip(err)
	}
	require.NoError(b, err)
	tok := tokenizer(b)
	fields := make([]Field, len(docs))
	words := make([][]tokenize.Token, len(docs))
	for i, d := range docs {
		fields[i], words[i] = layoutOf(tok, d.Content)
	}
	var reqs []*Request
	size := 0
	o := DefaultOptions()
	for _, q := range queries {
		// "a|b|c", "\"a b\"" or a word: the keywords, weighing their lengths.
		terms := strings.Split(strings.ToLower(strings.Trim(q.Text, `"`)), "|")
		weights := make([]int, len(terms))
		for k, t := range terms {
			weights[k] = utf8.RuneCountInString(t)
		}
		shown := 0
		for i := range docs {
			marks := marksOf(words[i], terms)
			if len(marks) == 0 {
				continue
			}
			fl := fields[i]
			fl.Marks = marks
			reqs = append(reqs, &Request{Fields: []Field{fl}, Weights: weights, Options: &o, Stored: true})
			size += len(fl.Text)
			if shown++; shown == 20 {
				break
			}
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range reqs {
			res := Highlight(r)
			res.Join()
			res.Release()
		}
	}
}

// TestSkipSameResult: skipping the stretches without marks gives what
// walking every unit gives, on texts of random words with marks of one to
// three keywords here and there.
func TestSkipSameResult(t *testing.T) {
	sameAsWalk(t, walkCase{
		tok:   tokenizer(t, "stopwords", "the of"),
		seed:  1,
		vocab: strings.Fields(strings.ToLower(brown + " zebra, yak. quail; ibis")),
		seps:  []string{" ", ", ", ". ", "  ", " - "},
		terms: []string{"zebra", "yak", "quail"}, weights: []int{5, 3, 5},
		words: [2]int{20, 600}, limit: 300, around: 8, limitWords: [2]int{3, 20},
	})
}

// TestDenseSameResult: in texts made mostly of the query's keywords, often
// side by side in query order, the window's running counts weigh passages
// as walking their marked words does.
func TestDenseSameResult(t *testing.T) {
	terms := []string{"zebra", "yak", "quail", "ibis"}
	sameAsWalk(t, walkCase{
		tok:   tokenizer(t),
		seed:  7,
		vocab: append(slices.Clone(terms), "zebra yak", "yak quail", "zebra yak quail ibis", "owl", "emu", "the"),
		seps:  []string{" ", ", ", ". ", " - "},
		terms: terms, weights: []int{5, 3, 5, 4},
		words: [2]int{10, 400}, limit: 200, around: 6, limitWords: [2]int{2, 15},
	})
}

// TestCharLimitSameResult: when the window is held by the character
// limit rather than the word limit (long words, a wide around), sliding
// and gliding drop the words the walk drops.
func TestCharLimitSameResult(t *testing.T) {
	terms := []string{"zebra", "yak", "quail"}
	sameAsWalk(t, walkCase{
		tok:   tokenizer(t),
		seed:  11,
		vocab: append(slices.Clone(terms), "a", "owl", "pelican", "hummingbird", "cassowary", "oystercatchers", "x"),
		seps:  []string{" ", " ", " ", ", "},
		terms: terms, weights: []int{5, 3, 4},
		words: [2]int{30, 500}, limit: 150, around: 8, limitWords: [2]int{1, 1},
	})
}

// TestBeginningSameResult: the beginning of fields without a match, found
// from the layout, ends where walking the units ends it, for one field or
// several sharing the limit, in texts that start with a word or with white
// space or punctuation.
func TestBeginningSameResult(t *testing.T) {
	tok := tokenizer(t)
	vocab := []string{"owl", "emu", "a", "zebra-yak", "x1", "quail's", "..", "--", "  ", "ibis,", "(kite)"}
	seps := []string{" ", ", ", ". ", "  ", " - ", "\n\t", ""}
	seed := uint64(3)
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for round := range 500 {
		var fields []Field
		for range 1 + rnd(3) {
			var b strings.Builder
			for range rnd(60) {
				b.WriteString(vocab[rnd(len(vocab))])
				b.WriteString(seps[rnd(len(seps))])
			}
			fields = append(fields, field(t, tok, b.String(), "nowhere"))
		}
		o := DefaultOptions()
		require.NoError(t, o.Set("limit", int64(rnd(120))))
		fast := Highlight(&Request{Fields: fields, Weights: []int{7}, Options: &o})
		slow := Highlight(&Request{Fields: fields, Weights: []int{7}, Options: &o, noSkip: true})
		require.Equal(t, slow.Join(), fast.Join(), "round %d", round)
		require.Equal(t, slow.Fields, fast.Fields, "round %d", round)
	}
}

// walkCase is a family of random texts and options for sameAsWalk.
type walkCase struct {
	tok           *tokenize.Tokenizer
	seed          uint64
	vocab, seps   []string
	terms         []string // a query is a prefix of them
	weights       []int
	words         [2]int // a text has words[0] + rnd(words[1]) pieces of vocab
	limit, around int    // the options are drawn below these
	limitWords    [2]int // limit_words is rnd(a) * rnd(b)
}

// sameAsWalk highlights 300 texts of c with the shortcuts (skipping,
// sliding, gliding, weighing from counts) and by the unit-by-unit walk
// (noSkip), and requires the same snippets.
func sameAsWalk(t *testing.T, c walkCase) {
	t.Helper()
	seed := c.seed
	rnd := func(n int) int {
		seed = seed*6364136223846793005 + 1442695040888963407
		return int(seed>>33) % n
	}
	for round := range 300 {
		var b strings.Builder
		for range c.words[0] + rnd(c.words[1]) {
			b.WriteString(c.vocab[rnd(len(c.vocab))])
			b.WriteString(c.seps[rnd(len(c.seps))])
		}
		n := 1 + rnd(len(c.terms))
		fl := field(t, c.tok, b.String(), c.terms[:n]...)
		o := DefaultOptions()
		require.NoError(t, o.Set("limit", int64(rnd(c.limit))))
		require.NoError(t, o.Set("around", int64(rnd(c.around))))
		require.NoError(t, o.Set("limit_words", int64(rnd(c.limitWords[0])*rnd(c.limitWords[1]))))
		w := c.weights[:n]
		fast := Highlight(&Request{Fields: []Field{fl}, Weights: w, Options: &o})
		slow := Highlight(&Request{Fields: []Field{fl}, Weights: w, Options: &o, noSkip: true})
		require.Equal(t, slow.Join(), fast.Join(), "round %d", round)
	}
}

// BenchmarkSparse highlights long fields whose few matches lie far apart:
// the window skips the stretches without a mark.
func BenchmarkSparse(b *testing.B) {
	tok := tokenizer(b)
	for _, size := range []int{10 << 10, 100 << 10, 1 << 20} {
		text := strings.Repeat(brown+" ", size/len(brown)+1)[:size]
		text = text[:size/3] + " zebra " + text[size/3:2*size/3] + " zebra " + text[2*size/3:]
		fl := field(b, tok, text, "zebra")
		o := DefaultOptions()
		req := &Request{Fields: []Field{fl}, Weights: []int{5}, Options: &o, Stored: true}
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				res := Highlight(req)
				res.Join()
				res.Release() // (as HIGHLIGHT() does)
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

// TestPackedFieldWithoutRoom: in a JSON highlight (Pack) whose fields
// share one budget, a field with a match none of whose passages fits
// shows its beginning, as a field without a match does; allow_empty
// leaves it empty instead.
func TestPackedFieldWithoutRoom(t *testing.T) {
	tok := tokenizer(t)
	title := field(t, tok, "Long fox text", "fox")
	content := field(t, tok, "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog.", "fox")
	for _, tc := range []struct {
		allowEmpty bool
		want       [][]string
	}{
		{false, [][]string{{"Long fox text"}, {"The quick brown \x01fox\x02 jumps over the lazy "}}},
		{true, [][]string{nil, {"The quick brown \x01fox\x02 jumps over the lazy "}}},
	} {
		o := DefaultOptions()
		o.BeforeMatch, o.AfterMatch = "\x01", "\x02"
		o.Limit, o.LimitsPerField, o.AllowEmpty = 40, false, tc.allowEmpty
		res := Highlight(&Request{Fields: []Field{title, content}, Weights: []int{3}, Options: &o, Stored: true, Pack: true})
		require.Equal(t, tc.want, res.Strings(), "allow_empty %v", tc.allowEmpty)
		res.Release()
	}
}
