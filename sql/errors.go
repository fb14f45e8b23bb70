package sql

import (
	"net/http"

	"context"
	"errors"
	"fmt"
	"github.com/go-mysql-org/go-mysql/mysql"
	"strings"
	"syscall"

	"github.com/glint-search/glint/index"
)

// Code classifies an error (or a warning). Each has one row in codes: its
// name, MySQL error number and SQLSTATE, and HTTP status.
type Code int

// Error codes.
const (
	CodeInternal            Code = iota // a server fault (MySQL 1105)
	CodeSyntax                          // statement syntax error (1064)
	CodeEmptyQuery                      // empty statement (1065)
	CodeNoSuchTable                     // unknown table (1146)
	CodeTableExists                     // table already exists (1050)
	CodeNoSuchColumn                    // unknown column (1054)
	CodeDuplicateID                     // duplicate document id (1062)
	CodeWrongValue                      // value of the wrong type or out of range (1366)
	CodeWrongCount                      // column count does not match value count (1136)
	CodeBadOption                       // unknown option or setting, or a bad value for one (1210)
	CodeQuerySyntax                     // full-text query syntax error (1064)
	CodeUnsupported                     // a statement or feature glint does not have (1235)
	CodeCancelled                       // the client went away or the query was killed (1317)
	CodeAccessDenied                    // bad user or password (1045)
	CodePacketTooLarge                  // packet over max_allowed_packet (1153)
	CodeNotPreparable                   // statement cannot be prepared (1295)
	CodeNoSuchDB                        // unknown database (1049)
	CodeUnknownVariable                 // unknown system variable (1193)
	CodeQueryTimeout                    // the statement ran past the server's max_query_time (3024)
	CodeUnknownStatement                // EXECUTE or DEALLOCATE of an unknown prepared statement (1243)
	CodeTooManyStatements               // a prepared statement past max_prepared_statements (1461)
	CodeDiskFull                        // the data directory's disk is full; nothing of the statement was written (1114)
	CodeHighlightTruncated              // a warning: rows past the highlighting work budget show their beginning (1265)
	CodeShardFailed                     // a shard of a distributed table did not answer (1105; HTTP 502)
	CodeCluster                         // a replication cluster statement that cannot be done as asked (1105)
	CodeClusterUnavailable              // a cluster has no leader, or a write's outcome is unknown (1105; HTTP 503)
	CodeRowsDropped                     // a warning: rows of a distributed page changed on their shard between query and fetch (1105)
	CodeWrongVariableValue              // SET of a system variable to a value it cannot take (1231)
	CodeWrongVariableType               // SET of a system variable to a value of a type it cannot take (1232)
	CodeReadOnlyVariable                // SET of a system variable that only the server sets (1238)
	CodeGlobalVariable                  // SET SESSION of a variable only SET GLOBAL changes (1621)
	CodeTruncatedValue                  // a warning: a SET's value was cut to one the variable takes (1292)
	CodeUnknownTimeZone                 // SET time_zone to a zone glint does not know (1298)
	CodeReadOnlyTransaction             // a write in a session whose @@transaction_read_only is 1 (1792)
	CodeSafeUpdates                     // an UPDATE or DELETE without a key or LIMIT under @@sql_safe_updates (1175)
	CodeNoSavepoint                     // ROLLBACK TO or RELEASE of a SAVEPOINT the transaction has not set (1305)
	CodeDatabaseExists                  // CREATE DATABASE of a database glint has (1007)
	CodeReadLock                        // a write by a session that holds a read lock on its table (1223)
	CodeLockWaitTimeout                 // a wait for a lock past @@lock_wait_timeout (1205)
	CodeNoSuchThread                    // KILL of a connection id the server does not have (1094)
	CodeUnknownCollation                // SET collation_connection to a collation glint does not have (1273)
	CodeOutOfRange                      // integer arithmetic past 64 bits (1690)
	CodeCollationMix                    // a comparison of operands that name two collations (1267)
	CodeTooLongName                     // a table or column name over 64 characters (1059)

	numCodes // not a code: how many there are
)

// codes is the one table from a Code to its name (golden files print it),
// MySQL error number and SQLSTATE (errors and SHOW WARNINGS) and HTTP status.
var codes = [numCodes]codeInfo{
	CodeInternal:            {"Internal", mysql.ER_UNKNOWN_ERROR, "HY000", http.StatusInternalServerError},
	CodeSyntax:              {"Syntax", mysql.ER_PARSE_ERROR, "42000", http.StatusBadRequest},
	CodeEmptyQuery:          {"EmptyQuery", mysql.ER_EMPTY_QUERY, "42000", http.StatusBadRequest},
	CodeNoSuchTable:         {"NoSuchTable", mysql.ER_NO_SUCH_TABLE, "42S02", http.StatusBadRequest},
	CodeTableExists:         {"TableExists", mysql.ER_TABLE_EXISTS_ERROR, "42S01", http.StatusBadRequest},
	CodeNoSuchColumn:        {"NoSuchColumn", mysql.ER_BAD_FIELD_ERROR, "42S22", http.StatusBadRequest},
	CodeDuplicateID:         {"DuplicateID", mysql.ER_DUP_ENTRY, "23000", http.StatusConflict},
	CodeWrongValue:          {"WrongValue", mysql.ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, "HY000", http.StatusBadRequest},
	CodeWrongCount:          {"WrongCount", mysql.ER_WRONG_VALUE_COUNT_ON_ROW, "21S01", http.StatusBadRequest},
	CodeBadOption:           {"BadOption", mysql.ER_WRONG_ARGUMENTS, "HY000", http.StatusBadRequest},
	CodeQuerySyntax:         {"QuerySyntax", mysql.ER_PARSE_ERROR, "42000", http.StatusBadRequest},
	CodeUnsupported:         {"Unsupported", mysql.ER_NOT_SUPPORTED_YET, "42000", http.StatusBadRequest},
	CodeCancelled:           {"Cancelled", mysql.ER_QUERY_INTERRUPTED, "70100", http.StatusServiceUnavailable},
	CodeAccessDenied:        {"AccessDenied", mysql.ER_ACCESS_DENIED_ERROR, "28000", http.StatusUnauthorized},
	CodePacketTooLarge:      {"PacketTooLarge", mysql.ER_NET_PACKET_TOO_LARGE, "08S01", http.StatusRequestEntityTooLarge},
	CodeNotPreparable:       {"NotPreparable", mysql.ER_UNSUPPORTED_PS, "HY000", http.StatusBadRequest},
	CodeNoSuchDB:            {"NoSuchDB", mysql.ER_BAD_DB_ERROR, "42000", http.StatusBadRequest},
	CodeUnknownVariable:     {"UnknownVariable", mysql.ER_UNKNOWN_SYSTEM_VARIABLE, "HY000", http.StatusBadRequest},
	CodeQueryTimeout:        {"QueryTimeout", erQueryTimeout, "HY000", http.StatusServiceUnavailable},
	CodeUnknownStatement:    {"UnknownStatement", mysql.ER_UNKNOWN_STMT_HANDLER, "HY000", http.StatusBadRequest},
	CodeTooManyStatements:   {"TooManyStatements", mysql.ER_MAX_PREPARED_STMT_COUNT_REACHED, "42000", http.StatusBadRequest},
	CodeDiskFull:            {"DiskFull", mysql.ER_RECORD_FILE_FULL, "HY000", http.StatusInsufficientStorage},
	CodeHighlightTruncated:  {"HighlightTruncated", mysql.WARN_DATA_TRUNCATED, "01000", http.StatusOK},
	CodeShardFailed:         {"ShardFailed", mysql.ER_UNKNOWN_ERROR, "HY000", http.StatusBadGateway},
	CodeCluster:             {"Cluster", mysql.ER_UNKNOWN_ERROR, "HY000", http.StatusBadRequest},
	CodeClusterUnavailable:  {"ClusterUnavailable", mysql.ER_UNKNOWN_ERROR, "HY000", http.StatusServiceUnavailable},
	CodeRowsDropped:         {"RowsDropped", mysql.ER_UNKNOWN_ERROR, "01000", http.StatusOK},
	CodeWrongVariableValue:  {"WrongVariableValue", mysql.ER_WRONG_VALUE_FOR_VAR, "42000", http.StatusBadRequest},
	CodeWrongVariableType:   {"WrongVariableType", mysql.ER_WRONG_TYPE_FOR_VAR, "42000", http.StatusBadRequest},
	CodeReadOnlyVariable:    {"ReadOnlyVariable", mysql.ER_INCORRECT_GLOBAL_LOCAL_VAR, "HY000", http.StatusBadRequest},
	CodeGlobalVariable:      {"GlobalVariable", mysql.ER_VARIABLE_IS_READONLY, "HY000", http.StatusBadRequest},
	CodeTruncatedValue:      {"TruncatedValue", mysql.ER_TRUNCATED_WRONG_VALUE, "01000", http.StatusOK},
	CodeUnknownTimeZone:     {"UnknownTimeZone", mysql.ER_UNKNOWN_TIME_ZONE, "HY000", http.StatusBadRequest},
	CodeReadOnlyTransaction: {"ReadOnlyTransaction", mysql.ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, "25006", http.StatusForbidden},
	CodeSafeUpdates:         {"SafeUpdates", mysql.ER_UPDATE_WITHOUT_KEY_IN_SAFE_MODE, "HY000", http.StatusBadRequest},
	CodeNoSavepoint:         {"NoSavepoint", mysql.ER_SP_DOES_NOT_EXIST, "42000", http.StatusBadRequest},
	CodeDatabaseExists:      {"DatabaseExists", mysql.ER_DB_CREATE_EXISTS, "HY000", http.StatusBadRequest},
	CodeReadLock:            {"ReadLock", mysql.ER_CANT_UPDATE_WITH_READLOCK, "HY000", http.StatusConflict},
	CodeLockWaitTimeout:     {"LockWaitTimeout", mysql.ER_LOCK_WAIT_TIMEOUT, "HY000", http.StatusServiceUnavailable},
	CodeNoSuchThread:        {"NoSuchThread", mysql.ER_NO_SUCH_THREAD, "HY000", http.StatusBadRequest},
	CodeUnknownCollation:    {"UnknownCollation", mysql.ER_UNKNOWN_COLLATION, "HY000", http.StatusBadRequest},
	CodeOutOfRange:          {"OutOfRange", mysql.ER_DATA_OUT_OF_RANGE, "22003", http.StatusBadRequest},
	CodeCollationMix:        {"CollationMix", mysql.ER_CANT_AGGREGATE_2COLLATIONS, "HY000", http.StatusBadRequest},
	CodeTooLongName:         {"TooLongName", mysql.ER_TOO_LONG_IDENT, "42000", http.StatusBadRequest},
}

// erQueryTimeout is MySQL's ER_QUERY_TIMEOUT (max_execution_time exceeded),
// which go-mysql does not name.
const erQueryTimeout = 3024

// String is the code's name, as golden files print it.
func (c Code) String() string { return c.info().name }

// MySQL is the code's MySQL error number and SQLSTATE.
func (c Code) MySQL() (number uint16, state string) { return c.info().number, c.info().state }

// HTTPStatus is the HTTP status of an error of this code.
func (c Code) HTTPStatus() int { return c.info().status }

type codeInfo struct {
	name   string
	number uint16
	state  string
	status int
}

func (c Code) info() codeInfo {
	if c < 0 || int(c) >= len(codes) || codes[c].name == "" {
		return codes[CodeInternal]
	}
	return codes[c]
}

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
		if name, ok := strings.CutPrefix(err.Error(), index.ErrNoSuchTable.Error()+": "); ok {
			return Errorf(CodeNoSuchTable, "unknown table '%s'", name)
		}
		return Errorf(CodeNoSuchTable, "%v", err)
	case errors.Is(err, index.ErrTableExists):
		if name, ok := strings.CutPrefix(err.Error(), index.ErrTableExists.Error()+": "); ok {
			return Errorf(CodeTableExists, "table '%s' already exists", name)
		}
		return Errorf(CodeTableExists, "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return cancelled(err)
	}
	return &Error{Code: CodeInternal, Msg: err.Error()}
}
