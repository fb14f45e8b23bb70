package sql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/glint-search/glint/index"
)

// Code classifies an error. The server maps each Code to a MySQL error number and
// SQLSTATE in exactly one place; HTTP maps it to a status.
type Code int

// Error codes.
const (
	CodeInternal          Code = iota // a server fault (MySQL 1105)
	CodeSyntax                        // statement syntax error (1064)
	CodeEmptyQuery                    // empty statement (1065)
	CodeNoSuchTable                   // unknown table (1146)
	CodeTableExists                   // table already exists (1050)
	CodeNoSuchColumn                  // unknown column (1054)
	CodeDuplicateID                   // duplicate document id (1062)
	CodeWrongValue                    // value of the wrong type or out of range (1366)
	CodeWrongCount                    // column count does not match value count (1136)
	CodeBadOption                     // unknown option or setting, or a bad value for one (1210)
	CodeQuerySyntax                   // full-text query syntax error (1064)
	CodeUnsupported                   // a statement or feature glint does not have (1235)
	CodeCancelled                     // the client went away or the query was killed (1317)
	CodeAccessDenied                  // bad user or password (1045)
	CodePacketTooLarge                // packet over max_allowed_packet (1153)
	CodeNotPreparable                 // statement cannot be prepared (1295)
	CodeNoSuchDB                      // unknown database (1049)
	CodeUnknownVariable               // unknown system variable (1193)
	CodeQueryTimeout                  // the statement ran past the server's max_query_time (3024)
	CodeUnknownStatement              // EXECUTE or DEALLOCATE of an unknown prepared statement (1243)
	CodeTooManyStatements             // a prepared statement past max_prepared_statements (1461)
	CodeDiskFull                      // the data directory's disk is full; nothing of the statement was written (1114)
)

// Error is an error of a statement, with a Code and a message that names the
// problem (and its place, where there is one).
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Errorf returns an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// asError converts any error of a lower layer into an *Error.
func asError(err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var dup *index.DuplicateIDError
	var ve *index.ValueError
	var qe *index.QueryError
	var full *index.DiskFullError
	var synced *index.SyncError
	switch {
	case errors.As(err, &synced):
		return &Error{Code: CodeInternal, Msg: strings.TrimPrefix(synced.Error(), "index: ")}
	case errors.As(err, &full):
		return Errorf(CodeDiskFull, "%s; nothing of this statement was written", strings.TrimPrefix(full.Error(), "index: "))
	case errors.Is(err, syscall.ENOSPC):
		return Errorf(CodeDiskFull, "disk full: %v", err)
	case errors.As(err, &qe):
		return Errorf(CodeQuerySyntax, "MATCH(): %s", qe.Error())
	case errors.As(err, &dup):
		return Errorf(CodeDuplicateID, "duplicate id %d", dup.ID)
	case errors.As(err, &ve):
		return Errorf(CodeWrongValue, "column '%s': %s", ve.Column, ve.Msg)
	case errors.Is(err, index.ErrNoSuchTable):
		return Errorf(CodeNoSuchTable, "%v", err)
	case errors.Is(err, index.ErrTableExists):
		return Errorf(CodeTableExists, "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return cancelled(err)
	}
	return &Error{Code: CodeInternal, Msg: err.Error()}
}
