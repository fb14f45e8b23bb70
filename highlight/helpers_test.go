package highlight

import (
	"slices"
	"strings"
	"testing"

	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/index/tokenize/htmlstrip"
	"github.com/stretchr/testify/require"
)

// field tokenizes text with tok and marks every occurrence of the given
// terms; a term "a b" marks the phrase where it occurs.
func field(t testing.TB, tok *tokenize.Tokenizer, text string, terms ...string) Field {
	f, words := layoutOf(tok, text)
	f.Marks = marksOf(words, terms)
	return f
}

// layoutOf tokenizes text with tok: the field without marks, and its
// words (for marksOf).
func layoutOf(tok *tokenize.Tokenizer, text string) (Field, []tokenize.Token) {
	cfg := tok.Config()
	f := Field{Text: text, HTML: cfg.HTMLStrip}
	if cfg.HTMLStrip {
		// (As the SQL layer gives them.)
		f.StripOptions = &htmlstrip.Options{RemoveElements: cfg.HTMLRemoveElements, IndexAttrs: cfg.HTMLIndexAttrs, Zones: cfg.IndexZones}
	}
	if tok.Config().PhraseBoundary != "" {
		f.Boundaries = tok.IsPhraseBoundary
	}
	var words []tokenize.Token
	var it tokenize.Iter
	it.KeepStopwords(true) // as the matcher does for a highlighter
	it.Reset(tok, text)
	for it.Next() {
		if it.Blended() {
			f.AddBlend(it.Pos(), it.Start(), it.End())
		} else {
			f.Add(it.Pos(), it.Start(), it.End(), it.Term())
		}
		if tk := it.Token(); !tokenize.IsReserved(tk.Term) {
			words = append(words, tk)
		}
	}
	return f, words
}

// marksOf marks every occurrence of terms among words, in text order (as
// the matcher gives them); a term "a b" marks the phrase.
func marksOf(words []tokenize.Token, terms []string) []tokenize.Mark {
	var marks []tokenize.Mark
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
			for j := range parts {
				marks = append(marks, tokenize.Mark{Pos: words[i+j].Pos, Start: words[i+j].Start, End: words[i+j].End, Keyword: k})
			}
		}
	}
	slices.SortStableFunc(marks, func(x, y tokenize.Mark) int { return x.Start - y.Start })
	return marks
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
