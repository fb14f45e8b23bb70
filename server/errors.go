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

// wireErrors is the one table from sql.Code to MySQL error number, SQLSTATE and
// HTTP status. A code missing here is treated as CodeInternal.
var wireErrors = map[sql.Code]wireError{
	sql.CodeInternal:          {mysql.ER_UNKNOWN_ERROR, "HY000", http.StatusInternalServerError},
	sql.CodeSyntax:            {mysql.ER_PARSE_ERROR, "42000", http.StatusBadRequest},
	sql.CodeEmptyQuery:        {mysql.ER_EMPTY_QUERY, "42000", http.StatusBadRequest},
	sql.CodeNoSuchTable:       {mysql.ER_NO_SUCH_TABLE, "42S02", http.StatusBadRequest},
	sql.CodeTableExists:       {mysql.ER_TABLE_EXISTS_ERROR, "42S01", http.StatusBadRequest},
	sql.CodeNoSuchColumn:      {mysql.ER_BAD_FIELD_ERROR, "42S22", http.StatusBadRequest},
	sql.CodeDuplicateID:       {mysql.ER_DUP_ENTRY, "23000", http.StatusConflict},
	sql.CodeWrongValue:        {mysql.ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, "HY000", http.StatusBadRequest},
	sql.CodeWrongCount:        {mysql.ER_WRONG_VALUE_COUNT_ON_ROW, "21S01", http.StatusBadRequest},
	sql.CodeBadOption:         {mysql.ER_WRONG_ARGUMENTS, "HY000", http.StatusBadRequest},
	sql.CodeQuerySyntax:       {mysql.ER_PARSE_ERROR, "42000", http.StatusBadRequest},
	sql.CodeUnsupported:       {mysql.ER_NOT_SUPPORTED_YET, "42000", http.StatusBadRequest},
	sql.CodeCancelled:         {mysql.ER_QUERY_INTERRUPTED, "70100", http.StatusServiceUnavailable},
	sql.CodeAccessDenied:      {mysql.ER_ACCESS_DENIED_ERROR, "28000", http.StatusUnauthorized},
	sql.CodePacketTooLarge:    {mysql.ER_NET_PACKET_TOO_LARGE, "08S01", http.StatusRequestEntityTooLarge},
	sql.CodeNotPreparable:     {mysql.ER_UNSUPPORTED_PS, "HY000", http.StatusBadRequest},
	sql.CodeNoSuchDB:          {mysql.ER_BAD_DB_ERROR, "42000", http.StatusBadRequest},
	sql.CodeUnknownVariable:   {mysql.ER_UNKNOWN_SYSTEM_VARIABLE, "HY000", http.StatusBadRequest},
	sql.CodeQueryTimeout:      {erQueryTimeout, "HY000", http.StatusServiceUnavailable},
	sql.CodeUnknownStatement:  {mysql.ER_UNKNOWN_STMT_HANDLER, "HY000", http.StatusBadRequest},
	sql.CodeTooManyStatements: {mysql.ER_MAX_PREPARED_STMT_COUNT_REACHED, "42000", http.StatusBadRequest},
	sql.CodeDiskFull:          {mysql.ER_RECORD_FILE_FULL, "HY000", http.StatusInsufficientStorage},
}

// erQueryTimeout is MySQL's ER_QUERY_TIMEOUT (max_execution_time exceeded),
// which go-mysql does not name.
const erQueryTimeout = 3024

// classify returns the wire form and message of any error: an *sql.Error by its
// Code, an error that is already a *mysql.MyError as is (status 400), anything
// else as an internal error.
func classify(err error) (wireError, string) {
	var se *sql.Error
	if errors.As(err, &se) {
		if w, ok := wireErrors[se.Code]; ok {
			return w, se.Msg
		}
		return wireErrors[sql.CodeInternal], se.Msg
	}
	var me *mysql.MyError
	if errors.As(err, &me) {
		return wireError{me.Code, me.State, http.StatusBadRequest}, me.Message
	}
	return wireErrors[sql.CodeInternal], err.Error()
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
