package tokenize

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testFiles are the files the tests' settings name.
var testFiles = map[string]string{
	"/stop.txt":  "the, a\nof  an\n",
	"/forms.txt": "# comment\nwalks > walk\ngoing to > gonna\nUSA > united states\nnew york city > nyc\nnew york > ny\nran => run\n",
	"/exc.txt":   "AT&T => ATT\nC++ => cplusplus\nms  windows => ms windows\n.net => dotnet\n",
}

func readTestFile(path string) ([]byte, error) {
	if s, ok := testFiles[path]; ok {
		return []byte(s), nil
	}
	return nil, fs.ErrNotExist
}

// settings turns "name=value" strings into Settings.
func settings(kv ...string) []Setting {
	var out []Setting
	for _, s := range kv {
		name, value, ok := strings.Cut(s, "=")
		if !ok {
			panic("setting without '=': " + s)
		}
		out = append(out, Setting{Name: name, Value: value})
	}
	return out
}

// newTok returns the tokenizer of settings ("name=value").
func newTok(t testing.TB, kv ...string) *Tokenizer {
	t.Helper()
	c, err := ParseSettings(settings(kv...), readTestFile)
	require.NoError(t, err)
	tok, err := New(c)
	require.NoError(t, err)
	return tok
}

// tokenCase is a text and the tokens it gives.
type tokenCase struct {
	name string
	text string
	want []Token
}

func runTokenCases(t *testing.T, tok *Tokenizer, cases []tokenCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := tok.Append(nil, c.text)
			require.Equal(t, c.want, got, "%s", renderTokens(c.text, got))
			checkInvariants(t, c.text, got)
		})
	}
}

// renderTokens prints tokens for a failing test.
func renderTokens(text string, toks []Token) string {
	var b strings.Builder
	for _, tk := range toks {
		fmt.Fprintf(&b, "tk(%q, %d, %d, %d), // %q\n", tk.Term, tk.Pos, tk.Start, tk.End, text[tk.Start:tk.End])
	}
	return b.String()
}

// checkInvariants checks what every token list must satisfy.
func checkInvariants(t testing.TB, text string, toks []Token) {
	t.Helper()
	bounds := map[int]bool{len(text): true} // where characters (or invalid bytes) start
	for i := range text {
		bounds[i] = true
	}
	prev := 0
	for _, tk := range toks {
		if tk.Pos < prev || tk.Start < 0 || tk.End > len(text) || tk.Start > tk.End || tk.Term == "" {
			t.Fatalf("bad token %+v (previous position %d) in %q", tk, prev, text)
		}
		if !IsReserved(tk.Term) && tk.Pos < 1 {
			t.Fatalf("word at position %d: %+v in %q", tk.Pos, tk, text)
		}
		if !bounds[tk.Start] || !bounds[tk.End] {
			t.Fatalf("token %+v cuts a character of %q", tk, text)
		}
		prev = tk.Pos
	}
}

func TestCharsetTable(t *testing.T) {
	tok := newTok(t, "charset_table=0..9, A..Z->a..z, _, a..z, U+410..U+42F->U+430..U+44F, U+430..U+44F")
	runTokenCases(t, tok, []tokenCase{
		{"underscore joins", "snake_case x", []Token{tk("snake_case", 1, 0, 10), tk("x", 2, 11, 12)}},
		{"accents separate", "café Ünï", []Token{tk("caf", 1, 0, 3), tk("n", 2, 8, 9)}},
		{"cyrillic folded", "Привет МИР", []Token{tk("привет", 1, 0, 12), tk("мир", 2, 13, 19)}},
		{"yo is not listed", "ёж", []Token{tk("ж", 1, 2, 4)}},
		{"digits", "a1b2", []Token{tk("a1b2", 1, 0, 4)}},
	})
	t.Run("later entries override", func(t *testing.T) {
		tok := newTok(t, "charset_table=A..Z->a..z, a..z, B->x")
		require.Equal(t, []Token{tk("axc", 1, 0, 3)}, tok.Append(nil, "ABC"))
	})
	t.Run("aliases", func(t *testing.T) {
		tok := newTok(t, "charset_table=english, russian")
		require.Equal(t, []Token{tk("abc", 1, 0, 3), tk("ёжик", 2, 4, 12)}, tok.Append(nil, "ABC Ёжик"))
		tok = newTok(t, "charset_table=non_cjk")
		require.Equal(t, []Token{tk("ünï", 1, 0, 5), tk("x", 2, 13, 14)}, tok.Append(nil, "ÜNÏ 東京 x"))
		tok = newTok(t, "charset_table=non_cjk, cjk, U+2D")
		require.Equal(t, []Token{tk("a-b", 1, 0, 3), tk("東京", 2, 4, 10)}, tok.Append(nil, "A-B 東京"))
	})
	t.Run("literal non-ASCII and mapping to non-ASCII", func(t *testing.T) {
		tok := newTok(t, "charset_table=a..z, é, e->é")
		require.Equal(t, []Token{tk("éé", 1, 0, 3)}, tok.Append(nil, "eé"))
	})
}

func TestIgnoreChars(t *testing.T) {
	tok := newTok(t, "ignore_chars=U+AD, -")
	runTokenCases(t, tok, []tokenCase{
		{"soft hyphen joins", "soft\u00adhyphen", []Token{tk("softhyphen", 1, 0, 12)}},
		{"inside", "pre-fix", []Token{tk("prefix", 1, 0, 7)}},
		{"edges are outside the span", "-x-", []Token{tk("x", 1, 1, 2)}},
		{"alone it is nothing", "a - b", []Token{tk("a", 1, 0, 1), tk("b", 2, 4, 5)}},
	})
	t.Run("combining marks may be ignored under the default rules", func(t *testing.T) {
		tok := newTok(t, "ignore_chars=U+301")
		require.Equal(t, []Token{tk("ete", 1, 0, 5)}, tok.Append(nil, "e\u0301te"))
	})
}

func TestBlendChars(t *testing.T) {
	text := "a well-being b c++ -x- d --"
	cases := []struct {
		mode string
		want []Token
	}{
		{"", []Token{
			tk("a", 1, 0, 1), tk("well-being", 2, 2, 12), tk("well", 2, 2, 6), tk("being", 3, 7, 12),
			tk("b", 4, 13, 14), tk("c++", 5, 15, 18), tk("c", 5, 15, 16), tk("-x-", 6, 19, 22),
			tk("x", 6, 20, 21), tk("d", 7, 23, 24), tk("--", 8, 25, 27)}},
		{"trim_head", []Token{
			tk("a", 1, 0, 1), tk("well-being", 2, 2, 12), tk("well", 2, 2, 6), tk("being", 3, 7, 12),
			tk("b", 4, 13, 14), tk("c++", 5, 15, 18), tk("c", 5, 15, 16), tk("x-", 6, 20, 22),
			tk("x", 6, 20, 21), tk("d", 7, 23, 24)}},
		{"trim_tail", []Token{
			tk("a", 1, 0, 1), tk("well-being", 2, 2, 12), tk("well", 2, 2, 6), tk("being", 3, 7, 12),
			tk("b", 4, 13, 14), tk("c", 5, 15, 16), tk("-x", 6, 19, 21),
			tk("x", 6, 20, 21), tk("d", 7, 23, 24)}},
		{"trim_both", []Token{
			tk("a", 1, 0, 1), tk("well-being", 2, 2, 12), tk("well", 2, 2, 6), tk("being", 3, 7, 12),
			tk("b", 4, 13, 14), tk("c", 5, 15, 16),
			tk("x", 6, 20, 21), tk("d", 7, 23, 24)}},
		{"trim_all", []Token{
			tk("a", 1, 0, 1), tk("wellbeing", 2, 2, 12), tk("well", 2, 2, 6), tk("being", 3, 7, 12),
			tk("b", 4, 13, 14), tk("c", 5, 15, 16),
			tk("x", 6, 20, 21), tk("d", 7, 23, 24)}},
		{"trim_none, trim_all", []Token{
			tk("a", 1, 0, 1), tk("well-being", 2, 2, 12), tk("wellbeing", 2, 2, 12), tk("well", 2, 2, 6), tk("being", 3, 7, 12),
			tk("b", 4, 13, 14), tk("c++", 5, 15, 18), tk("c", 5, 15, 16), tk("-x-", 6, 19, 22),
			tk("x", 6, 20, 21), tk("d", 7, 23, 24), tk("--", 8, 25, 27)}},
		{"trim_none, trim_both, skip_pure", []Token{
			tk("a", 1, 0, 1), tk("well-being", 2, 2, 12), tk("well", 2, 2, 6), tk("being", 3, 7, 12),
			tk("b", 4, 13, 14), tk("c++", 5, 15, 18), tk("c", 5, 15, 16), tk("-x-", 6, 19, 22),
			tk("x", 6, 20, 21), tk("d", 7, 23, 24)}},
	}
	for _, c := range cases {
		t.Run("mode "+c.mode, func(t *testing.T) {
			kv := []string{"blend_chars=-, +"}
			if c.mode != "" {
				kv = append(kv, "blend_mode="+c.mode)
			}
			tok := newTok(t, kv...)
			got := tok.Append(nil, text)
			require.Equal(t, c.want, got, "%s", renderTokens(text, got))
		})
	}
	t.Run("Blended tells wholes from parts", func(t *testing.T) {
		var it Iter
		it.Reset(newTok(t, "blend_chars=-"), "x-y z")
		var got []string
		for it.Next() {
			got = append(got, fmt.Sprintf("%s/%v", it.Term(), it.Blended()))
		}
		require.Equal(t, []string{"x-y/true", "x/false", "y/false", "z/false"}, got)
	})
	t.Run("trim_all joins the parts of a token with blend characters inside and at its edges", func(t *testing.T) {
		tok := newTok(t, "blend_chars=+, @", "blend_mode=trim_all")
		require.Equal(t, []Token{tk("4th", 1, 0, 6), tk("4", 1, 1, 2), tk("th", 2, 3, 5), tk("zz", 3, 7, 9)},
			tok.Append(nil, "+4@th@ zz"))
	})
	t.Run("mapped blend characters", func(t *testing.T) {
		tok := newTok(t, "blend_chars=U+2019->'")
		require.Equal(t, []Token{tk("don't", 1, 0, 7), tk("don", 1, 0, 3), tk("t", 2, 6, 7)}, tok.Append(nil, "don\u2019t"))
	})
	t.Run("parts go through the pipeline", func(t *testing.T) {
		tok := newTok(t, "blend_chars=-", "stopwords=the", "morphology=stem_en")
		require.Equal(t, []Token{tk("the-run", 1, 0, 11), tk("run", 2, 4, 11), tk("x", 3, 12, 13)}, tok.Append(nil, "the-running x"))
	})
}

func TestMinWordLen(t *testing.T) {
	tok := newTok(t, "min_word_len=3")
	runTokenCases(t, tok, []tokenCase{
		{"short words keep their positions", "ab cat x dog zz", []Token{tk("cat", 2, 3, 6), tk("dog", 4, 9, 12)}},
		{"characters, not bytes", "ёж ёжи", []Token{tk("ёжи", 2, 5, 11)}},
	})
	t.Run("ngram characters are exempt", func(t *testing.T) {
		tok := newTok(t, "min_word_len=2", "ngram_len=1", "ngram_chars=cjk")
		require.Equal(t, []Token{tk("東", 1, 0, 3), tk("京", 2, 3, 6), tk("ab", 4, 9, 11)}, tok.Append(nil, "東京 a ab"))
	})
	t.Run("0 and 1 are the default", func(t *testing.T) {
		require.Nil(t, newTok(t, "min_word_len=1").r)
		require.Nil(t, newTok(t, "min_word_len=0").r)
	})
}

func TestStopwords(t *testing.T) {
	t.Run("inline", func(t *testing.T) {
		tok := newTok(t, "stopwords=the a, of")
		runTokenCases(t, tok, []tokenCase{
			{"positions are kept", "The cat of the hat the", []Token{tk("cat", 2, 4, 7), tk("hat", 5, 15, 18)}},
			{"only stopwords", "the of", nil},
		})
		require.True(t, tok.Stopword("the"))
		require.False(t, tok.Stopword("The"), "folded forms only")
		require.Equal(t, []string{"a", "of", "the"}, tok.Config().Stopwords)
	})
	t.Run("file", func(t *testing.T) {
		tok := newTok(t, "stopwords=/stop.txt")
		require.Equal(t, []string{"a", "an", "of", "the"}, tok.Config().Stopwords)
	})
	t.Run("files and words mixed", func(t *testing.T) {
		tok := newTok(t, "stopwords=/stop.txt, Zebra")
		require.Equal(t, []string{"a", "an", "of", "the", "zebra"}, tok.Config().Stopwords)
	})
	t.Run("an item with a dot is a file, one without is a word even if a file has its name", func(t *testing.T) {
		testFiles["words.txt"] = "zebra"
		testFiles["the"] = "hobbit"
		defer delete(testFiles, "words.txt")
		defer delete(testFiles, "the")
		tok := newTok(t, "stopwords=words.txt the")
		require.Equal(t, []string{"the", "zebra"}, tok.Config().Stopwords)
		_, err := ParseSettings(settings("stopwords=words.txt other.txt"), readTestFile)
		require.EqualError(t, err, "stopwords: cannot read 'other.txt': file does not exist")
	})
	t.Run("folded with the charset", func(t *testing.T) {
		tok := newTok(t, "stopwords=Don't ÉTÉ")
		require.Equal(t, []string{"don", "t", "été"}, tok.Config().Stopwords)
	})
	t.Run("stopword_step=0: the word after a stopword takes its position", func(t *testing.T) {
		text := "The cat of the hat the"
		want := []Token{tk("cat", 1, 4, 7), tk("hat", 2, 15, 18)}
		require.Equal(t, want, newTok(t, "stopwords=the a, of", "stopword_step=0").Append(nil, text), "lean path")
		require.Equal(t, want, newTok(t, "stopwords=the a, of", "stopword_step=0", "phrase_boundary=;").Append(nil, text), "general path")
		require.Equal(t, []Token{tk("cat", 2, 4, 7), tk("hat", 5, 15, 18)},
			newTok(t, "stopwords=the a, of", "stopword_step=1").Append(nil, text), "1 is the default")
		require.Equal(t, 0, newTok(t, "stopwords=the", "stopword_step=0").StopwordStep())
		require.Equal(t, 1, newTok(t, "stopwords=the").StopwordStep())
	})
	t.Run("stopword_step without stopwords changes nothing", func(t *testing.T) {
		require.Nil(t, newTok(t, "stopword_step=0").r)
	})
	t.Run("matched before stemming", func(t *testing.T) {
		tok := newTok(t, "stopwords=running", "morphology=stem_en")
		require.Equal(t, []Token{tk("run", 2, 8, 12), tk("run", 3, 13, 16)}, tok.Append(nil, "running runs run"))
	})
}

func TestMorphology(t *testing.T) {
	t.Run("stem_en is Porter2, which Sphinx's stem_en agrees with on these", func(t *testing.T) {
		tok := newTok(t, "morphology=stem_en")
		var terms []string
		for _, tk := range tok.Append(nil, "generously dying knightly skies news cats running happily") {
			terms = append(terms, tk.Term)
		}
		require.Equal(t, []string{"generous", "die", "knight", "sky", "news", "cat", "run", "happili"}, terms)
	})
	t.Run("porter is Porter 1980", func(t *testing.T) {
		require.Equal(t, []Token{tk("gener", 1, 0, 10)}, newTok(t, "morphology=porter").Append(nil, "generously"))
	})
	t.Run("first stemmer that changes the word wins", func(t *testing.T) {
		terms := func(m string) string {
			var out []string
			for _, tk := range newTok(t, "morphology="+m).Append(nil, "bearers kinder cats") {
				out = append(out, tk.Term)
			}
			return strings.Join(out, " ")
		}
		require.Equal(t, "bearer kind cat", terms("stem_en, libstemmer_de"))
		require.Equal(t, "bear kind cat", terms("libstemmer_german, stem_en"))
	})
	t.Run("stem_enru", func(t *testing.T) {
		tok := newTok(t, "morphology=stem_enru")
		require.Equal(t, []string{"stem_en", "stem_ru"}, tok.Config().Morphology)
		require.Equal(t, []Token{tk("cat", 1, 0, 4), tk("кошк", 2, 5, 19)}, tok.Append(nil, "cats кошками"))
	})
	t.Run("none", func(t *testing.T) {
		tok := newTok(t, "morphology=none")
		require.Nil(t, tok.r)
	})
}

func TestIndexExactWords(t *testing.T) {
	tok := newTok(t, "morphology=stem_en", "index_exact_words=1")
	runTokenCases(t, tok, []tokenCase{
		{"every word", "Running dogs", []Token{
			tk("run", 1, 0, 7), tk(exactTerm("running"), 1, 0, 7),
			tk("dog", 2, 8, 12), tk(exactTerm("dogs"), 2, 8, 12)}},
	})
	require.Equal(t, exactTerm("running"), tok.Exact("Running"))
	require.Equal(t, "run", newTok(t, "morphology=stem_en").Exact("Running"), "no exact forms: the ordinary term")
	t.Run("without morphology it resolves to off", func(t *testing.T) {
		tok := newTok(t, "index_exact_words=1")
		require.False(t, tok.Config().IndexExactWords)
		require.Equal(t, "running", tok.Exact("Running"))
	})
	t.Run("with wordforms only", func(t *testing.T) {
		tok := newTok(t, "wordforms=/forms.txt", "index_exact_words=1")
		require.True(t, tok.Config().IndexExactWords)
		require.Equal(t, []Token{tk("walk", 1, 0, 5), tk(exactTerm("walks"), 1, 0, 5), tk("x", 2, 6, 7), tk(exactTerm("x"), 2, 6, 7)},
			tok.Append(nil, "walks x"))
	})
}

func TestMorphWordforms(t *testing.T) {
	testFiles["/tilde.txt"] = "~walks > stroll\nruns > sprint\n"
	defer delete(testFiles, "/tilde.txt")
	t.Run("with morphology a ~ form maps every word of the source's stem", func(t *testing.T) {
		tok := newTok(t, "wordforms=/tilde.txt", "morphology=stem_en")
		require.Equal(t, []Wordform{{From: "walks", To: "stroll", Morph: true}, {From: "runs", To: "sprint"}}, tok.Config().Wordforms)
		require.Equal(t, []Token{tk("stroll", 1, 0, 7), tk("stroll", 2, 8, 14), tk("stroll", 3, 15, 19),
			tk("sprint", 4, 20, 24), tk("run", 5, 25, 32)}, tok.Append(nil, "walking walked walk runs running"))
	})
	t.Run("without morphology a ~ form is an ordinary form", func(t *testing.T) {
		tok := newTok(t, "wordforms=/tilde.txt")
		require.Equal(t, []Token{tk("walking", 1, 0, 7), tk("stroll", 2, 8, 13)}, tok.Append(nil, "walking walks"))
	})
	t.Run("a ~ form takes one source word", func(t *testing.T) {
		testFiles["/tilde2.txt"] = "~walk fast > hurry\n"
		defer delete(testFiles, "/tilde2.txt")
		_, err := ParseSettings(settings("wordforms=/tilde2.txt"), readTestFile)
		require.EqualError(t, err, "wordforms: /tilde2.txt:1: a '~' form (matched after morphology) takes one source word")
	})
}

func TestWordforms(t *testing.T) {
	tok := newTok(t, "wordforms=/forms.txt", "morphology=stem_en", "index_exact_words=1")
	require.Equal(t, []Wordform{
		{From: "walks", To: "walk"}, {From: "going to", To: "gonna"}, {From: "usa", To: "united states"},
		{From: "new york city", To: "nyc"}, {From: "new york", To: "ny"}, {From: "ran", To: "run"},
	}, tok.Config().Wordforms)
	runTokenCases(t, tok, []tokenCase{
		{"single word, not stemmed further", "Walks walking", []Token{
			tk("walk", 1, 0, 5), tk(exactTerm("walks"), 1, 0, 5),
			tk("walk", 2, 6, 13), tk(exactTerm("walking"), 2, 6, 13)}},
		{"multi-word source takes one position", "going to go", []Token{
			tk("gonna", 1, 0, 8), tk("go", 2, 9, 11), tk(exactTerm("go"), 2, 9, 11)}},
		{"multi-word destination takes several", "USA now", []Token{
			tk("united", 1, 0, 3), tk(exactTerm("usa"), 1, 0, 3), tk("states", 2, 0, 3),
			tk("now", 3, 4, 7), tk(exactTerm("now"), 3, 4, 7)}},
		{"longest source wins", "New  York City, new york", []Token{tk("nyc", 1, 0, 14), tk("ny", 2, 16, 24)}},
		{"punctuation that is no boundary does not stop a match", "new york, city", []Token{tk("nyc", 1, 0, 14)}},
		{"partial multi-word match backs up", "going home", []Token{
			tk("go", 1, 0, 5), tk(exactTerm("going"), 1, 0, 5), tk("home", 2, 6, 10), tk(exactTerm("home"), 2, 6, 10)}},
	})
	t.Run("not across a phrase boundary", func(t *testing.T) {
		tok := newTok(t, "wordforms=/forms.txt", "phrase_boundary=U+2C")
		require.Equal(t, []Token{tk("going", 1, 0, 5), tk("to", 2, 7, 9)}, tok.Append(nil, "going, to"))
		require.Equal(t, []Token{tk("gonna", 1, 0, 9)}, tok.Append(nil, "going. to"))
	})
}

func TestExceptions(t *testing.T) {
	tok := newTok(t, "exceptions=/exc.txt")
	runTokenCases(t, tok, []tokenCase{
		{"case-sensitive", "at&t AT&T", []Token{tk("at", 1, 0, 2), tk("t", 2, 3, 4), tk("ATT", 3, 5, 9)}},
		{"word boundaries", "xC++ C++x AT&Tx", []Token{
			tk("xc", 1, 0, 2), tk("cplusplus", 2, 5, 8), tk("x", 3, 8, 9), tk("at", 4, 10, 12), tk("tx", 5, 13, 15)}},
		{"any white space", "MS windows ms \n windows", []Token{tk("ms", 1, 0, 2), tk("windows", 2, 3, 10), tk("ms windows", 3, 11, 23)}},
		{"starts with a separator", "asp.net .net", []Token{tk("asp", 1, 0, 3), tk("dotnet", 2, 3, 7), tk("dotnet", 3, 8, 12)}},
	})
	t.Run("destination is stemmed", func(t *testing.T) {
		testFiles["/exc2.txt"] = "Running => runnings\n"
		defer delete(testFiles, "/exc2.txt")
		tok := newTok(t, "exceptions=/exc2.txt", "morphology=stem_en")
		require.Equal(t, []Token{tk("run", 1, 0, 7), tk("run", 2, 8, 15)}, tok.Append(nil, "Running running"))
	})
}

func TestPhraseBoundary(t *testing.T) {
	tok := newTok(t, "phrase_boundary=., ?, !, U+2026", "phrase_boundary_step=100")
	runTokenCases(t, tok, []tokenCase{
		{"once per gap", "one. two.. three\u2026 ! four", []Token{
			tk("one", 1, 0, 3), tk("two", 102, 5, 8), tk("three", 203, 11, 16), tk("four", 304, 22, 26)}},
		{"not before the first word nor after the last", ". one .", []Token{tk("one", 1, 2, 5)}},
	})
}

func TestNgrams(t *testing.T) {
	tok := newTok(t, "ngram_len=1", "ngram_chars=cjk")
	runTokenCases(t, tok, []tokenCase{
		{"each its own word", "abc東京def 大 x東", []Token{
			tk("abc", 1, 0, 3), tk("東", 2, 3, 6), tk("京", 3, 6, 9), tk("def", 4, 9, 12),
			tk("大", 5, 13, 16), tk("x", 6, 17, 18), tk("東", 7, 18, 21)}},
		{"with combining marks", "か\u3099き", []Token{tk("か\u3099", 1, 0, 6), tk("き", 2, 6, 9)}},
	})
	t.Run("explicit ranges and mappings", func(t *testing.T) {
		tok := newTok(t, "ngram_len=1", "ngram_chars=U+FF10..U+FF19->0..9")
		require.Equal(t, []Token{tk("ab", 1, 0, 2), tk("1", 2, 2, 5), tk("2", 3, 5, 8)}, tok.Append(nil, "ab１２"))
	})
}

func TestIndexSP(t *testing.T) {
	tok := newTok(t, "index_sp=1")
	s, p := SentenceTerm, ParagraphTerm
	runTokenCases(t, tok, []tokenCase{
		{"full stop then capital", "aa World. Bb", []Token{tk("aa", 1, 0, 2), tk("world", 2, 3, 8), tk(s, 3, 10, 10), tk("bb", 3, 10, 12)}},
		{"no capital, no sentence", "aa. bb", []Token{tk("aa", 1, 0, 2), tk("bb", 2, 4, 6)}},
		{"no white space, no sentence", "aa.Bb 3.14", []Token{tk("aa", 1, 0, 2), tk("bb", 2, 3, 5), tk("3", 3, 6, 7), tk("14", 4, 8, 10)}},
		{"abbreviations", "Mr. Smith and J. Doe", []Token{
			tk("mr", 1, 0, 2), tk("smith", 2, 4, 9), tk("and", 3, 10, 13), tk("j", 4, 14, 15), tk("doe", 5, 17, 20)}},
		{"three letters are a word", "IBM. Next", []Token{tk("ibm", 1, 0, 3), tk(s, 2, 5, 5), tk("next", 2, 5, 9)}},
		{"question and exclamation marks always", "why? because!so", []Token{
			tk("why", 1, 0, 3), tk(s, 2, 5, 5), tk("because", 2, 5, 12), tk(s, 3, 13, 13), tk("so", 3, 13, 15)}},
		{"closing punctuation", `he said "no." Then`, []Token{
			tk("he", 1, 0, 2), tk("said", 2, 3, 7), tk("no", 3, 9, 11), tk(s, 4, 14, 14), tk("then", 4, 14, 18)}},
		{"one boundary per gap", "end... ! Next", []Token{tk("end", 1, 0, 3), tk(s, 2, 9, 9), tk("next", 2, 9, 13)}},
		{"blank line is a paragraph", "one\n \r\ntwo\nthree", []Token{
			tk("one", 1, 0, 3), tk(p, 2, 7, 7), tk(s, 2, 7, 7), tk("two", 2, 7, 10), tk("three", 3, 11, 16)}},
		{"no boundary before the first word", "\n\n. Hello", []Token{tk("hello", 1, 4, 9)}},
		{"CJK full stop", "東京。大阪", []Token{tk("東京", 1, 0, 6), tk(s, 2, 9, 9), tk("大阪", 2, 9, 15)}},
	})
	t.Run("trailing boundaries do not move Pos", func(t *testing.T) {
		var it Iter
		it.Reset(tok, "One. Two.\n\n")
		for it.Next() {
		}
		require.Equal(t, 2, it.Pos())
	})
}

func TestPosAfterEnd(t *testing.T) {
	cases := []struct {
		settings []string
		text     string
		want     int
	}{
		{nil, "a b c", 3},
		{nil, "", 0},
		{[]string{"stopwords=the"}, "the cat the", 2},
		{[]string{"stopwords=the"}, "the the", 0},
		{[]string{"min_word_len=3"}, "cat a", 1},
		{[]string{"blend_chars=-"}, "a b-c", 3},
		{[]string{"phrase_boundary=.", "phrase_boundary_step=10"}, "a. b.", 12},
		{[]string{"wordforms=/forms.txt"}, "x usa", 3},
	}
	for _, c := range cases {
		var it Iter
		it.Reset(newTok(t, c.settings...), c.text)
		for it.Next() {
		}
		require.Equal(t, c.want, it.Pos(), "%v %q", c.settings, c.text)
	}
}

func TestFoldAndIsWordRune(t *testing.T) {
	def := Default()
	require.Equal(t, "héllo wörld-42*", def.Fold("HÉllo WÖRLD-42*"))
	require.True(t, def.IsWordRune('a'))
	require.True(t, def.IsWordRune('\u0301'), "combining marks continue words")
	require.False(t, def.IsWordRune('-'))
	require.False(t, def.IsWordRune(-1))

	tok := newTok(t, "charset_table=english", "ignore_chars=U+AD", "blend_chars=-", "ngram_len=1", "ngram_chars=U+4E00..U+9FFF", "phrase_boundary=.")
	require.Equal(t, "abc-x.é東", tok.Fold("A\u00adBC-X.é東"))
	for r, want := range map[rune]bool{'a': true, 'A': true, '-': true, 0xAD: true, '東': true, '.': false, 'é': false, ' ': false} {
		require.Equal(t, want, tok.IsWordRune(r), "%q", r)
	}
}

func TestExact(t *testing.T) {
	require.Equal(t, "hello", Default().Exact("Hello"))
	require.Equal(t, "", newTok(t, "stopwords=the").Exact("the"))
	tok := newTok(t, "morphology=stem_en", "index_exact_words=1", "blend_chars=-")
	require.Equal(t, exactTerm("well-being"), tok.Exact("Well-Being"))
}

func TestConcurrentUse(t *testing.T) {
	tok := newTok(t, "morphology=stem_en", "stopwords=the", "blend_chars=-", "index_sp=1")
	text := englishText(2000)
	want := tok.Append(nil, text)
	done := make(chan []Token)
	for range 4 {
		go func() { done <- tok.Append(nil, text) }()
	}
	for range 4 {
		require.Equal(t, want, <-done)
	}
}

func TestIterReuseAcrossTokenizers(t *testing.T) {
	toks := []*Tokenizer{Default(), newTok(t, "morphology=stem_en"), newTok(t, "blend_chars=-"), Default(), newTok(t, "morphology=stem_ru")}
	text := "Running dogs well-being кошками"
	var it Iter
	for _, tok := range toks {
		var got []Token
		it.Reset(tok, text)
		for it.Next() {
			got = append(got, it.Token())
		}
		require.Equal(t, tok.Append(nil, text), got)
	}
}

// exactTerm is the term under which index_exact_words indexes the exact
// (case-folded, unstemmed) form of a word.
func exactTerm(folded string) string { return string(exactMark) + folded }
