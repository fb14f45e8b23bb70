package sql

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glint-search/glint/sql/catalog"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// systemVariables are the @@variables clients ask for on connect, with the
// values glint reports. Integers are int64 so that clients get numeric columns.
func (s *Session) systemVariables() map[string]any {
	vars := map[string]any{
		"version":                  s.engine.version(),
		"version_comment":          "glint full-text search server",
		"version_compile_os":       "Linux",
		"version_compile_machine":  "x86_64",
		"max_allowed_packet":       int64(s.engine.listener.MaxAllowedPacket),
		"autocommit":               int64(1),
		"auto_increment_increment": int64(1),
		"auto_increment_offset":    int64(1),
		"character_set_client":     "utf8mb4",
		"character_set_connection": "utf8mb4",
		"character_set_results":    "utf8mb4",
		"character_set_server":     "utf8mb4",
		"character_set_database":   "utf8mb4",
		"character_set_system":     "utf8mb3",
		"collation_connection":     "utf8mb4_general_ci",
		"collation_server":         "utf8mb4_general_ci",
		"collation_database":       "utf8mb4_general_ci",
		"sql_mode":                 "",
		"system_time_zone":         "UTC",
		"time_zone":                "SYSTEM",
		"tx_isolation":             "REPEATABLE-READ",
		"transaction_isolation":    "REPEATABLE-READ",
		"tx_read_only":             int64(0),
		"transaction_read_only":    int64(0),
		"lower_case_table_names":   int64(1),
		"wait_timeout":             seconds(s.engine.listener.IdleTimeout),
		"interactive_timeout":      seconds(s.engine.listener.IdleTimeout),
		"net_read_timeout":         seconds(s.engine.listener.ReadTimeout),
		"net_write_timeout":        seconds(s.engine.listener.WriteTimeout),
		"lock_wait_timeout":        int64(31536000),
		"net_buffer_length":        int64(16384),
		"license":                  "Apache-2.0",
		"init_connect":             "",
		"have_ssl":                 map[bool]string{false: "DISABLED", true: "YES"}[s.engine.listener.TLS],
		"query_cache_size":         int64(0),
		"query_cache_type":         "OFF",
		"performance_schema":       int64(0),
		"session_track_gtids":      "OFF",
		"sql_select_limit":         int64(20),
		"default_storage_engine":   "glint",
		"hostname":                 "localhost",
		"port":                     int64(9306),
		// Of the statement before this one, as SHOW WARNINGS tells them
		// (read while this one runs, before its own replace them).
		"warning_count": int64(len(s.warnings)),
		"error_count":   s.errorCount(),
		// LAST_INSERT_ID() (and its older name), as MySQL gives them.
		"last_insert_id": s.lastInsertID,
		"identity":       s.lastInsertID,
	}
	for name, v := range booleanVariables {
		if _, ok := vars[name]; !ok {
			vars[name] = v
		}
	}
	maps.Copy(vars, compatVariables)
	return vars
}

// collationVariables name a collation (collation.go); collation_connection
// is the one that orders a session's strings.
var collationVariables = map[string]bool{
	"collation_connection": true,
	"collation_server":     true,
	"collation_database":   true,
}

// booleanVariables are MySQL's boolean session variables that clients and
// dumps set (mysqldump saves and restores foreign_key_checks, unique_checks
// and sql_notes), with MySQL's defaults. SET takes what MySQL takes for
// them: ON, OFF (bare or quoted, any case), TRUE, FALSE, 1, 0 and DEFAULT;
// anything else is MySQL's error 1231 (1232 for a decimal or float).
var booleanVariables = map[string]int64{
	"autocommit":                      1,
	"big_tables":                      0,
	"default_table_encryption":        0,
	"end_markers_in_json":             0,
	"explicit_defaults_for_timestamp": 1,
	"foreign_key_checks":              1,
	"keep_files_on_create":            0,
	"low_priority_updates":            0,
	"old_alter_table":                 0,
	"print_identified_with_as_hex":    0,
	"show_create_table_verbosity":     0,
	"sql_auto_is_null":                0,
	"sql_big_selects":                 1,
	"sql_buffer_result":               0,
	"sql_log_bin":                     1,
	"sql_log_off":                     0,
	"sql_notes":                       1,
	"sql_quote_show_create":           1,
	"sql_require_primary_key":         0,
	"sql_safe_updates":                0,
	"sql_warnings":                    0,
	"transaction_read_only":           0,
	"tx_read_only":                    0,
	"unique_checks":                   1,
	"windowing_use_high_precision":    1,
}

// readOnlyVariables are the system variables that tell what the server is
// (its version, build, host, port, features); as in MySQL, a SET of one is
// error 1238 and sets nothing.
var readOnlyVariables = map[string]bool{
	"version":                 true,
	"version_comment":         true,
	"version_compile_os":      true,
	"version_compile_machine": true,
	"character_set_system":    true,
	"have_ssl":                true,
	"license":                 true,
	"lower_case_table_names":  true,
	"performance_schema":      true,
	"system_time_zone":        true,
	"hostname":                true,
	"port":                    true,
	"warning_count":           true,
	"error_count":             true,
	"last_insert_id":          true,
	"identity":                true,
}

// compatVariables are MySQL system variables that connectors, ORMs and
// dump tools set when they connect (session tracking, the client side's
// limits, the catalog's caching) and that change nothing in glint: a SET
// of one is kept and read back, as the dialect's page keeps `SET NAMES`.
// The values are MySQL 8.0's defaults.
var compatVariables = map[string]any{
	"character_set_filesystem":        "binary",
	"default_week_format":             int64(0),
	"div_precision_increment":         int64(4),
	"group_concat_max_len":            int64(1024),
	"information_schema_stats_expiry": int64(86400),
	"innodb_lock_wait_timeout":        int64(50),
	"lc_time_names":                   "en_US",
	"net_retry_count":                 int64(10),
	"session_track_schema":            "ON",
	"session_track_state_change":      "OFF",
	"session_track_system_variables":  "time_zone,autocommit,character_set_client,character_set_results,character_set_connection",
	"session_track_transaction_info":  "OFF",
}

// Variables that glint acts on take only values it can act on: a number
// of seconds for the connection's timeouts and a lock's wait
// (lock_wait_timeout, see readLocks), a size for max_allowed_packet
// (which, as in MySQL, a session reads and only SET GLOBAL changes: the
// connections made after it take it), a row count for sql_select_limit
// (the rows of a SELECT without LIMIT).
var (
	timeoutVariables = map[string]bool{"wait_timeout": true, "interactive_timeout": true,
		"net_read_timeout": true, "net_write_timeout": true, "lock_wait_timeout": true}
	// maxTimeout is MySQL's upper bound of the timeouts: a year, in seconds.
	maxTimeout = int64(31536000)
	// MySQL's bounds of max_allowed_packet: 1 KiB to 1 GiB, in whole KiB.
	minPacket, maxPacket = int64(1024), int64(1 << 30)
)

// setDefault is the value of a SET to DEFAULT: the session's value goes
// back to the one sessions start with, the global one to the server's.
type setDefault struct{}

// globalVars are the values SET GLOBAL gave: sessions opened after it
// start with them (those open keep theirs, as in MySQL).
type globalVars struct {
	mu   sync.Mutex
	vars atomic.Pointer[map[string]any] // replaced, never changed; nil: none
}

func (g *globalVars) get(name string) (any, bool) {
	if m := g.vars.Load(); m != nil {
		v, ok := (*m)[name]
		return v, ok
	}
	return nil, false
}

// set stores values (setDefault removes one).
func (g *globalVars) set(values map[string]any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := map[string]any{}
	if old := g.vars.Load(); old != nil {
		maps.Copy(m, *old)
	}
	for k, v := range values {
		if _, ok := v.(setDefault); ok {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	g.vars.Store(&m)
}

// variable returns the session's value of a system variable: its SET wins,
// then what SET GLOBAL said when the session began, then the server's.
func (s *Session) variable(name string) (any, bool) {
	name = strings.ToLower(name)
	if v, ok := s.vars[name]; ok {
		return v, true
	}
	v, ok := s.systemVariables()[name]
	return v, ok
}

// globalVariable returns the global value of a system variable (@@global.x).
func (s *Session) globalVariable(name string) (any, bool) {
	name = strings.ToLower(name)
	if v, ok := s.engine.globals.get(name); ok {
		return v, true
	}
	v, ok := s.systemVariables()[name]
	return v, ok
}

// scopedVariable is @@x or @@session.x (the session's value) or
// @@global.x; an unknown name is MySQL's error 1193.
func (s *Session) scopedVariable(name string, global bool) (any, error) {
	v, ok := s.variable(name)
	if global {
		v, ok = s.globalVariable(name)
	}
	if !ok {
		return nil, Errorf(CodeUnknownVariable, "Unknown system variable '%s'", name)
	}
	return v, nil
}

// execSet runs SET: a user variable (@name) takes any value; a system
// variable must be one glint knows (error 1193 otherwise, as in MySQL) and
// takes what MySQL lets it take. SET or SET SESSION changes this session's
// value; SET GLOBAL the value of the sessions opened after it. SET NAMES and
// character sets are accepted (glint speaks utf8mb4). As in MySQL, a
// statement with a value a variable cannot take sets nothing.
func (s *Session) execSet(n *ast.SetStmt) (*Result, error) {
	sc := &scope{sess: s}
	var users, session, global map[string]any
	put := func(m *map[string]any, name string, v any) {
		if *m == nil {
			*m = map[string]any{}
		}
		(*m)[name] = v
	}
	var warnings []warning
	chars, oneShot := transactionChars(n)
	var nextReadOnly *bool
	for _, a := range n.Variables {
		if a.Name == ast.SetNames && a.ExtendValue != nil {
			// SET NAMES utf8mb4 COLLATE c, as connectors set a collation:
			// collation_connection = c.
			a = &ast.VariableAssignment{Name: "collation_connection", Value: a.ExtendValue, IsSystem: true}
		}
		if a.Value == nil || a.Name == ast.SetNames || a.Name == ast.SetCharset {
			continue
		}
		name := strings.ToLower(a.Name)
		if chars {
			// SET [GLOBAL | SESSION] TRANSACTION READ ONLY, READ WRITE,
			// ISOLATION LEVEL ...: the parser's values are text.
			v, _ := a.Value.(ast.ValueExpr)
			if v == nil {
				continue
			}
			switch name {
			case "tx_read_only":
				ro := v.GetValue() == "1"
				switch {
				case oneShot:
					nextReadOnly = &ro
				case a.IsGlobal:
					put(&global, "transaction_read_only", boolValue(ro))
				default:
					put(&session, "transaction_read_only", boolValue(ro))
				}
			case "tx_isolation":
				// (Every statement sees what was written before it: the
				// level is kept and read back.)
				if a.IsGlobal {
					put(&global, "transaction_isolation", v.GetValue())
				} else {
					put(&session, "transaction_isolation", v.GetValue())
				}
			}
			continue
		}
		if !a.IsSystem {
			e, err := sc.compile(a.Value)
			if err != nil {
				// Values built from functions glint lacks are accepted
				// without being stored, as connectors send such SETs.
				continue
			}
			if v, err := e.eval(nil); err == nil {
				put(&users, name, v)
			}
			continue
		}
		v, store, w, err := s.systemValue(sc, name, a.Value, a.IsGlobal)
		switch {
		case err != nil:
			return nil, err
		case w != nil:
			warnings = append(warnings, *w)
		}
		switch {
		case !store:
		case a.IsGlobal:
			put(&global, name, v)
		default:
			put(&session, name, v)
		}
	}
	maps.Copy(s.userVars, users)
	aliases(session)
	aliases(global)
	for k, v := range session {
		if _, ok := v.(setDefault); ok {
			// The global value, as MySQL's SET SESSION x = DEFAULT.
			delete(s.vars, k)
			if g, ok := s.engine.globals.get(k); ok {
				s.vars[k] = g
			}
		} else {
			s.vars[k] = v
		}
	}
	if global != nil {
		s.engine.globals.set(global)
	}
	if nextReadOnly != nil {
		s.nextReadOnly = nextReadOnly
	}
	s.pending = append(s.pending, warnings...)
	return &Result{}, nil
}

// transactionChars reports whether n is SET [GLOBAL | SESSION]
// TRANSACTION ..., which the parser gives as assignments of tx_read_only
// and tx_isolation with text values; oneShot when it names no scope: then,
// as in MySQL, it is for the next transaction only.
func transactionChars(n *ast.SetStmt) (chars, oneShot bool) {
	words := strings.Fields(n.Text())
	switch {
	case len(words) < 3 || !strings.EqualFold(words[0], "SET"):
		return false, false
	case strings.EqualFold(words[1], "TRANSACTION"):
		return true, true
	case strings.EqualFold(words[2], "TRANSACTION"):
		return strings.EqualFold(words[1], "GLOBAL") || strings.EqualFold(words[1], "SESSION") || strings.EqualFold(words[1], "LOCAL"), false
	}
	return false, false
}

// variableAliases are names MySQL has for one variable (the old and the
// new): a SET of one sets both.
var variableAliases = map[string]string{
	"tx_read_only": "transaction_read_only", "transaction_read_only": "tx_read_only",
	"tx_isolation": "transaction_isolation", "transaction_isolation": "tx_isolation",
}

// aliases adds to the values a SET gives those of the names' aliases.
func aliases(values map[string]any) {
	for k, v := range values {
		if a, ok := variableAliases[k]; ok {
			values[a] = v
		}
	}
}

// systemValue checks the value a SET gives system variable name and
// returns what to store (setDefault for DEFAULT), perhaps with a warning;
// store is false when the value is one glint cannot compute (built from
// functions it lacks: accepted without being stored, as connectors send
// such SETs).
func (s *Session) systemValue(sc *scope, name string, value ast.ExprNode, global bool) (v any, store bool, w *warning, err error) {
	def, known := s.systemVariables()[name]
	switch {
	case !known:
		return nil, false, nil, Errorf(CodeUnknownVariable, "Unknown system variable '%s'", name)
	case readOnlyVariables[name]:
		return nil, false, nil, Errorf(CodeReadOnlyVariable, "Variable '%s' is a read only variable", name)
	case name == "max_allowed_packet" && !global:
		return nil, false, nil, Errorf(CodeGlobalVariable, "SESSION variable '%s' is read-only. Use SET GLOBAL to assign the value", name)
	}
	if _, ok := value.(*ast.DefaultExpr); ok {
		return setDefault{}, true, nil, nil
	}
	// A bare word is its name: SET autocommit=OFF, SET sql_mode=ANSI.
	if w, ok := value.(*ast.ColumnNameExpr); ok {
		if w.Name.Table.O != "" {
			return nil, false, nil, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%s'", name, w.Name.String())
		}
		v = w.Name.Name.O
		if _, isInt := def.(int64); isInt {
			switch strings.ToUpper(w.Name.Name.O) {
			case "ON", "TRUE":
				v = int64(1)
			case "OFF", "FALSE":
				v = int64(0)
			}
		}
	} else {
		e, err := sc.compile(value)
		if err != nil {
			return nil, false, nil, nil
		}
		if v, err = e.eval(nil); err != nil {
			return nil, false, nil, nil
		}
	}
	if _, ok := booleanVariables[name]; ok {
		b, err := booleanValue(name, v)
		return b, err == nil, nil, err
	}
	switch {
	case name == "time_zone":
		z, _ := v.(string)
		if _, ok := catalog.ParseZone(z); !ok {
			return nil, false, nil, Errorf(CodeUnknownTimeZone, "Unknown or incorrect time zone: '%s' (glint takes SYSTEM, an offset from '-13:59' to '+14:00' or a name like 'Europe/Paris')", displayString(v))
		}
		return z, true, nil, nil
	case collationVariables[name]:
		c, _ := v.(string)
		if _, ok := parseCollation(c); !ok {
			return nil, false, nil, Errorf(CodeUnknownCollation, "Unknown collation: '%s' (glint takes libc_ci, libc_cs, utf8_general_ci, binary, or MySQL's names of UTF-8 collations ending in _ci, _cs or _bin)", displayString(v))
		}
		return strings.ToLower(c), true, nil, nil // (as MySQL reads names back)
	case timeoutVariables[name]:
		n, err := integerValue(name, v, 1, maxTimeout)
		return n, err == nil, nil, err
	case name == "sql_select_limit":
		n, err := integerValue(name, v, 0, 1<<31-1)
		return n, err == nil, nil, err
	case name == "max_allowed_packet":
		n, err := integerValue(name, v, minPacket, maxPacket)
		if err != nil || n%1024 == 0 {
			return n, err == nil, nil, err
		}
		// MySQL takes whole KiB, and says so.
		return n &^ 1023, true, &warning{level: "Warning", code: CodeTruncatedValue,
			msg: fmt.Sprintf("Truncated incorrect max_allowed_packet value: '%d'", n)}, nil
	}
	return v, true, nil, nil
}

// booleanValue checks the value of a SET of a boolean variable the way
// MySQL does: a bare word or a string is ON or OFF in any case, a number
// 0 or 1 (TRUE and FALSE are numbers).
func booleanValue(name string, v any) (int64, error) {
	switch x := v.(type) {
	case nil:
		return 0, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of 'NULL'", name)
	case string:
		switch {
		case strings.EqualFold(x, "ON"):
			return 1, nil
		case strings.EqualFold(x, "OFF"):
			return 0, nil
		}
		return 0, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%s'", name, x)
	case int64:
		if x != 0 && x != 1 {
			return 0, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%d'", name, x)
		}
		return x, nil
	case uint64:
		if x > 1 {
			return 0, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%d'", name, x)
		}
		return int64(x), nil
	}
	return 0, Errorf(CodeWrongVariableType, "Incorrect argument type to variable '%s'", name)
}

// integerValue checks the value of a SET of a variable that takes an
// integer from lo to hi.
func integerValue(name string, v any, lo, hi int64) (int64, error) {
	var n int64
	switch x := v.(type) {
	case nil:
		return 0, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of 'NULL'", name)
	case int64:
		n = x
	case uint64:
		if x > uint64(hi) {
			return 0, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%d' (it takes %d to %d)", name, x, lo, hi)
		}
		n = int64(x)
	default:
		return 0, Errorf(CodeWrongVariableType, "Incorrect argument type to variable '%s'", name)
	}
	if n < lo || n > hi {
		return 0, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%d' (it takes %d to %d)", name, n, lo, hi)
	}
	return n, nil
}

// seconds is a timeout in whole seconds, as @@variables tell it (a part of
// a second counts as one).
func seconds(d time.Duration) int64 {
	return int64((d + time.Second - 1) / time.Second)
}

// zone is the session's time zone (@@time_zone), nil for UTC.
func (s *Session) zone() *time.Location {
	if name, ok := s.vars["time_zone"].(string); ok {
		if loc, ok := catalog.ParseZone(name); ok && loc != time.UTC {
			return loc
		}
	}
	return nil
}

// writeAllowed refuses what the session's variables forbid, as MySQL
// does: with @@transaction_read_only (SET SESSION TRANSACTION READ ONLY,
// a read-only connection of a JDBC tool) every write and every change of
// a table (and the JSON API's writes: readOnly); with @@sql_safe_updates
// (on in MySQL Workbench) an UPDATE or DELETE whose WHERE does not name
// the id, the table's key (glint's have no LIMIT, MySQL's other way out).
// A statement a cluster's log applies is the member's, never refused
// here.
func (s *Session) writeAllowed(n ast.StmtNode) error {
	if len(s.vars) == 0 && s.nextReadOnly == nil || s.applying != nil {
		return nil // (the defaults forbid nothing)
	}
	if _, write := changedTables(n); write {
		if err := s.readOnly(); err != nil {
			return err
		}
	}
	if !truthy(s.vars["sql_safe_updates"]) {
		return nil
	}
	var where ast.ExprNode
	switch n := n.(type) {
	case *ast.UpdateStmt:
		where = n.Where
	case *ast.DeleteStmt:
		where = n.Where
	default:
		return nil
	}
	if !namesID(where) {
		return Errorf(CodeSafeUpdates, "You are using safe update mode and you tried to update a table without a WHERE that uses a KEY column (the id). To disable safe mode, SET sql_safe_updates = 0")
	}
	return nil
}

// errorCount is @@error_count: the errors of the statement before (one
// when it failed).
func (s *Session) errorCount() int64 {
	if s.lastError != nil {
		return 1
	}
	return 0
}

// readOnly is the error of a write in a session whose
// @@transaction_read_only is 1, nil in any other.
func (s *Session) readOnly() error {
	ro := truthy(s.vars["transaction_read_only"])
	if s.nextReadOnly != nil {
		ro = *s.nextReadOnly
	}
	if s.applying == nil && ro {
		return Errorf(CodeReadOnlyTransaction, "Cannot execute statement in a READ ONLY transaction (this session's @@transaction_read_only is 1)")
	}
	return nil
}

// namesID reports whether an expression reads the id column.
func namesID(e ast.ExprNode) bool {
	return holds(e, func(n ast.Node) bool {
		c, ok := n.(*ast.ColumnNameExpr)
		return ok && strings.EqualFold(c.Name.Name.O, "id")
	})
}

// quoteShowCreate is @@sql_quote_show_create: whether SHOW CREATE TABLE
// and SHOW CREATE DATABASE write names in backquotes (1 unless set).
func (s *Session) quoteShowCreate() bool {
	v, ok := s.vars["sql_quote_show_create"]
	return !ok || truthy(v)
}

// checksReferences is @@foreign_key_checks: whether CREATE TABLE checks
// that the tables a distributed table names as local exist (1 unless
// set). As MySQL lets a foreign key name a table not yet created while it
// is 0, glint lets a distributed table name its local shards before they
// are created: mysqldump sets it to 0 for the restore and writes the
// tables in name order, a distributed table before the shards it comes
// after in the alphabet. A local shard that is still missing is the error
// of the query that reads it, as one dropped later is.
func (s *Session) checksReferences() bool {
	v, ok := s.vars["foreign_key_checks"]
	return !ok || truthy(v)
}

// quoted is a name as SHOW CREATE writes it in this session.
func (s *Session) quoted(name string) string {
	if s.quoteShowCreate() {
		return quoteName(name)
	}
	return name
}

// selectLimit is the rows of a SELECT without LIMIT: @@sql_select_limit,
// 20 unless set.
func (s *Session) selectLimit() int {
	if v, ok := s.vars["sql_select_limit"].(int64); ok {
		return int(v)
	}
	return defaultLimit
}

// timeout is a timeout variable's value as a duration (def when the
// session holds none).
func (s *Session) timeout(name string, def time.Duration) time.Duration {
	if v, ok := s.vars[name].(int64); ok {
		return time.Duration(v) * time.Second
	}
	return def
}

// ConnTimeouts are what the session's MySQL connection waits for: a next
// command (@@wait_timeout), the rest of a packet (@@net_read_timeout), a
// write (@@net_write_timeout). The server asks after every command.
func (s *Session) ConnTimeouts() (idle, read, write time.Duration) {
	l := &s.engine.listener
	if len(s.vars) == 0 {
		return l.IdleTimeout, l.ReadTimeout, l.WriteTimeout
	}
	return s.timeout("wait_timeout", l.IdleTimeout), s.timeout("net_read_timeout", l.ReadTimeout),
		s.timeout("net_write_timeout", l.WriteTimeout)
}

// MaxAllowedPacket is the largest packet the session's client may send:
// the global @@max_allowed_packet when the session began.
func (s *Session) MaxAllowedPacket() int {
	if v, ok := s.vars["max_allowed_packet"].(int64); ok {
		return int(v)
	}
	return s.engine.listener.MaxAllowedPacket
}

// Interactive says that the session's client is interactive (it said so
// in its handshake, as the mysql client does): as in MySQL, its
// wait_timeout starts as the global interactive_timeout.
func (s *Session) Interactive() {
	if v, ok := s.globalVariable("interactive_timeout"); ok {
		s.vars["wait_timeout"] = v
	}
}

// Autocommit reports whether @@autocommit is on. glint commits every
// statement on its own either way; clients read the flag from the status
// of each answer.
// The server asks after every statement, so a session that never set it
// answers from the default without building systemVariables' map (that
// was 2.7% of glintd's CPU under the race's search workload).
func (s *Session) Autocommit() bool {
	v, ok := s.vars["autocommit"]
	if !ok {
		return true // systemVariables: autocommit 1
	}
	return truthy(v)
}
