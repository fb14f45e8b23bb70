// Package query parses the full-text query language (dialect.md, "Full-text
// query syntax") into a typed tree that the index evaluates and the
// highlighter walks. Parsing is one step: query words go through the table's
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
//	group   := { element | @field-limit | ZONE:names | ZONESPAN:names }   implicit AND
//	element := or
//	or      := maybe { '|' maybe }
//	maybe   := unit { MAYBE unit }
//	unit    := seq { (SENTENCE | PARAGRAPH) seq }
//	seq     := near { '<<' near }
//	near    := primary { (NEAR/N | NOTNEAR/N) primary }
//	primary := ('-' | '!') primary | '(' group ')' | word | "phrase" [~N | /N | /0.F]
//	         | (@field-limit | ZONE:names | ZONESPAN:names) primary
//
// So "a b | c" is a AND (b OR c), as in the Sphinx family, and "a | b << c"
// is a OR (b BEFORE c). A field limit (@title, @(title,body), @!title,
// @!(a,b), @*, @title[50]) or a zone applies to the rest of its group: "@title
// a b @body c" limits a and b to title and c to body; an inner limit replaces
// an outer one; a limit after an operator ("@title a | @content b") limits
// that operand and then the rest of the group. Operator keywords (NEAR, NOTNEAR, MAYBE, SENTENCE,
// PARAGRAPH, ZONE, ZONESPAN) count only in upper case; "near" is a word.
//
// NOT excludes from the AND it stands in, which needs a positive member: "-a"
// alone, "a | -b" and "a NEAR/2 -b" are errors. '-' is NOT only at the start of
// a word: "well-known" is two words, and so is "a - b" with a lone '-'. When a
// table makes '-' a word character (charset_table), '-' starts words and '!'
// is the NOT to use.
//
// Words are the table's word characters plus the wildcards '*', '?' and '%'
// (unless the table makes them word characters); any other character
// separates words, and '\' makes the next character literal: "\-" is not NOT
// and "\*" is not a wildcard, but an escaped character that is not a word
// character still separates words ("cat\-dog" is cat and dog), as in Sphinx. A word the tokenizer splits becomes a
// PHRASE of its parts (CJK n-grams, "a\-b"); a blended token (blend_chars)
// becomes an OR of the blended token and the phrase of its parts, and inside
// quotes counts by its parts. A stopword gives no keyword but keeps its query
// position, so "cat the dog" in quotes needs one word between cat and dog.
// Decorations: =word (the exact, unstemmed form: needs index_exact_words to
// differ), ^word (first word of its field), word$ (last word), word^N (boost:
// ranking only). A wildcard is kept as a folded pattern; the index expands it
// (or, on a table without min_prefix_len/min_infix_len, searches its letters
// as a plain word and says so).
//
// # Errors and limits
//
// A malformed query is an *Error naming the problem and its byte offset.
// Nesting deeper than MaxDepth and more than MaxKeywords keywords are errors;
// tokens are read one at a time and parsing is linear in the query length, so
// hostile input costs little. A query with no searchable word (empty, or
// only stopwords) parses to nil.
package query
