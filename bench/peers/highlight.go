package peers

// How the peers highlight, set to resemble HIGHLIGHT()'s and CALL SNIPPETS'
// defaults: limit = 256 characters, around = 5 words on each side of a
// match, as many passages as fit, before_match '<b>', after_match '</b>',
// chunk_separator ' ... '; limit = 0 marks the whole text. Neither peer
// counts characters, so the word counts below were chosen so that the mean
// highlight of the race's search+highlight on Brown is close to glint
// stem_en's in length: 173 bytes for glint (its passages rarely fill the
// 256 characters), 186 for ts_headline, 174 for snippet() (2026-11-26).
const (
	// pgHeadline is ts_headline's options for limit = 256: up to three
	// fragments of at most 10 words (a match and four or five words on each
	// side), joined as glint joins passages. MinWords only has to be below
	// MaxWords in fragment mode.
	pgHeadline = `StartSel=<b>, StopSel=</b>, MaxFragments=3, MaxWords=10, MinWords=5, FragmentDelimiter=" ... "`
	// pgHeadlineAll is ts_headline's options for limit = 0: the whole text
	// with every match marked.
	pgHeadlineAll = `StartSel=<b>, StopSel=</b>, HighlightAll=true`

	// fts5Tokens is snippet()'s token count for limit = 256. FTS5's snippet()
	// returns one fragment (at most 64 tokens) around the best cluster of
	// matches, with ' ... ' where the text is cut; highlight() marks the
	// whole text (limit = 0).
	fts5Tokens = 27
)
