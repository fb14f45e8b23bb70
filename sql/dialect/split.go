package dialect

import "strings"

// Split cuts a text into statements at ';' outside literals and comments,
// versioned comments read as code included (mysqldump's triggers hold ';'
// inside one), dropping statements that are only white space and comments.
//
// Each Piece's Text is trimmed of the white space around it (comments stay), and
// text[p.Offset:p.Offset+len(p.Text)] == p.Text. An unterminated literal or
// comment runs to the end of the text, so it swallows any ';' after it; Parse
// then reports it. A Piece keeps the tokens Split found, so that ParsePiece
// does not lex its text again.
func Split(text string) []Piece {
	var pieces []Piece
	toks := lex(text)
	first := 0         // index of the first token of the current statement
	versioned := false // inside an executed versioned comment
	for i, t := range toks {
		switch t.marker {
		case markOpen:
			versioned = true
		case markClose:
			versioned = false
		}
		if t.kind == tokPunct && text[t.start] == ';' && !versioned {
			pieces = appendPiece(pieces, text, toks[first:i])
			first = i + 1
		}
	}
	return appendPiece(pieces, text, toks[first:])
}

// appendPiece appends the statement made of toks, without the white space around
// it, unless it is only white space and comments.
func appendPiece(pieces []Piece, text string, toks []token) []Piece {
	hasCode := false
	for _, t := range toks {
		hasCode = hasCode || !t.trivia()
	}
	if !hasCode {
		return pieces
	}
	for toks[0].kind == tokSpace {
		toks = toks[1:]
	}
	for toks[len(toks)-1].kind == tokSpace {
		toks = toks[:len(toks)-1]
	}
	from, to := toks[0].start, toks[len(toks)-1].end
	piece := Piece{Text: text[from:to], Offset: from}
	switch {
	case strings.HasSuffix(piece.Text, "--"):
		// The piece's tokens are the ones lexing it alone gives, except
		// for two dashes before the ';': alone, they start a comment.
	case from == 0:
		piece.toks = toks // their offsets are the piece's already
	default:
		piece.toks = make([]token, len(toks))
		for i, t := range toks {
			t.start -= from
			t.end -= from
			piece.toks[i] = t
		}
	}
	return append(pieces, piece)
}

// IsComment reports whether text holds comments and no code, such as a
// versioned comment for another version ("/*!99999 SET x=1 */") or MariaDB's
// "/*M! */". MySQL answers such a statement with OK, and an empty one (no
// comment either) with error 1065.
func IsComment(text string) bool {
	if len(Split(text)) > 0 {
		return false
	}
	comment := false
	for _, t := range lex(text) {
		if t.unterminated {
			return false
		}
		comment = comment || t.kind == tokComment
	}
	return comment
}
