package server

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/glint-search/glint/sql"
	"github.com/go-mysql-org/go-mysql/mysql"
)

// wireError is how one sql.Code looks on each protocol.
type wireError struct {
	number uint16 // MySQL error number
	state  string // SQLSTATE
	status int    // HTTP status
}

// classify returns the wire form and message of any error: an *sql.Error by its
// Code, an error that is already a *mysql.MyError as is (status 400), anything
// else as an internal error.
func classify(err error) (wireError, string) {
	var se *sql.Error
	if errors.As(err, &se) {
		return wireOf(se.Code), se.Msg
	}
	var me *mysql.MyError
	if errors.As(err, &me) {
		return wireError{me.Code, me.State, http.StatusBadRequest}, me.Message
	}
	return wireOf(sql.CodeInternal), err.Error()
}

// wireOf is code's row of the one table (sql's codes).
func wireOf(code sql.Code) wireError {
	number, state := code.MySQL()
	return wireError{number, state, code.HTTPStatus()}
}

// mysqlError converts any error into the error packet a MySQL client gets.
func mysqlError(err error) *mysql.MyError {
	w, msg := classify(err)
	return &mysql.MyError{Code: w.number, State: w.state, Message: msg}
}

// httpError converts any error into an HTTP status and message.
func httpError(err error) (status int, msg string) {
	w, msg := classify(err)
	return w.status, msg
}

// errTooManyStatements is the error for one prepared statement too many.
func errTooManyStatements(limit int) error {
	return &mysql.MyError{Code: mysql.ER_MAX_PREPARED_STMT_COUNT_REACHED, State: "42000",
		Message: fmt.Sprintf("too many prepared statements on this connection (limit %d): close the statements you no longer use", limit)}
}
