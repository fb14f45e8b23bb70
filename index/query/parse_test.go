package query

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/internal/golden"
	"github.com/stretchr/testify/require"
)

// tokenizers returns the tokenizers that the cases "tokenizer name=NAME
// SETTINGS" of testdata/parse.txt make, and "default", tokenize.Default().
// A setting's values are joined again by ", " (a value with commas or blanks
// is written in parentheses).
func tokenizers(t testing.TB) map[string]*tokenize.Tokenizer {
	toks := map[string]*tokenize.Tokenizer{"default": tokenize.Default()}
	for _, d := range golden.Cases(t, "testdata/parse.txt") {
		if d.Cmd != "tokenizer" {
			continue
		}
		var name string
		var settings []tokenize.Setting
		for _, arg := range d.CmdArgs {
			if arg.Key == "name" {
				name = arg.SingleVal(t)
				continue
			}
			settings = append(settings, tokenize.Setting{Name: arg.Key, Value: strings.Join(arg.Vals, ", ")})
		}
		require.NotEmpty(t, name, "%s: a tokenizer needs name=NAME", d.Pos)
		require.NotContains(t, toks, name, "%s: tokenizer %s made twice", d.Pos, name)
		cfg, err := tokenize.ParseSettings(settings, nil)
		require.NoError(t, err, d.Pos)
		tok, err := tokenize.New(cfg)
		require.NoError(t, err, d.Pos)
		toks[name] = tok
	}
	return toks
}

// TestParseGolden parses the query of every case "parse" of
// testdata/parse.txt (see package internal/golden) and prints its tree, or
// the error.
func TestParseGolden(t *testing.T) {
	toks := tokenizers(t)
	golden.Run(t, "testdata/parse.txt", func(t *testing.T, d *golden.TestData) string {
		if d.Cmd == "tokenizer" {
			return "" // made by tokenizers
		}
		text, tok := parseCase(t, d, toks)
		n, err := Parse(text, tok)
		if err != nil {
			return "error: " + err.Error()
		}
		if err := check(n, text); err != nil {
			t.Errorf("%s: %v", d.Pos, err)
		}
		return String(n)
	})
}

// parseCase reads a case "parse tok=NAME [quoted]": the query (a Go string
// when quoted) and the tokenizer named.
func parseCase(t testing.TB, d *golden.TestData, toks map[string]*tokenize.Tokenizer) (string, *tokenize.Tokenizer) {
	require.Equal(t, "parse", d.Cmd, d.Pos)
	var name string
	d.ScanArgs(t, "tok", &name)
	tok := toks[name]
	require.NotNil(t, tok, "%s: no tokenizer %q", d.Pos, name)
	text := d.Input
	if d.HasArg("quoted") {
		var err error
		text, err = strconv.Unquote(text)
		require.NoError(t, err, d.Pos)
	}
	return text, tok
}

// check verifies the invariants of a parsed tree: NOT only under AND beside
// a positive child, no empty or single-child AND/OR, offsets inside the
// text, keywords with terms.
func check(n Node, text string) error {
	var err error
	var visit func(n Node, parentAnd bool)
	visit = func(n Node, parentAnd bool) {
		if err != nil {
			return
		}
		if n == nil {
			err = fmt.Errorf("an operand is missing (nil node)")
			return
		}
		if p := Offset(n); p < 0 || p > len(text) {
			err = fmt.Errorf("offset %d outside the query", p)
		}
		switch n := n.(type) {
		case Keyword:
			if n.Term == "" || n.QPos < 1 || n.Boost < 0 {
				err = fmt.Errorf("bad keyword %+v", n)
			}
		case Not:
			if !parentAnd {
				err = fmt.Errorf("NOT outside AND")
			}
			visit(n.Child, false)
		case And:
			positive := 0
			for _, c := range n.Children {
				if _, ok := c.(Not); !ok {
					positive++
				}
				visit(c, true)
			}
			if positive == 0 || len(n.Children) < 2 {
				err = fmt.Errorf("AND with %d children, %d positive", len(n.Children), positive)
			}
		case Or:
			if len(n.Children) < 2 {
				err = fmt.Errorf("OR with %d children", len(n.Children))
			}
			for _, c := range n.Children {
				visit(c, false)
			}
		case Phrase:
			if len(n.Words) < 2 {
				err = fmt.Errorf("phrase of %d words", len(n.Words))
			}
			for _, w := range n.Words {
				visit(w, false)
			}
		case Proximity:
			if len(n.Words) < 2 || n.Distance < 0 {
				err = fmt.Errorf("proximity of %d words within %d", len(n.Words), n.Distance)
			}
			for _, w := range n.Words {
				visit(w, false)
			}
		case Quorum:
			if len(n.Words) < 2 || (n.Count > 0) == (n.Fraction > 0) || n.Fraction > 1 {
				err = fmt.Errorf("quorum of %d words, count %d, fraction %g", len(n.Words), n.Count, n.Fraction)
			}
			for _, w := range n.Words {
				visit(w, false)
			}
		case Near:
			if n.Distance < 1 {
				err = fmt.Errorf("NEAR/%d", n.Distance)
			}
			visit(n.Left, false)
			visit(n.Right, false)
		case NotNear:
			if n.Distance < 1 {
				err = fmt.Errorf("NOTNEAR/%d", n.Distance)
			}
			visit(n.Left, false)
			visit(n.Right, false)
		case Maybe:
			visit(n.Left, false)
			visit(n.Right, false)
		case Before:
			if e := atLeastTwo("BEFORE", n.Children); e != nil {
				err = e
			}
			for _, c := range n.Children {
				visit(c, false)
			}
		case Sentence:
			if e := atLeastTwo("SENTENCE", n.Children); e != nil {
				err = e
			}
			for _, c := range n.Children {
				visit(c, false)
			}
		case Paragraph:
			if e := atLeastTwo("PARAGRAPH", n.Children); e != nil {
				err = e
			}
			for _, c := range n.Children {
				visit(c, false)
			}
		case Zone:
			if len(n.Names) == 0 {
				err = fmt.Errorf("zone without names")
			}
			visit(n.Child, false)
		case Field:
			if n.MaxPos < 0 || n.Negate && len(n.Fields) == 0 {
				err = fmt.Errorf("bad field limit %+v", n)
			}
			visit(n.Child, false)
		default:
			err = fmt.Errorf("unknown node %T", n)
		}
	}
	if n == nil {
		return nil
	}
	visit(n, false)
	return err
}

func atLeastTwo(op string, ns []Node) error {
	if len(ns) < 2 {
		return fmt.Errorf("%s with %d children", op, len(ns))
	}
	return nil
}

func TestParseLimits(t *testing.T) {
	tok := tokenize.Default()
	for _, c := range []struct {
		name, text, want string
	}{
		{"deep parentheses", strings.Repeat("(", 100000) + "a" + strings.Repeat(")", 100000), "nests more than 100 levels"},
		{"deep NOT", "a " + strings.Repeat("-(", 5000) + "b" + strings.Repeat(")", 5000), "nests more than 100 levels"},
		{"many words", strings.Repeat("w ", 50000), "more than 10000 keywords"},
		{"many ORs", "x" + strings.Repeat(" | w", 50000), "more than 10000 keywords"},
		{"deep parentheses around many words", strings.Repeat("(", 100000) + strings.Repeat("w ", 5000) + strings.Repeat(")", 100000), "nests more than 100 levels"},
		{"many words then deep parentheses", strings.Repeat("w ", 50000) + strings.Repeat("(", 100000) + strings.Repeat(")", 100000), "more than 10000 keywords"},
		{"deep field limits", "a |" + strings.Repeat(" @title", 5000) + " b", "nests more than 100 levels"},
		{"deep NOT after an operator", "a | " + strings.Repeat("-", 5000) + "b", "nests more than 100 levels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse(c.text, tok)
			// Generous for -race on a loaded machine; a quadratic or
			// exponential path takes far longer.
			require.Less(t, time.Since(start), 5*time.Second)
			var pe *Error
			require.ErrorAs(t, err, &pe)
			require.Contains(t, err.Error(), c.want)
		})
	}
	n, err := Parse(strings.Repeat("(", 99)+"a b"+strings.Repeat(")", 99), tok)
	require.NoError(t, err)
	require.Equal(t, "AND(a@1, b@2)", String(n))
	_, err = Parse(strings.Repeat("junk! ", 200000), tok)
	require.ErrorContains(t, err, "more than 10000 keywords")

	// An alternation of a few thousand two-word groups (as the reference's
	// own tests send with CALL SNIPPETS) is well inside the limit.
	var b strings.Builder
	b.WriteString("fast")
	for i := 1; i < 1520; i++ {
		fmt.Fprintf(&b, " | ( word word%d)", i)
	}
	n, err = Parse(b.String(), tok)
	require.NoError(t, err)
	require.Len(t, keywords(nil, n), 3039)
}

func FuzzParse(f *testing.F) {
	toks := tokenizers(f)
	for _, c := range golden.Cases(f, "testdata/parse.txt") {
		if c.Cmd == "parse" {
			text, _ := parseCase(f, &c, toks)
			f.Add(text)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		for name, tok := range toks {
			n, err := Parse(text, tok)
			if err != nil {
				var pe *Error
				if !asError(err, &pe) || pe.Pos < 0 || pe.Pos > len(text) {
					t.Fatalf("%s: %q: error %v has no offset inside the text", name, text, err)
				}
				continue
			}
			if err := check(n, text); err != nil {
				t.Fatalf("%s: %q: %v: %s", name, text, err, String(n))
			}
			if len(keywords(nil, n)) > MaxKeywords {
				t.Fatalf("%s: %q: too many keywords", name, text)
			}
		}
	})
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	*target = e
	return ok
}

// TestParsePathological parses floods of one character. A quadratic path
// would run past the test timeout; the results must still be valid.
func TestParsePathological(t *testing.T) {
	const n = 1 << 20
	for _, text := range []string{
		strings.Repeat(",", n), strings.Repeat("- ", n/2), strings.Repeat(`"`, n), strings.Repeat("@", n),
		strings.Repeat("a", n), strings.Repeat(`\a`, n/2), strings.Repeat("(", n), strings.Repeat("^", n) + "a",
		strings.Repeat("a^", n/2), strings.Repeat(`"a`, n/2), strings.Repeat("a << ", n/5), strings.Repeat("a NEAR/1 ", n/9),
		`"` + strings.Repeat("a ", n/2), `"` + strings.Repeat("(a)", n/3), `"(a|b)` + strings.Repeat("(c)", n/3),
		`"` + strings.Repeat("(a|", n/3), `"` + strings.Repeat("|", n),
	} {
		n, err := Parse(text, tokenize.Default())
		if err == nil {
			require.NoError(t, check(n, text), "%.20q", text)
		}
	}
}

// TestParseExceptionWords: the source of an exception is read as one query
// word wherever it starts, even when it holds characters that otherwise
// separate words or are operators, because the tokenizer looks for
// exceptions first. A source of word characters only is an ordinary word.
func TestParseExceptionWords(t *testing.T) {
	requireTrees(t, tokenizerWithFile(t, "exceptions", ":) => smiley\nAT&T => att\nMS Windows => mswin\nWindows => win\n"), []treeCase{
		{":)cats|dogs", "AND(smiley@1, OR(cats@2, dogs@3))"},
		{"AT&T|MS Windows", "OR(att@1, mswin@2)"},
		{`"x :) y"`, "PHRASE(x@1 smiley@2 y@3)"},
		{`"buy AT&T now"`, "PHRASE(buy@1 att@2 now@3)"},
		{"Windows* rocks", "AND(windows*@1, rocks@2)"},
		{"a :)", "AND(a@1, smiley@2)"},
	})
}

// TestParseMultiWordForms: words of a query that begin a multi-word
// wordforms source, with blanks only between them, are mapped as one, as
// the words of a document are (new york > nyc): plain, in a phrase, in
// the middle of a query; the longest source wins; words with an operator,
// a wildcard or another separator between them stay words.
func TestParseMultiWordForms(t *testing.T) {
	requireTrees(t, tokenizerWithFile(t, "wordforms", "new york > nyc\nnew york city > bigapple\ngoing to > gonna\n"), []treeCase{
		{"new york", "nyc@1"},
		{"New  York", "nyc@1"},
		{`"i love new york"`, "PHRASE(i@1 love@2 nyc@3)"},
		{"love new york now", "AND(love@1, nyc@2, now@3)"},
		{"new york city", "bigapple@1"},
		{"new york cat", "AND(nyc@1, cat@2)"},
		{"new | york", "OR(new@1, york@2)"},
		{"new york*", "AND(new@1, york*@2)"},
		{"new, york", "AND(new@1, york@2)"},
		{"new", "new@1"},
		{"going to new york", "AND(gonna@1, nyc@2)"},
	})
}

// tokenizerWithFile is a tokenizer whose setting (exceptions, wordforms)
// names one file of the given text.
func tokenizerWithFile(t *testing.T, setting, text string) *tokenize.Tokenizer {
	t.Helper()
	cfg, err := tokenize.ParseSettings([]tokenize.Setting{{Name: setting, Value: "/" + setting + ".txt"}},
		func(string) ([]byte, error) { return []byte(text), nil })
	require.NoError(t, err)
	tok, err := tokenize.New(cfg)
	require.NoError(t, err)
	return tok
}

type treeCase struct{ query, want string }

// requireTrees checks that each query parses with tok into the tree want
// (as String writes it), a tree check finds right.
func requireTrees(t *testing.T, tok *tokenize.Tokenizer, cases []treeCase) {
	t.Helper()
	for _, c := range cases {
		n, err := Parse(c.query, tok)
		require.NoError(t, err, c.query)
		require.NoError(t, check(n, c.query), c.query)
		require.Equal(t, c.want, String(n), c.query)
	}
}
