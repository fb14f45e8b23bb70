// Package query parses the full-text query language (docs/fulltext.md) into
// a typed tree that the index evaluates and compiles into the text matcher
// the highlighter uses. Parsing is one step: query words go through the table's
// tokenizer (its Query form, without HTML stripping), so a query word is
// normalized exactly like an indexed word.
//
//	n, err := query.Parse(`hello -"brave new" @title world*`, tok)
//	// query.String(n) == "AND(hello@1, NOT(PHRASE(brave@2 new@3)), FIELD(title; world*@4))"
//
// # Grammar
//
// From the loosest binding to the tightest:
//
//	group    := { element | @field-limit | ZONE:names | ZONESPAN:names }   implicit AND
//	element  := seq
//	seq      := negated { ('<<' | NEAR/N | NOTNEAR/N) negated }   one level, from the left
//	negated  := ('-' | '!') or | or
//	or       := unit { ('|' | MAYBE) unit }                       one level, from the left
//	unit     := primary { (SENTENCE | PARAGRAPH) primary }
//	primary  := '(' group ')' | word | "phrase" [~N | /N | /0.F]
//	          | (@field-limit | ZONE:names | ZONESPAN:names) primary   (after an operator)
//
// This is the grouping Sphinx 2.2.11 shows for the same queries (SHOW PLAN):
// "a b | c" is a AND (b OR c); "a | b << c" is (a OR b) BEFORE c; "a | b
// NEAR/2 c" is (a OR b) NEAR/2 c; "a << b NEAR/2 c" is (a BEFORE b) NEAR/2
// c; "a | b MAYBE c" is (a OR b) MAYBE c and "a MAYBE b | c" is (a MAYBE
// b) OR c; "a | b SENTENCE c" is a OR (b SENTENCE c); and NOT takes a whole
// OR: "x -a | b" is x AND NOT (a OR b). A run of '<<' is one Before, of '|'
// one Or, of one of SENTENCE and PARAGRAPH one node; NEAR, NOTNEAR and
// MAYBE nest to the left. Operands of NEAR, '<<', MAYBE, SENTENCE and
// PARAGRAPH may be any of these expressions but NOT. Sphinx itself rejects
// a group or a field limit as an operand of SENTENCE and a mix of SENTENCE
// and PARAGRAPH in one chain; here they nest as the grammar says.
//
// Inside quotes, a group in brackets holds alternatives separated by '|':
// "door (opened | closed)" matches either phrase. Each alternative is a
// sequence of words (or groups), tried at the same place of the phrase, so a
// longer one shifts the words after it; the parser makes an OR of one
// PHRASE (PROXIMITY, QUORUM) per choice, all starting at the same query
// position, at most 64 of them. Without brackets '|' in quotes is a
// separator like any other non-word character ("a | b" is the phrase a b),
// as is a stray ')' or a '(' that is never closed.
//
// A field limit (@title, @(title,body), @!title, @!(a,b), @*, @title[50])
// or a zone applies to everything after it up to the end of its group, as
// in Sphinx: "@title a b @body c" limits a and b to title and c to body; an
// inner limit replaces an outer one; after an operator ("a | @title b | c
// d") it limits each operand that follows (b, c) and then the rest of the
// group (d). Operator keywords (NEAR, NOTNEAR, MAYBE, SENTENCE, PARAGRAPH,
// ZONE, ZONESPAN) count only in upper case; "near" is a word.
//
// NOT excludes from the AND it stands in, which needs a positive member:
// "-a" alone, "a | -b", "a NEAR/2 -b" and "x (-a | b)" are errors (Sphinx
// accepts the last one and lifts the NOT out of the group; here a group
// that is only negative is an error, like a query that is only negative).
// '-' is NOT only at the start of a word: "well-known" is two words, and so
// is "a - b" with a lone '-'. When a table makes '-' a word character
// (charset_table), '-' starts words and '!' is the NOT to use.
//
// Words are the table's word characters plus the wildcards '*', '?' and '%'
// (unless the table makes them word characters); any other character
// separates words, and '\' makes the next character literal: "\-" is not
// NOT and "\*" is not a wildcard, but an escaped character that is not a
// word character still separates words ("cat\-dog" is cat and dog), as in
// Sphinx. A word the tokenizer splits becomes a PHRASE of its parts (CJK
// n-grams, "a\-b" on a table where '-' is a word character); a blended
// token (blend_chars) is the blended token as written (no blend_mode forms),
// in quotes or not, and its parts only take their query positions: "c++"
// finds "c++", not "c" (as the reference reads it; a document's blended
// word is indexed whole, in its blend_mode forms and by its parts, so a
// plain "known" finds "well-known"). A stopword gives no
// keyword but keeps its query position (none with stopword_step=0), so
// "cat the dog" in quotes needs one word between cat and dog, and it drops
// out of any operator it is an operand of ("the | cat" is cat, as in
// Sphinx).
//
// On a table with expand_keywords, a plain word W (one keyword: not a
// wildcard, not =word, not a blended token, not split by the tokenizer)
// becomes OR(W, *W*, =W): *W* only with min_infix_len and when W has at
// least min_infix_len characters (W* with min_prefix_len instead), =W only
// with index_exact_words and when its term differs from W's. The
// alternatives share W's query position, field start/end marks and boost.
// Words in quotes (phrase, proximity, quorum) are not expanded: those
// operators take keywords only (the reference expands them too). Decorations: =word (the
// exact, unstemmed form: needs index_exact_words to differ), ^word (first
// word of its field), word$ (last word), word^N (boost: ranking only). A
// wildcard is kept as a folded pattern with Text as written; the index
// expands it (or, on a table without min_prefix_len/min_infix_len, searches
// its letters as a plain word and says so). Wildcards alone ("?", or "*"
// outside a phrase) are no word and are passed over, as the reference passes
// over them.
//
// # Errors and limits
//
// A malformed query is an *Error naming the problem and its byte offset.
// Nesting deeper than MaxDepth and more than MaxKeywords keywords are errors;
// tokens are read one at a time and parsing is linear in the query length, so
// hostile input costs little. A query with no searchable word (empty, or
// only stopwords) parses to nil; what that matches is the caller's
// decision.
package query
