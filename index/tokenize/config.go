package tokenize

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Setting is one table setting as written in CREATE TABLE.
type Setting struct {
	Name  string
	Value string
}

// Config is the resolved form of a table's tokenization settings: every
// value parsed and every file (stopwords, wordforms, exceptions) read, so
// that a table keeps tokenizing the same way after the files change. It is
// stored in the catalog as JSON. The zero Config is the default tokenizer.
//
// Character lists are kept in the canonical charset_table syntax (ASCII
// letters and digits as themselves, other characters as U+XXXX, aliases by
// name); word lists are folded.
type Config struct {
	CharsetTable       string              `json:",omitempty"` // charset_table ("": Unicode letters and digits, lower-cased)
	IgnoreChars        string              `json:",omitempty"` // ignore_chars: dropped from words, do not separate them
	BlendChars         string              `json:",omitempty"` // blend_chars: both separators and word characters
	BlendMode          string              `json:",omitempty"` // blend_mode, canonical ("": trim_none)
	MinWordLen         int                 `json:",omitempty"` // min_word_len: shorter words take a position but give no term
	Stopwords          []string            `json:",omitempty"` // stopwords, folded and sorted
	Morphology         []string            `json:",omitempty"` // morphology: canonical stemmer names, applied in order
	Wordforms          []Wordform          `json:",omitempty"` // wordforms, folded
	Exceptions         []Exception         `json:",omitempty"` // exceptions, as written
	PhraseBoundary     string              `json:",omitempty"` // phrase_boundary
	PhraseBoundaryStep int                 `json:",omitempty"` // phrase_boundary_step: positions added at a phrase boundary
	NgramLen           int                 `json:",omitempty"` // ngram_len: 0 or 1
	NgramChars         string              `json:",omitempty"` // ngram_chars: each is a word of its own
	HTMLStrip          bool                `json:",omitempty"` // html_strip
	HTMLRemoveElements []string            `json:",omitempty"` // html_remove_elements
	HTMLIndexAttrs     map[string][]string `json:",omitempty"` // html_index_attrs: element -> attributes
	MinPrefixLen       int                 `json:",omitempty"` // min_prefix_len: shortest prefix of a prefix wildcard (0: prefix wildcards off)
	MinInfixLen        int                 `json:",omitempty"` // min_infix_len: shortest infix of an infix wildcard (0: infix wildcards off)
	IndexExactWords    bool                `json:",omitempty"` // index_exact_words: ExactTerm forms are indexed
	// WildcardForms: the words as written (ExactTerm forms) are indexed
	// for wildcards to expand over, as the reference's keywords
	// dictionary does with morphology and min_prefix_len or
	// min_infix_len: checki* finds "checking", whose stem is "check".
	// Set by ParseSettings for such tables; tables made before it was
	// (their Config kept without it) expand over their stems.
	WildcardForms      bool      `json:",omitempty"`
	IndexSP            bool      `json:",omitempty"` // index_sp: SentenceTerm and ParagraphTerm are indexed
	IndexZones         []string  `json:",omitempty"` // index_zones: zone names, a trailing '*' is a prefix
	StopwordsTakeNoPos bool      `json:",omitempty"` // stopword_step=0: a stopword does not advance the position
	ExpandKeywords     Expansion `json:",omitempty"` // expand_keywords: the forms a plain query word is searched as too
}

// Expansion is a set of forms that expand_keywords adds to a plain query
// word W: the wildcard form (*W* with min_infix_len, W* with
// min_prefix_len) and the exact form (=W with index_exact_words).
type Expansion uint8

const (
	ExpandStar  Expansion = 1 << iota // *W* or W*
	ExpandExact                       // =W
)

// SettingError is a tokenization setting that cannot be used. Error gives
// "setting: message", with the file and line or the offset in the value when
// there is one:
//
//	charset_table: range 'z..a' ends before it starts (at offset 12)
//	wordforms: /etc/glint/forms.txt:3: no '>' between source and destination
type SettingError struct {
	Setting string // the setting's name
	File    string // the file the mistake is in, or ""
	Line    int    // 1-based line in File, or 0
	Offset  int    // byte offset in the value, or -1
	Msg     string
}

func (e *SettingError) Error() string {
	var b strings.Builder
	b.WriteString(e.Setting)
	b.WriteString(": ")
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Offset >= 0 {
		fmt.Fprintf(&b, " (at offset %d)", e.Offset)
	}
	return b.String()
}

func settingErr(setting, format string, args ...any) error {
	return &SettingError{Setting: setting, Offset: -1, Msg: fmt.Sprintf(format, args...)}
}

// settingNames are the settings ParseSettings resolves.
var settingNames = map[string]bool{
	"charset_table": true, "ignore_chars": true, "blend_chars": true, "blend_mode": true,
	"min_word_len": true, "stopwords": true, "morphology": true, "index_exact_words": true,
	"wordforms": true, "exceptions": true, "min_prefix_len": true, "min_infix_len": true,
	"phrase_boundary": true, "phrase_boundary_step": true, "ngram_len": true, "ngram_chars": true,
	"index_sp": true, "index_zones": true, "html_strip": true, "html_remove_elements": true,
	"html_index_attrs": true, "stopword_step": true, "expand_keywords": true,
}

// Limits of numeric settings.
const (
	maxPhraseBoundaryStep = 1 << 20
	maxPrefixLen          = MaxTermLen
)

// ParseSettings checks the tokenization settings of a table and resolves
// them; readFile reads the files that settings name. Settings that do not
// concern tokenization are ignored (the caller validates those). Names are
// matched in any case; a setting given twice is an error. Errors are
// *SettingError.
//
// stopwords is a list of items separated by white space or commas. An item
// that contains '/', '\' or '.' names a file ("stopwords.txt" in the
// server's working directory), which must be readable; any other item is a
// stopword, whatever files there are.
// wordforms and exceptions name one file, or several separated by white
// space.
func ParseSettings(settings []Setting, readFile func(path string) ([]byte, error)) (Config, error) {
	v := map[string]string{}
	for _, s := range settings {
		name := strings.ToLower(s.Name)
		if !settingNames[name] {
			continue
		}
		if _, dup := v[name]; dup {
			return Config{}, settingErr(name, "set twice")
		}
		v[name] = s.Value
	}
	var c Config
	var err error
	has := func(name string) bool { _, ok := v[name]; return ok }

	// Character lists.
	lists := []struct {
		name string
		dst  *string
		syn  listSyntax
	}{
		{"charset_table", &c.CharsetTable, listSyntax{mappings: true, aliases: true}},
		{"ngram_chars", &c.NgramChars, listSyntax{mappings: true, aliases: true}},
		{"ignore_chars", &c.IgnoreChars, listSyntax{}},
		{"blend_chars", &c.BlendChars, listSyntax{mappings: true}},
		{"phrase_boundary", &c.PhraseBoundary, listSyntax{}},
	}
	for _, l := range lists {
		if !has(l.name) {
			continue
		}
		items, err := parseCharList(v[l.name], l.syn)
		if err != nil {
			return Config{}, listErr(l.name, err)
		}
		if items == nil && l.name == "charset_table" {
			return Config{}, settingErr(l.name, "empty (leave it out for the default: letters and digits)")
		}
		*l.dst = formatCharList(items)
	}

	// Numbers and switches.
	ints := []struct {
		name string
		dst  *int
		max  int
	}{
		{"min_word_len", &c.MinWordLen, MaxTermLen},
		{"min_prefix_len", &c.MinPrefixLen, maxPrefixLen},
		{"min_infix_len", &c.MinInfixLen, maxPrefixLen},
		{"phrase_boundary_step", &c.PhraseBoundaryStep, maxPhraseBoundaryStep},
		{"ngram_len", &c.NgramLen, 1},
	}
	for _, n := range ints {
		if has(n.name) {
			if *n.dst, err = parseInt(n.name, v[n.name], n.max); err != nil {
				return Config{}, err
			}
		}
	}
	bools := []struct {
		name string
		dst  *bool
	}{
		{"html_strip", &c.HTMLStrip},
		{"index_sp", &c.IndexSP},
		{"index_exact_words", &c.IndexExactWords},
	}
	for _, b := range bools {
		if has(b.name) {
			if *b.dst, err = parseBool(b.name, v[b.name]); err != nil {
				return Config{}, err
			}
		}
	}
	if has("stopword_step") {
		step, err := parseBool("stopword_step", v["stopword_step"])
		if err != nil {
			return Config{}, err
		}
		c.StopwordsTakeNoPos = !step
	}
	if has("expand_keywords") {
		if c.ExpandKeywords, err = parseExpansion(v["expand_keywords"]); err != nil {
			return Config{}, err
		}
	}
	if has("blend_mode") {
		if c.BlendMode, err = canonicalBlendMode(v["blend_mode"]); err != nil {
			return Config{}, err
		}
	}
	if has("morphology") {
		if c.Morphology, err = parseMorphology(v["morphology"]); err != nil {
			return Config{}, err
		}
	}

	// HTML.
	for _, name := range []string{"html_remove_elements", "html_index_attrs", "index_zones"} {
		if has(name) && !c.HTMLStrip {
			return Config{}, settingErr(name, "needs html_strip=1")
		}
	}
	if has("html_remove_elements") {
		if c.HTMLRemoveElements, err = parseRemoveElements(v["html_remove_elements"]); err != nil {
			return Config{}, err
		}
	}
	if has("html_index_attrs") {
		if c.HTMLIndexAttrs, err = parseIndexAttrs(v["html_index_attrs"]); err != nil {
			return Config{}, err
		}
	}
	if has("index_zones") {
		if c.IndexZones, err = parseZones(v["index_zones"]); err != nil {
			return Config{}, err
		}
	}

	// Rules between settings.
	switch {
	case c.MinPrefixLen > 0 && c.MinInfixLen > 0:
		return Config{}, settingErr("min_infix_len", "cannot be set together with min_prefix_len (infix indexing serves prefix wildcards too)")
	case c.BlendMode != "" && c.BlendChars == "":
		return Config{}, settingErr("blend_mode", "needs blend_chars")
	case c.NgramLen == 1 && c.NgramChars == "":
		return Config{}, settingErr("ngram_len", "needs ngram_chars (for example ngram_chars='cjk')")
	case c.NgramLen == 0 && c.NgramChars != "":
		return Config{}, settingErr("ngram_chars", "needs ngram_len=1")
	case c.PhraseBoundaryStep > 0 && c.PhraseBoundary == "":
		return Config{}, settingErr("phrase_boundary_step", "needs phrase_boundary")
	}
	tab, err := c.charTable()
	if err != nil {
		return Config{}, err
	}

	// Files.
	if has("stopwords") {
		texts, err := stopwordTexts(v["stopwords"], readFile)
		if err != nil {
			return Config{}, err
		}
		c.Stopwords = parseStopwords(tab, texts)
	}
	if has("wordforms") {
		files, err := readFiles("wordforms", v["wordforms"], readFile)
		if err != nil {
			return Config{}, err
		}
		if c.Wordforms, err = parseWordforms(tab, files); err != nil {
			return Config{}, err
		}
	}
	if has("exceptions") {
		files, err := readFiles("exceptions", v["exceptions"], readFile)
		if err != nil {
			return Config{}, err
		}
		if c.Exceptions, err = parseExceptions(files); err != nil {
			return Config{}, err
		}
	}
	// index_exact_words only does something when terms can differ from the
	// folded words; otherwise the ordinary terms are the exact forms.
	if c.IndexExactWords && len(c.Morphology) == 0 && len(c.Wordforms) == 0 {
		c.IndexExactWords = false
	}
	c.WildcardForms = len(c.Morphology) > 0 && (c.MinPrefixLen > 0 || c.MinInfixLen > 0)
	if _, err := New(c); err != nil {
		return Config{}, err
	}
	return c, nil
}

func listErr(setting string, err error) error {
	var le *listError
	if errors.As(err, &le) {
		return &SettingError{Setting: setting, Offset: le.Offset, Msg: le.Msg}
	}
	return settingErr(setting, "%v", err)
}

func parseInt(name, value string, max int) (int, error) {
	s := strings.TrimSpace(value)
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, settingErr(name, "'%s' is not a non-negative integer", value)
	}
	if n > max {
		return 0, settingErr(name, "%d is more than %d", n, max)
	}
	return n, nil
}

func parseBool(name, value string) (bool, error) {
	switch strings.TrimSpace(value) {
	case "0":
		return false, nil
	case "1":
		return true, nil
	}
	return false, settingErr(name, "'%s' is not 0 or 1", value)
}

// parseExpansion reads an expand_keywords value: 0 (off), 1 (both forms),
// or a comma list of exact and star.
func parseExpansion(value string) (Expansion, error) {
	switch strings.TrimSpace(value) {
	case "0":
		return 0, nil
	case "1":
		return ExpandStar | ExpandExact, nil
	}
	var e Expansion
	fields := strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	for _, f := range fields {
		var bit Expansion
		switch strings.ToLower(f) {
		case "star":
			bit = ExpandStar
		case "exact":
			bit = ExpandExact
		default:
			return 0, settingErr("expand_keywords", "unknown value '%s' (supported: 0, 1, or a list of exact and star)", f)
		}
		if e&bit != 0 {
			return 0, settingErr("expand_keywords", "'%s' is listed twice", strings.ToLower(f))
		}
		e |= bit
	}
	if e == 0 {
		return 0, settingErr("expand_keywords", "empty (0, 1, exact, star or exact,star)")
	}
	return e, nil
}

// Blend modes (blend_mode): which forms of a blended token are indexed.
const (
	blendTrimNone = 1 << iota // the whole token
	blendTrimHead             // without its leading blend characters
	blendTrimTail             // without its trailing blend characters
	blendTrimBoth             // without both
	blendTrimAll              // without any blend character, its parts joined
	blendSkipPure             // tokens of blend characters only are skipped
)

var blendModeNames = []struct {
	name string
	bit  uint8
}{
	{"trim_none", blendTrimNone}, {"trim_head", blendTrimHead}, {"trim_tail", blendTrimTail},
	{"trim_both", blendTrimBoth}, {"trim_all", blendTrimAll}, {"skip_pure", blendSkipPure},
}

// parseBlendMode reads a blend_mode value: a comma list of trim_none,
// trim_head, trim_tail, trim_both, trim_all and skip_pure. "" is trim_none.
func parseBlendMode(value string) (uint8, error) {
	var m uint8
	for _, f := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		found := false
		for _, n := range blendModeNames {
			if strings.EqualFold(f, n.name) {
				if m&n.bit != 0 {
					return 0, settingErr("blend_mode", "'%s' is listed twice", n.name)
				}
				m |= n.bit
				found = true
			}
		}
		if !found {
			return 0, settingErr("blend_mode", "unknown value '%s' (supported: trim_none, trim_head, trim_tail, trim_both, trim_all, skip_pure)", f)
		}
	}
	if m == 0 {
		return blendTrimNone, nil
	}
	if m&^blendSkipPure == 0 {
		return 0, settingErr("blend_mode", "skip_pure needs at least one of trim_none, trim_head, trim_tail, trim_both, trim_all")
	}
	return m, nil
}

// canonicalBlendMode checks value and writes it in canonical order ("" for
// the default, trim_none).
func canonicalBlendMode(value string) (string, error) {
	m, err := parseBlendMode(value)
	if err != nil {
		return "", err
	}
	if m == blendTrimNone {
		return "", nil
	}
	var names []string
	for _, n := range blendModeNames {
		if m&n.bit != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ", "), nil
}

// charTable builds the character table of c's character lists.
func (c *Config) charTable() (*charTable, error) {
	parse := func(name, s string, syn listSyntax) ([]charItem, error) {
		items, err := parseCharList(s, syn)
		if err != nil {
			return nil, listErr(name, err)
		}
		return items, nil
	}
	cs, err := parse("charset_table", c.CharsetTable, listSyntax{mappings: true, aliases: true})
	if err != nil {
		return nil, err
	}
	b := newTableBuilder(c.CharsetTable != "")
	b.addWords(cs, cWord)
	if c.NgramChars != "" {
		items, err := parse("ngram_chars", c.NgramChars, listSyntax{mappings: true, aliases: true})
		if err != nil {
			return nil, err
		}
		b.addWords(items, cNgram)
	}
	specials := []struct {
		name, value string
		syn         listSyntax
		c           cls
	}{
		{"ignore_chars", c.IgnoreChars, listSyntax{}, cIgnore},
		{"blend_chars", c.BlendChars, listSyntax{mappings: true}, cBlend},
		{"phrase_boundary", c.PhraseBoundary, listSyntax{}, cBound},
	}
	for _, s := range specials {
		items, err := parse(s.name, s.value, s.syn)
		if err != nil {
			return nil, err
		}
		if err := b.addSpecial(s.name, items, s.c); err != nil {
			return nil, &SettingError{Setting: s.name, Offset: -1, Msg: strings.TrimPrefix(err.Error(), s.name+": ")}
		}
	}
	b.finish()
	return b.t, nil
}

// stopwordTexts returns the texts of a stopwords value: files and the words
// written inline (see ParseSettings).
func stopwordTexts(value string, readFile func(string) ([]byte, error)) ([]string, error) {
	var texts []string
	var inline []string
	for _, item := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
		if strings.ContainsAny(item, `/\.`) {
			if readFile == nil {
				return nil, settingErr("stopwords", "cannot read '%s': no file access", item)
			}
			b, err := readFile(item)
			if err != nil {
				return nil, settingErr("stopwords", "cannot read '%s': %v", item, err)
			}
			texts = append(texts, string(b))
			continue
		}
		inline = append(inline, item)
	}
	if len(texts) == 0 && len(inline) == 1 && builtinStopwordLists[strings.ToLower(inline[0])] {
		// stopwords='en' names the reference's own English list there; taken
		// here as the one word "en", it would change nothing a user expects.
		// (A list of words is words, even if each is a language's code:
		// stopwords='de la el en' is Spanish.)
		return nil, settingErr("stopwords", "'%s' names the reference's built-in stopword list for that language, which glint does not ship: write the words themselves (stopwords='a an the') or the path of a file of them", value)
	}
	return append(texts, strings.Join(inline, " ")), nil
}

// builtinStopwordLists are the language codes the reference's stopwords
// setting takes for the lists it ships.
var builtinStopwordLists = map[string]bool{}

func init() {
	for _, code := range strings.Fields("af ar bg bn br ca ckb cs da de el en eo es et eu fa fi fr ga gl gu ha he hi hr hu hy id it ja ko ku la lt lv mr ms nl no pl pt ro ru sk sl so st sv sw th tl tr uk ur vi yo zh zu") {
		builtinStopwordLists[code] = true
	}
}

// readFiles reads the files a wordforms or exceptions value names: the whole
// value if it is a readable file, else each of its white-space separated parts.
func readFiles(setting, value string, readFile func(string) ([]byte, error)) ([]listFile, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, settingErr(setting, "no file named")
	}
	if readFile == nil {
		return nil, settingErr(setting, "cannot read '%s': no file access", value)
	}
	if b, err := readFile(value); err == nil {
		return []listFile{{value, string(b)}}, nil
	} else if !strings.ContainsAny(value, " \t") {
		return nil, settingErr(setting, "cannot read '%s': %v", value, err)
	}
	var files []listFile
	for _, p := range strings.Fields(value) {
		b, err := readFile(p)
		if err != nil {
			return nil, settingErr(setting, "cannot read '%s': %v", p, err)
		}
		files = append(files, listFile{p, string(b)})
	}
	return files, nil
}

// Config returns the resolved settings of the tokenizer.
func (t *Tokenizer) Config() Config { return t.config }
