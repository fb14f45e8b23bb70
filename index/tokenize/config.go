package tokenize

// Setting is one table setting as written (dialect.md, "Tables").
type Setting struct {
	Name  string
	Value string
}

// Config is the resolved form of a table's tokenization settings: every
// value parsed and every file (stopwords, wordforms, exceptions) read, so
// that a table keeps tokenizing the same way after the files change. It is
// stored in the catalog as JSON.
//
// SKELETON: the fields below are the contract other packages rely on; the
// rest of the settings are being added.
type Config struct {
	MinPrefixLen    int      `json:",omitempty"` // min_prefix_len: shortest prefix of a prefix wildcard (0: prefix wildcards off)
	MinInfixLen     int      `json:",omitempty"` // min_infix_len: shortest infix of an infix wildcard (0: infix wildcards off)
	IndexExactWords bool     `json:",omitempty"` // index_exact_words: ExactTerm forms are indexed
	IndexSP         bool     `json:",omitempty"` // index_sp: SentenceTerm and ParagraphTerm are indexed
	IndexZones      []string `json:",omitempty"` // index_zones: zone names, a trailing '*' is a prefix
}

// ParseSettings checks the tokenization settings of a table and resolves
// them; readFile reads the files that settings name. Settings that do not
// concern tokenization are ignored (the caller validates those).
func ParseSettings(settings []Setting, readFile func(path string) ([]byte, error)) (Config, error) {
	return Config{}, nil
}

// Config returns the resolved settings of the tokenizer.
func (t *Tokenizer) Config() Config { return t.settings.config }
