package tokenize

import (
	"sort"
	"strings"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/arabic"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/irish"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/porter"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/tamil"
	"github.com/blevesearch/snowballstem/turkish"
)

// stemmer is one Snowball stemmer.
type stemmer struct {
	code string // ISO 639-1 code: stem_<code>
	name string // Snowball's name: libstemmer_<name>
	stem func(*snowballstem.Env) bool
	// keepsHead: the stem of a word that starts with a lower-case ASCII
	// letter or digit starts with the same byte, and is never longer
	// than the word. Then a word can be known not to give a term
	// without stemming it (Filter.MaybeStem). Set only where the
	// algorithm shows it: English (Porter2) and Porter change a word's
	// end alone, by deleting a suffix or by putting a suffix no longer
	// than it in its place; their front changes (a leading apostrophe
	// dropped, 'y' marked as 'Y' and unmarked) leave such a word's first
	// byte as it is. TestKeepsHead checks them on many words.
	keepsHead bool
}

// stemmers are the Snowball stemmers, by canonical morphology name.
var stemmers = map[string]stemmer{
	"stem_ar": {"ar", "arabic", arabic.Stem, false},
	"stem_da": {"da", "danish", danish.Stem, false},
	"stem_nl": {"nl", "dutch", dutch.Stem, false},
	"stem_en": {"en", "english", english.Stem, true},
	"stem_fi": {"fi", "finnish", finnish.Stem, false},
	"stem_fr": {"fr", "french", french.Stem, false},
	"stem_de": {"de", "german", german.Stem, false},
	"stem_hu": {"hu", "hungarian", hungarian.Stem, false},
	"stem_ga": {"ga", "irish", irish.Stem, false},
	"stem_it": {"it", "italian", italian.Stem, false},
	"stem_no": {"no", "norwegian", norwegian.Stem, false},
	"stem_pt": {"pt", "portuguese", portuguese.Stem, false},
	"stem_ro": {"ro", "romanian", romanian.Stem, false},
	"stem_ru": {"ru", "russian", russian.Stem, false},
	"stem_es": {"es", "spanish", spanish.Stem, false},
	"stem_sv": {"sv", "swedish", swedish.Stem, false},
	"stem_ta": {"ta", "tamil", tamil.Stem, false},
	"stem_tr": {"tr", "turkish", turkish.Stem, false},
	// The original Porter (1980) algorithm; stem_en is its successor, Porter2.
	"porter": {"", "porter", porter.Stem, true},
}

// morphologyNames maps every accepted spelling to canonical names.
var morphologyNames = func() map[string][]string {
	m := map[string][]string{
		"stem_enru": {"stem_en", "stem_ru"},
		"stem_ruen": {"stem_ru", "stem_en"},
	}
	for canon, s := range stemmers {
		m[canon] = []string{canon}
		m["libstemmer_"+s.name] = []string{canon}
		if s.code != "" {
			m["libstemmer_"+s.code] = []string{canon}
		}
	}
	return m
}()

// parseMorphology resolves the morphology setting into canonical stemmer
// names, in order.
func parseMorphology(value string) ([]string, error) {
	var out []string
	none := false
	for _, f := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
		name := strings.ToLower(f)
		if name == "none" {
			none = true
			continue
		}
		canon, ok := morphologyNames[name]
		if !ok {
			return nil, settingErr("morphology", "unknown value '%s' (supported: none, %s)", f, strings.Join(supportedMorphology(), ", "))
		}
		for _, c := range canon {
			for _, have := range out {
				if have == c {
					return nil, settingErr("morphology", "'%s' is listed twice", c)
				}
			}
			out = append(out, c)
		}
	}
	if none && len(out) > 0 {
		return nil, settingErr("morphology", "'none' cannot be combined with stemmers")
	}
	return out, nil
}

func supportedMorphology() []string {
	var names []string
	for canon := range stemmers {
		names = append(names, canon)
	}
	sort.Strings(names)
	return append(names, "stem_enru", "libstemmer_<language>")
}

// stemWith applies the stemmers in order to word; the first that changes the
// word gives the result (so stem_en, stem_ru stems English words with the
// English stemmer and Russian words with the Russian one). env is scratch.
func stemWith(fns []func(*snowballstem.Env) bool, env *snowballstem.Env, word string) string {
	for _, fn := range fns {
		env.SetCurrent(word)
		fn(env)
		if s := env.Current(); s != word && s != "" {
			return s
		}
	}
	return word
}
