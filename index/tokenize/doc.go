// Package tokenize splits text into normalized words. It is the one tokenizer of
// glint: the indexer, the query parser and the highlighter all use it, so a word
// matches and is highlighted exactly when it was indexed.
//
// A worked example:
//
//	tok := tokenize.Default()
//	toks := tok.Append(nil, "Hello, Wörld 42!")
//	// toks[0] == tokenize.Token{Term: "hello", Pos: 1, Start: 0, End: 5}
//	// toks[1] == tokenize.Token{Term: "wörld", Pos: 2, Start: 7, End: 13}
//	// toks[2] == tokenize.Token{Term: "42", Pos: 3, Start: 14, End: 16}
//
// Start and End are byte offsets into the original text, so the highlighter can
// cut the original words out; Term is the folded form that is indexed.
//
// The indexer uses Iter, which hands out the term as a reused []byte and does
// not allocate per word; Tokens and Append are the convenient forms that give
// each Token its own Term string.
//
// # Settings
//
// A table's tokenization settings (of CREATE TABLE) are resolved once by
// ParseSettings, at CREATE TABLE: values are checked, files are read, and the
// result is a Config that the catalog keeps as JSON, so that the table goes on
// tokenizing the same way when the files change. New compiles a Config into a
// Tokenizer (at every server start). The zero Config takes a fast path;
// any setting that changes tokens takes the general one.
//
//	cfg, err := tokenize.ParseSettings([]tokenize.Setting{
//		{Name: "morphology", Value: "stem_en"},
//		{Name: "index_exact_words", Value: "1"},
//		{Name: "stopwords", Value: "the a an"},
//	}, os.ReadFile)
//	tok, err := tokenize.New(cfg)
//	toks := tok.Append(nil, "The Running dogs")
//	// {run 2 4 11} {"\x01running" 2 4 11} {dog 3 12 16} {"\x01dogs" 3 12 16}
//
// The settings, with Sphinx's meaning unless a difference is noted:
//
// charset_table lists the word characters and their folding: single
// characters ("_", "U+410"), ranges ("a..z"), mappings ("A->a", "A..Z->a..z",
// "U+410..U+42F->U+430..U+44F") and the aliases english, russian, non_cjk and
// cjk. Every other character separates words. Later entries override
// earlier ones; non_cjk (Unicode letters and digits outside CJK,
// lower-cased, with combining marks continuing words) and cjk (Han,
// Hiragana, Katakana, Hangul and Bopomofo letters) lie beneath every
// explicit entry wherever they are written. Literal non-ASCII characters
// are allowed (Sphinx wants U+ codes). Control characters and space can
// never be word characters: reserved terms start with a control byte.
// Without charset_table the default rules apply: Unicode letters and digits,
// lower-cased (non_cjk plus cjk).
//
// ignore_chars are dropped from words without separating them ("U+AD" for
// the soft hyphen). blend_chars are both separators and word characters:
// "well-being" with blend_chars='-' gives the blended token "well-being" and
// its parts "well" and "being". blend_mode picks the forms of the blended
// token that are indexed: trim_none (the whole token, the default),
// trim_head, trim_tail and trim_both (without leading, trailing or both
// runs of blend characters), trim_all (every blend character dropped, the
// parts joined: "3+rd" gives "3rd"; its range is the whole token), plus
// skip_pure (a token of blend characters only is not indexed at all). The
// value is a comma list of these; an unknown value is an error, and so is
// skip_pure alone. A character
// listed in two of charset_table, ignore_chars, blend_chars and
// phrase_boundary is an error (as in Sphinx; under the default rules a
// combining mark may be ignored, blended or a boundary).
//
// Positions of blended tokens (as Sphinx): the blended token and its
// variants take the position of the first part, the parts take one
// position each (but a part shorter than min_word_len takes none, as in
// the reference: "x-rays" is "x-rays" and "rays" at one position), and the
// blended tokens come first. Iter.Blended tells
// the blended tokens from the parts. A blended token with no part ("--")
// takes a position of its own.
//
// min_word_len: a shorter word (in characters, after folding) gives no
// term but takes its position. Ngram characters and exceptions are exempt.
//
// stopwords: a list of items separated by white space or commas. An item
// that contains '/' or '\' names a file, which must be readable; any other
// item names a file if it can be read, and is a stopword otherwise. Files
// and inline words are split into words and folded like text (so "don't"
// gives "don" and "t"). Stopwords are matched after folding and before
// stemming (Sphinx's stopwords_unstemmed=1; Sphinx's default matches after
// stemming); a stopword takes its position but gives no term.
//
// stopword_step (0 or 1, default 1) is the number of positions a stopword
// takes: with 0 the word after a stopword takes the stopword's position, so
// "cup of tea" indexes cup at 1 and tea at 2, like "cup tea". The query
// parser counts query positions the same way (StopwordStep).
//
// expand_keywords (0, 1, or a comma list of exact and star; 1 is both) is
// kept in the Config for the query parser, which searches a plain query
// word W also as *W* (W* with min_prefix_len only) and as =W (see package
// query); it changes no token.
//
// morphology: a list of none, stem_XX for every Snowball stemmer (ar, da,
// de, en, es, fi, fr, ga, hu, it, nl, no, pt, ro, ru, sv, ta, tr),
// libstemmer_XX and libstemmer_<language> as spellings of the same, stem_enru
// (stem_en, stem_ru) and porter (the original 1980 Porter stemmer). stem_en
// is Snowball's English stemmer (Porter2): on a sample of 169 words it
// agreed with Sphinx 2.2.11's stem_en on all but a few (Sphinx gives
// "commun" for "communism" and "form" for "formative"), and with the
// original Porter far less often. Stemmers apply in order
// and the first that changes a word gives its stem, as in Sphinx, so
// stem_en, stem_ru stems each language with its own stemmer. An unknown
// value is an error.
//
// index_exact_words also indexes each word's exact form (the case-folded,
// unstemmed word behind a reserved mark byte; Tokenizer.Exact gives it) at
// the word's position, for the =word operator. It has an effect only with morphology
// or wordforms (as in Sphinx); without them ParseSettings resolves it to
// false, since the ordinary terms are then the exact forms.
//
// wordforms names a file (or several, separated by white space) of lines
// "source > destination" ("=>" works too; lines starting with '#' are
// comments). Both sides are folded into words. A one-word source maps a
// word to the destination words, which take one position each and are not
// stemmed; its exact form is the source word. A multi-word source ("going
// to > gonna") matches consecutive words with nothing but separators
// between them (no phrase, sentence or paragraph boundary, no HTML mark):
// together they take one position (as in Sphinx) and give no exact form.
// A query's words are mapped alike: the query parser joins plain words
// with blanks only between them that begin a multi-word source
// (FormWords) into one text for the tokenizer, in a phrase or not.
// The longest source wins. Wordforms apply before stopwords. Conflicting
// duplicate sources are an error.
//
// A line that starts with '~' ("~walks > stroll") is matched after
// morphology: with a stemmer, every word whose stem is the stem of the
// source (walk, walked, walking) becomes the destination, which is not
// stemmed; a stopword is still a stopword, and ordinary forms come first.
// Its source is one word. Without morphology it is an ordinary form.
//
// exceptions names a file (or several) of lines "source => destination".
// The source is matched case-sensitively on the raw text, before folding; a
// space in it matches any run of white space, and a source that starts
// (ends) with a word character matches only where no word character
// precedes (follows). The destination is the term as written (not folded,
// as in Sphinx), then goes through wordforms, stopwords and stemming like
// any word.
//
// min_prefix_len and min_infix_len are checked and kept in the Config:
// wildcards are expanded by the index from its dictionary. As in Sphinx,
// both cannot be set (infixes serve prefix wildcards too).
//
// phrase_boundary lists separators (".", "?", "!", "U+2026") that add
// phrase_boundary_step to the position of the next word: once per gap
// however many boundary characters it holds, and only between words.
//
// ngram_len=1 with ngram_chars (a character list, usually the alias cjk)
// makes each of those characters a word of its own, at its own position, in
// whichever run it stands. ngram_chars override charset_table. Other
// ngram_len values are errors, as are ngram_len without ngram_chars and the
// reverse (Sphinx ignores them with a warning).
//
// index_sp indexes SentenceTerm and ParagraphTerm at the position of the
// first word of each new sentence or paragraph (reserved terms take no
// position of their own; Sphinx gives them one). A sentence ends at '?' or
// '!' (or U+203C, U+2047..U+2049, U+3002, U+FF01, U+FF1F, U+FF61) and at a
// '.' or U+2026 followed by white space and then a word that starts with an
// upper-case letter, unless the word before the '.' is one or two
// characters long and starts with an upper-case letter ("Mr. Smith",
// "J. Smith"), which is the rule Sphinx follows. Only characters between
// words count. A paragraph ends at an HTML block element with html_strip
// and, without html_strip, at a blank line (two line breaks with only white
// space between them) or U+2029. A new paragraph is also a new sentence;
// both terms are then emitted, ParagraphTerm first.
//
// html_strip removes markup before tokenizing (package htmlstrip does the
// stripping; html_remove_elements, html_index_attrs and index_zones are its
// options and need html_strip=1). Start and End still point into the HTML
// as given. index_zones emits ZoneOpenTerm(name) at the position the next
// word will take and ZoneCloseTerm(name) at the position of the last word
// before the end of the element; a mark inside a word counts as outside it
// (the word is in the zone). In one gap the closes come first, so that
// positions never go down: an element without words closes one position
// before it opens.
//
// # Tokens and positions
//
// Iter's contract: tokens in text order, positions non-decreasing; a word
// and its exact form, a blended token and its first part, and reserved terms
// may share a position; reserved terms never advance it. After the last
// token, Pos is the position of the last token that is a word (a stopword
// at the end does not count, as Sphinx marks the field end on the last
// indexed word). Terms are cut to MaxTermLen bytes. A reserved term has an
// empty range (Start == End): at the start of the word it stands before
// (SentenceTerm, ParagraphTerm, ZoneOpenTerm), at the end of the word it
// follows (ZoneCloseTerm), or at the end of the text (a zone opened after
// the last word). An exact form has its word's range; a multi-word
// wordform's destination words all have the range of the source words.
//
// On the query side, IsWordRune, Fold, Exact and Stopword follow the same
// settings, and Query returns the tokenizer for query text: the same words,
// without HTML stripping and without SentenceTerm and ParagraphTerm.
//
// # Speed
//
// The zero Config runs the fast path of the original tokenizer (about
// 700 MB/s on English text on the benchmark machine). Settings that only
// change what a word becomes (charset_table, ignore_chars, min_word_len,
// stopwords, morphology, index_exact_words) run a lean loop without a token
// queue (which finds the words of ASCII text with the fast path's block
// scan where the table leaves ASCII letters and digits as they are by
// default); the others (blend_chars, ngram_chars, phrase_boundary, exceptions,
// wordforms, index_sp, html_strip) run the general path with a queue.
// Both keep Iter allocation-free; stemming allocates only for words the
// tokenizer has not stemmed yet (it remembers the stems of up to 32768
// words, for all its Iters), and Iter.NextCandidate stems no word whose
// stem its filter must turn away, where the stemmer allows knowing that.
package tokenize
