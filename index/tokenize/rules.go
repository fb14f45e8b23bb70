package tokenize

import (
	"strings"

	"github.com/blevesearch/snowballstem"
)

// rules are a Tokenizer's settings, compiled by New for the general path of
// Iter (the default settings take the fast path in tokenize.go).
type rules struct {
	tab        *charTable
	blend      uint8 // blend_mode bits; 0 without blend_chars
	minLen     int   // min_word_len, in characters
	stop       map[string]struct{}
	stopPos    int                 // positions a stopword takes: stopword_step, 1 or 0
	forms      *formNode           // wordforms trie, or nil
	multiForms bool                // a wordforms source has several words
	morphForms map[string][]string // '~' wordforms with morphology: stem of the source -> destination words
	exc        *excMatcher         // exceptions, or nil
	stem       []func(*snowballstem.Env) bool
	stems      *stemCache // the stems of the words seen, shared by every Iter (and every tokenizer of the same morphology)
	// headKept: each stemmer keeps the first byte of a word that starts
	// with a lower-case ASCII letter or digit and never makes a word
	// longer (stemmer.keepsHead), so neither does the chain.
	headKept bool
	exact    bool // index_exact_words (with morphology or wordforms)
	step     int  // phrase_boundary_step
	sp       bool // index_sp
	html     htmlStripper
	// simple: no blend, ngram or phrase boundary characters, exceptions,
	// wordforms, index_sp or HTML; Iter then needs no queue (nextSimple).
	simple bool
	// asciiBlocks: simple, and the ASCII characters are what they are
	// under the default rules (letters and digits are word characters,
	// folded to lower case; the rest separate words): a word that lies
	// wholly in a block of ASCII text is then found as the default rules'
	// block scan finds it (Iter.blockWord), and is the same word.
	asciiBlocks bool
}

// isDefault reports whether c tokenizes like the zero Config. Settings that
// do not change tokens (min_prefix_len, min_infix_len, expand_keywords, and
// stopword_step without stopwords) are not looked at.
func (c *Config) isDefault() bool {
	return c.CharsetTable == "" && c.IgnoreChars == "" && c.BlendChars == "" && c.BlendMode == "" &&
		c.MinWordLen <= 1 && len(c.Stopwords) == 0 && len(c.Morphology) == 0 && len(c.Wordforms) == 0 &&
		len(c.Exceptions) == 0 && c.PhraseBoundary == "" && c.PhraseBoundaryStep == 0 && c.NgramLen == 0 &&
		c.NgramChars == "" && !c.HTMLStrip && len(c.HTMLRemoveElements) == 0 && len(c.HTMLIndexAttrs) == 0 &&
		!c.IndexSP && !c.IndexExactWords && !c.WildcardForms && len(c.IndexZones) == 0 && !(c.StopwordsTakeNoPos && len(c.Stopwords) > 0)
}

// checkNumbers checks the numeric settings.
func (c *Config) checkNumbers() error {
	nums := []struct {
		name     string
		v, limit int
	}{
		{"min_word_len", c.MinWordLen, MaxTermLen},
		{"min_prefix_len", c.MinPrefixLen, maxPrefixLen},
		{"min_infix_len", c.MinInfixLen, maxPrefixLen},
		{"phrase_boundary_step", c.PhraseBoundaryStep, maxPhraseBoundaryStep},
	}
	for _, n := range nums {
		if n.v < 0 || n.v > n.limit {
			return settingErr(n.name, "%d is not between 0 and %d", n.v, n.limit)
		}
	}
	if c.MinPrefixLen > 0 && c.MinInfixLen > 0 {
		return settingErr("min_infix_len", "cannot be set together with min_prefix_len (infix indexing serves prefix wildcards too)")
	}
	return nil
}

// compile checks c and builds its rules.
func (c *Config) compile() (*rules, error) {
	r := &rules{minLen: c.MinWordLen, sp: c.IndexSP, step: c.PhraseBoundaryStep, stopPos: 1}
	if c.StopwordsTakeNoPos {
		r.stopPos = 0
	}
	var err error
	switch {
	case c.NgramLen != 0 && c.NgramLen != 1:
		return nil, settingErr("ngram_len", "%d is not 0 or 1", c.NgramLen)
	case c.NgramLen == 1 && c.NgramChars == "":
		return nil, settingErr("ngram_len", "needs ngram_chars")
	case c.NgramLen == 0 && c.NgramChars != "":
		return nil, settingErr("ngram_chars", "needs ngram_len=1")
	case !c.HTMLStrip && (len(c.IndexZones) > 0 || len(c.HTMLRemoveElements) > 0 || len(c.HTMLIndexAttrs) > 0):
		return nil, settingErr("html_strip", "index_zones, html_remove_elements and html_index_attrs need html_strip=1")
	}
	if r.tab, err = c.charTable(); err != nil {
		return nil, err
	}
	if c.BlendChars != "" {
		if r.blend, err = parseBlendMode(c.BlendMode); err != nil {
			return nil, err
		}
	} else if c.BlendMode != "" {
		return nil, settingErr("blend_mode", "needs blend_chars")
	}
	if len(c.Stopwords) > 0 {
		r.stop = make(map[string]struct{}, len(c.Stopwords))
		for _, w := range c.Stopwords {
			r.stop[w] = struct{}{}
		}
	}
	r.headKept = true
	for _, m := range c.Morphology {
		s, ok := stemmers[m]
		if !ok {
			return nil, settingErr("morphology", "unknown stemmer '%s'", m)
		}
		r.stem = append(r.stem, s.stem)
		r.headKept = r.headKept && s.keepsHead
	}
	if len(r.stem) > 0 {
		r.stems = sharedStemCache(strings.Join(c.Morphology, ","))
	}
	forms := c.Wordforms
	if len(r.stem) > 0 {
		// '~' forms match stems, after morphology; without morphology they
		// are ordinary forms.
		forms = nil
		env := snowballstem.NewEnv("")
		for _, f := range c.Wordforms {
			if !f.Morph {
				forms = append(forms, f)
				continue
			}
			if f.From == "" || f.To == "" || strings.Contains(f.From, " ") {
				return nil, &SettingError{Setting: "wordforms", Offset: -1, Msg: "bad '~' form '" + f.From + " > " + f.To + "'"}
			}
			stem := stemWith(r.stem, env, f.From)
			if prev, ok := r.morphForms[stem]; ok && strings.Join(prev, " ") != f.To {
				return nil, &SettingError{Setting: "wordforms", Offset: -1, Msg: "'~" + f.From + "' maps words of stem '" + stem + "' to both '" + strings.Join(prev, " ") + "' and '" + f.To + "'"}
			}
			if r.morphForms == nil {
				r.morphForms = map[string][]string{}
			}
			r.morphForms[stem] = strings.Split(f.To, " ")
		}
	}
	if r.forms, err = buildForms(forms); err != nil {
		return nil, err
	}
	for _, f := range forms {
		r.multiForms = r.multiForms || strings.Contains(f.From, " ")
	}
	if r.exc, err = buildExceptions(c.Exceptions); err != nil {
		return nil, err
	}
	r.exact = (c.IndexExactWords || c.WildcardForms) && (len(r.stem) > 0 || r.forms != nil || r.morphForms != nil)
	if c.HTMLStrip {
		if r.html, err = newHTMLStripper(c); err != nil {
			return nil, err
		}
	}
	r.simple = r.isSimple()
	r.asciiBlocks = r.simple && r.tab.asciiDefault()
	return r, nil
}

func (r *rules) isSimple() bool {
	return r.blend == 0 && r.tab.fb&fbNgramCJK == 0 && !r.tab.hasNgram && r.step == 0 && !r.tab.hasBound &&
		r.exc == nil && r.forms == nil && r.morphForms == nil && !r.sp && r.html == nil
}

// New returns a Tokenizer for the given settings. The Config is normally
// one that ParseSettings returned (possibly after a JSON round trip); New
// checks it again and returns a *SettingError if it cannot be used.
func New(c Config) (*Tokenizer, error) {
	if err := c.checkNumbers(); err != nil {
		return nil, err
	}
	if c.isDefault() {
		return &Tokenizer{config: c}, nil
	}
	r, err := c.compile()
	if err != nil {
		return nil, err
	}
	t := &Tokenizer{config: c, r: r}
	if r.html != nil || r.sp || r.blend&^(blendTrimNone|blendSkipPure) != 0 {
		q := *r
		q.html, q.sp = nil, false
		if r.blend != 0 {
			// A blended query word is the word as written: blend_mode's
			// trimmed forms are made of documents only, as the reference
			// makes them (skip_pure holds for both).
			q.blend = blendTrimNone | r.blend&blendSkipPure
		}
		q.simple = q.isSimple()
		q.asciiBlocks = q.simple && q.tab.asciiDefault()
		t.query = &Tokenizer{config: c, r: &q}
	}
	if r.html != nil && r.sp && len(c.IndexZones) > 0 {
		q := *r
		q.html = textStripper(&c)
		t.texts = &Tokenizer{config: c, r: &q, query: t.query}
	}
	return t, nil
}

// Texts returns the tokenizer for texts matched and highlighted on their
// own (CALL SNIPPETS, HIGHLIGHT() of a text): the same as t but that, on a
// table with html_strip, index_sp and index_zones, a zone's tags end no
// paragraph (nor a sentence), and a paragraph tag next to one (with only
// white space between) ends none either, as the reference's snippets read
// them: "a PARAGRAPH b" then matches across "</z1><z2>". The index reads
// a zone's tags as paragraph ends, as Sphinx's search does.
func (t *Tokenizer) Texts() *Tokenizer {
	if t.texts != nil {
		return t.texts
	}
	return t
}

// Query returns the tokenizer for query text: the same words as t, but no
// HTML stripping (html_strip) and no sentence or paragraph terms
// (index_sp), since query text is neither HTML nor prose, and a blended
// word only as written (no blend_mode forms). The query parser
// tokenizes with it; the indexer and the highlighter tokenize fields with t.
func (t *Tokenizer) Query() *Tokenizer {
	if t.query != nil {
		return t.query
	}
	return t
}
