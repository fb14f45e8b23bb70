package tokenize

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseSettingsErrors(t *testing.T) {
	cases := []struct {
		settings []string
		want     string
	}{
		{[]string{"charset_table=a..z, z..a"}, "charset_table: range 'z..a' ends before it starts (at offset 6)"},
		{[]string{"charset_table= "}, "charset_table: empty (leave it out for the default: letters and digits)"},
		{[]string{"ignore_chars=a->b"}, "ignore_chars: mappings ('->') are not allowed here (at offset 1)"},
		{[]string{"phrase_boundary=cjk"}, "phrase_boundary: alias 'cjk' is not allowed here (at offset 0)"},
		{[]string{"min_word_len=-1"}, "min_word_len: '-1' is not a non-negative integer"},
		{[]string{"min_word_len=two"}, "min_word_len: 'two' is not a non-negative integer"},
		{[]string{"min_word_len=200"}, "min_word_len: 200 is more than 128"},
		{[]string{"ngram_len=2", "ngram_chars=cjk"}, "ngram_len: 2 is more than 1"},
		{[]string{"ngram_len=1"}, "ngram_len: needs ngram_chars (for example ngram_chars='cjk')"},
		{[]string{"ngram_chars=cjk"}, "ngram_chars: needs ngram_len=1"},
		{[]string{"html_strip=yes"}, "html_strip: 'yes' is not 0 or 1"},
		{[]string{"index_sp=2"}, "index_sp: '2' is not 0 or 1"},
		{[]string{"blend_chars=-", "blend_mode=trim_every"}, "blend_mode: unknown value 'trim_every' (supported: trim_none, trim_head, trim_tail, trim_both, trim_all, skip_pure)"},
		{[]string{"blend_chars=-", "blend_mode=skip_pure"}, "blend_mode: skip_pure needs at least one of trim_none, trim_head, trim_tail, trim_both, trim_all"},
		{[]string{"blend_chars=-", "blend_mode=trim_all, skip_pure"}, ""},
		{[]string{"blend_chars=-", "blend_mode=trim_head, trim_head"}, "blend_mode: 'trim_head' is listed twice"},
		{[]string{"blend_mode=trim_head"}, "blend_mode: needs blend_chars"},
		{[]string{"blend_chars=a"}, "blend_chars: U+0061 'a' is also in the default charset (letters and digits)"},
		{[]string{"charset_table=a..z, -", "blend_chars=-"}, "blend_chars: U+002D '-' is also in charset_table"},
		{[]string{"ignore_chars=-", "blend_chars=-"}, "blend_chars: U+002D '-' is also in ignore_chars"},
		{[]string{"ignore_chars=-, -"}, "ignore_chars: U+002D '-' is listed twice"},
		{[]string{"ngram_len=1", "ngram_chars=cjk", "ignore_chars=U+6771"}, "ignore_chars: U+6771 '東' is also in ngram_chars"},
		{[]string{"phrase_boundary=."}, ""},
		{[]string{"phrase_boundary=a"}, "phrase_boundary: U+0061 'a' is also in the default charset (letters and digits)"},
		{[]string{"phrase_boundary_step=3"}, "phrase_boundary_step: needs phrase_boundary"},
		{[]string{"morphology=stem_en, soundex"}, "morphology: unknown value 'soundex' (supported: none, porter, stem_ar, stem_da, stem_de, stem_en, stem_es, stem_fi, stem_fr, stem_ga, stem_hu, stem_it, stem_nl, stem_no, stem_pt, stem_ro, stem_ru, stem_sv, stem_ta, stem_tr, stem_enru, libstemmer_<language>)"},
		{[]string{"morphology=stem_en, libstemmer_english"}, "morphology: 'stem_en' is listed twice"},
		{[]string{"morphology=none, stem_en"}, "morphology: 'none' cannot be combined with stemmers"},
		{[]string{"min_prefix_len=2", "min_infix_len=3"}, "min_infix_len: cannot be set together with min_prefix_len (infix indexing serves prefix wildcards too)"},
		{[]string{"index_zones=h1"}, "index_zones: needs html_strip=1"},
		{[]string{"html_strip=1", "index_zones=h1 h2"}, "index_zones: unexpected 'h', want ',' after a zone name (at offset 3)"},
		{[]string{"html_strip=1", "html_index_attrs=img"}, "html_index_attrs: want '=' after tag name img (at offset 3)"},
		{[]string{"html_strip=1", "html_remove_elements=1x"}, "html_remove_elements: unexpected '1', want a tag name (at offset 0)"},
		{[]string{"html_remove_elements=style"}, "html_remove_elements: needs html_strip=1"},
		{[]string{"stopwords=/missing.txt"}, "stopwords: cannot read '/missing.txt': file does not exist"},
		{[]string{"stopwords=en"}, "stopwords: 'en' names the reference's built-in stopword list for that language, which glint does not ship: write the words themselves (stopwords='a an the') or the path of a file of them"},
		{[]string{"stopwords=EN"}, "stopwords: 'EN' names the reference's built-in stopword list for that language, which glint does not ship: write the words themselves (stopwords='a an the') or the path of a file of them"},
		{[]string{"wordforms=/missing.txt"}, "wordforms: cannot read '/missing.txt': file does not exist"},
		{[]string{"wordforms=/forms.txt /missing.txt"}, "wordforms: cannot read '/missing.txt': file does not exist"},
		{[]string{"exceptions="}, "exceptions: no file named"},
		{[]string{"min_word_len=1", "MIN_WORD_LEN=2"}, "min_word_len: set twice"},
		{[]string{"stopword_step=2"}, "stopword_step: '2' is not 0 or 1"},
		{[]string{"expand_keywords=stars"}, "expand_keywords: unknown value 'stars' (supported: 0, 1, or a list of exact and star)"},
		{[]string{"expand_keywords=exact, exact"}, "expand_keywords: 'exact' is listed twice"},
		{[]string{"expand_keywords= "}, "expand_keywords: empty (0, 1, exact, star or exact,star)"},
		{[]string{"expand_keywords=2"}, "expand_keywords: unknown value '2' (supported: 0, 1, or a list of exact and star)"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.settings, " "), func(t *testing.T) {
			_, err := ParseSettings(settings(c.settings...), readTestFile)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, c.want)
			var se *SettingError
			require.True(t, errors.As(err, &se))
		})
	}
}

func TestExpandKeywordsValues(t *testing.T) {
	cases := []struct {
		value string
		want  Expansion
	}{
		{"0", 0},
		{"1", ExpandStar | ExpandExact},
		{"exact", ExpandExact},
		{"star", ExpandStar},
		{"STAR, exact", ExpandStar | ExpandExact},
		{"exact star", ExpandStar | ExpandExact},
	}
	for _, c := range cases {
		t.Run(c.value, func(t *testing.T) {
			cfg, err := ParseSettings(settings("expand_keywords="+c.value), nil)
			require.NoError(t, err)
			require.Equal(t, c.want, cfg.ExpandKeywords)
		})
	}
}

func TestParseSettingsFileErrors(t *testing.T) {
	cases := []struct {
		setting, file, want string
	}{
		{"wordforms", "a > b\nno arrow\n", "wordforms: /f.txt:2: no '>' between source and destination"},
		{"wordforms", "# c\n > b\n", "wordforms: /f.txt:2: no source word before '>'"},
		{"wordforms", "a > ...\n", "wordforms: /f.txt:1: no destination word after '>'"},
		{"wordforms", "a > b\n\nA > c\n", "wordforms: /f.txt:3: 'a' already maps to 'b' (/f.txt:1)"},
		{"wordforms", "a > b\nA > B\n", ""},
		{"wordforms", "~walk fast > hurry\n", "wordforms: /f.txt:1: a '~' form (matched after morphology) takes one source word"},
		{"wordforms", "a > \xff\n", "wordforms: /f.txt:1: invalid UTF-8"},
		{"exceptions", "a => b\nc -> d\n", "exceptions: /f.txt:2: no '=>' between source and destination"},
		{"exceptions", " => b\n", "exceptions: /f.txt:1: no source before '=>'"},
		{"exceptions", "a =>\n", "exceptions: /f.txt:1: no destination after '=>'"},
		{"exceptions", "a => b\x01\n", "exceptions: /f.txt:1: destination contains the control character U+0001"},
		{"exceptions", "a => " + strings.Repeat("x", 129) + "\n", "exceptions: /f.txt:1: destination '" + strings.Repeat("x", 129) + "' is longer than 128 bytes"},
		{"exceptions", "a => b\na => c\n", "exceptions: /f.txt:2: 'a' already maps to 'b' (/f.txt:1)"},
	}
	for _, c := range cases {
		t.Run(c.setting+" "+c.want, func(t *testing.T) {
			testFiles["/f.txt"] = c.file
			defer delete(testFiles, "/f.txt")
			_, err := ParseSettings(settings(c.setting+"=/f.txt"), readTestFile)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, c.want)
		})
	}
}

func TestParseSettingsResolves(t *testing.T) {
	c, err := ParseSettings(settings(
		"charset_table=english, U+E9", "ignore_chars=U+AD", "blend_chars=-, +", "blend_mode=skip_pure,trim_both",
		"min_word_len=2", "stopwords=The /stop.txt", "morphology=libstemmer_english", "index_exact_words=1",
		"wordforms=/forms.txt", "exceptions=/exc.txt", "min_prefix_len=3", "phrase_boundary=., ?",
		"phrase_boundary_step=5", "ngram_len=1", "ngram_chars=cjk", "index_sp=1",
		"rt_field=title", // not a tokenization setting: ignored
	), readTestFile)
	require.NoError(t, err)
	require.Equal(t, Config{
		CharsetTable:       "english, U+00E9",
		IgnoreChars:        "U+00AD",
		BlendChars:         "U+002D, U+002B",
		BlendMode:          "trim_both, skip_pure",
		MinWordLen:         2,
		Stopwords:          []string{"a", "an", "of", "the"},
		Morphology:         []string{"stem_en"},
		Wordforms:          []Wordform{{From: "walks", To: "walk"}, {From: "going to", To: "gonna"}, {From: "usa", To: "united states"}, {From: "new york city", To: "nyc"}, {From: "new york", To: "ny"}, {From: "ran", To: "run"}},
		Exceptions:         []Exception{{"AT&T", "ATT"}, {"C++", "cplusplus"}, {"ms windows", "ms windows"}, {".net", "dotnet"}},
		PhraseBoundary:     "U+002E, U+003F",
		PhraseBoundaryStep: 5,
		NgramLen:           1,
		NgramChars:         "cjk",
		MinPrefixLen:       3,
		IndexExactWords:    true,
		WildcardForms:      true, // (morphology with min_prefix_len)
		IndexSP:            true,
	}, c)
}

// TestConfigJSON checks that a Config survives the catalog (JSON) and
// tokenizes the same way after it.
func TestConfigJSON(t *testing.T) {
	text := "The Running dogs of the USA. Hello, well-being C++ and AT&T\u00ad! 東京タワー, ms windows. \n\nNext" +
		"<p>Some <b>HTML</b> with <img alt='a picture'><style>x</style>"
	cases := [][]string{
		nil,
		{"charset_table=non_cjk, U+5F", "ignore_chars=U+AD"},
		{"blend_chars=-, +", "blend_mode=trim_head, trim_tail"},
		{"min_word_len=3", "stopwords=the of"},
		{"stopwords=de la el en"}, // (words, though each is a language's code)
		{"morphology=stem_en, stem_ru", "index_exact_words=1", "wordforms=/forms.txt"},
		{"exceptions=/exc.txt", "min_infix_len=2"},
		{"phrase_boundary=., !", "phrase_boundary_step=10", "index_sp=1"},
		{"ngram_len=1", "ngram_chars=cjk", "charset_table=english"},
		{"html_strip=1", "index_sp=1", "index_zones=h*, b", "html_index_attrs=img=alt,title", "html_remove_elements=style"},
	}
	for _, kv := range cases {
		t.Run(strings.Join(kv, " "), func(t *testing.T) {
			c, err := ParseSettings(settings(kv...), readTestFile)
			require.NoError(t, err)
			b, err := json.Marshal(c)
			require.NoError(t, err)
			var back Config
			require.NoError(t, json.Unmarshal(b, &back))
			require.Equal(t, c, back, "%s", b)
			before, err := New(c)
			require.NoError(t, err)
			after, err := New(back)
			require.NoError(t, err)
			require.Equal(t, before.Append(nil, text), after.Append(nil, text))
			require.Equal(t, c, after.Config())
		})
	}
}

func TestNewChecksConfig(t *testing.T) {
	cases := []struct {
		c    Config
		want string
	}{
		{Config{CharsetTable: "z..a"}, "charset_table: range 'z..a' ends before it starts (at offset 0)"},
		{Config{NgramLen: 2, NgramChars: "cjk"}, "ngram_len: 2 is not 0 or 1"},
		{Config{Morphology: []string{"stem_xx"}}, "morphology: unknown stemmer 'stem_xx'"},
		{Config{BlendChars: "-", BlendMode: "bogus"}, "blend_mode: unknown value 'bogus' (supported: trim_none, trim_head, trim_tail, trim_both, trim_all, skip_pure)"},
		{Config{MinWordLen: -2}, "min_word_len: -2 is not between 0 and 128"},
		{Config{Wordforms: []Wordform{{From: "a", To: ""}}}, "wordforms: empty word in 'a > '"},
		{Config{Exceptions: []Exception{{"", "x"}}}, "exceptions: no source before '=>'"},
		{Config{IndexZones: []string{"h1"}}, "html_strip: index_zones, html_remove_elements and html_index_attrs need html_strip=1"},
	}
	for _, c := range cases {
		_, err := New(c.c)
		require.EqualError(t, err, c.want, "%+v", c.c)
	}
}
