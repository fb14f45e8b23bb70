package sql

import (
	"context"
	"path"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
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
		"wait_timeout":             int64(s.engine.listener.IdleTimeout.Seconds()),
		"interactive_timeout":      int64(s.engine.listener.IdleTimeout.Seconds()),
		"net_write_timeout":        int64(60),
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
	}
	for name, v := range booleanVariables {
		if _, ok := vars[name]; !ok {
			vars[name] = v
		}
	}
	return vars
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
}

// variable returns the value of a system variable; a SET in this session wins.
func (s *Session) variable(name string) (any, bool) {
	name = strings.ToLower(name)
	if v, ok := s.vars[name]; ok {
		return v, true
	}
	v, ok := s.systemVariables()[name]
	return v, ok
}

// execSet accepts SET statements: session variables keep their new value for
// SELECT @@name; SET NAMES and character sets are accepted (glint speaks utf8mb4).
// As in MySQL, a statement with a value a variable cannot take sets nothing.
func (s *Session) execSet(n *ast.SetStmt) (*Result, error) {
	sc := &scope{sess: s}
	var sets []func()
	for _, a := range n.Variables {
		if a.Value == nil || a.Name == ast.SetNames || a.Name == ast.SetCharset {
			continue
		}
		name := strings.ToLower(a.Name)
		if readOnlyVariables[name] && a.IsSystem {
			return nil, Errorf(CodeReadOnlyVariable, "Variable '%s' is a read only variable", name)
		}
		if _, ok := booleanVariables[name]; ok && a.IsSystem {
			set, err := s.setBoolean(sc, name, a.Value)
			if err != nil {
				return nil, err
			}
			if set != nil {
				sets = append(sets, set)
			}
			continue
		}
		if w, ok := a.Value.(*ast.ColumnNameExpr); ok && a.IsSystem && w.Name.Table.O == "" {
			// SET autocommit=OFF, SET sql_mode=ANSI: a bare word is its name.
			v := s.wordValue(name, w.Name.Name.O)
			sets = append(sets, func() { s.vars[name] = v })
			continue
		}
		e, err := sc.compile(a.Value)
		if err != nil {
			// Values built from other variables or functions glint lacks are
			// accepted without being stored, as connectors send such SETs.
			continue
		}
		v, err := e.eval(nil)
		switch {
		case err != nil:
		case !a.IsSystem:
			sets = append(sets, func() { s.userVars[name] = v })
		default:
			sets = append(sets, func() { s.vars[name] = v })
		}
	}
	for _, set := range sets {
		set()
	}
	return &Result{}, nil
}

// setBoolean checks the value of a SET of a boolean variable the way MySQL
// does and returns what stores it: a bare word or a string is ON or OFF in
// any case, a number 0 or 1 (TRUE and FALSE are numbers), DEFAULT the
// default. A value glint cannot compute is accepted without being stored,
// like those of other variables (nil, nil).
func (s *Session) setBoolean(sc *scope, name string, value ast.ExprNode) (func(), error) {
	var v any
	switch x := value.(type) {
	case *ast.DefaultExpr:
		return func() { delete(s.vars, name) }, nil
	case *ast.ColumnNameExpr:
		if x.Name.Table.O != "" {
			return nil, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%s'", name, x.Name.String())
		}
		v = x.Name.Name.O
	default:
		e, err := sc.compile(value)
		if err != nil {
			return nil, nil
		}
		if v, err = e.eval(nil); err != nil {
			return nil, nil
		}
	}
	var b int64
	switch x := v.(type) {
	case nil:
		return nil, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of 'NULL'", name)
	case string:
		switch {
		case strings.EqualFold(x, "ON"):
			b = 1
		case strings.EqualFold(x, "OFF"):
			b = 0
		default:
			return nil, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%s'", name, x)
		}
	case int64:
		if x != 0 && x != 1 {
			return nil, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%d'", name, x)
		}
		b = x
	case uint64:
		if x > 1 {
			return nil, Errorf(CodeWrongVariableValue, "Variable '%s' can't be set to the value of '%d'", name, x)
		}
		b = int64(x)
	default:
		return nil, Errorf(CodeWrongVariableType, "Incorrect argument type to variable '%s'", name)
	}
	return func() { s.vars[name] = b }, nil
}

// wordValue is the value of a bare word in a SET of a system variable: ON
// and OFF are 1 and 0 for a variable whose value is a number, as MySQL reads
// them.
func (s *Session) wordValue(name, word string) any {
	if cur, _ := s.variable(name); cur != nil {
		if _, isInt := cur.(int64); isInt {
			switch strings.ToUpper(word) {
			case "ON", "TRUE":
				return int64(1)
			case "OFF", "FALSE":
				return int64(0)
			}
		}
	}
	return word
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

// LikeMatch reports whether name matches a SQL LIKE pattern (% and _),
// case-insensitively.
func LikeMatch(pattern, name string) bool {
	var b strings.Builder
	for _, r := range strings.ToLower(pattern) {
		switch r {
		case '%':
			b.WriteByte('*')
		case '_':
			b.WriteByte('?')
		case '*', '?', '[', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	ok, err := path.Match(b.String(), strings.ToLower(name))
	return err == nil && ok
}

// showFilter returns what keeps a row of a SHOW statement: its LIKE
// pattern on the row's name, or its WHERE condition on the row (evaluated by
// the catalog's row engine over the result's columns).
func (s *Session) showFilter(n *ast.ShowStmt) (func(name string) bool, error) {
	if n.Pattern == nil {
		return func(string) bool { return true }, nil
	}
	v, ok := n.Pattern.Pattern.(ast.ValueExpr)
	if !ok {
		return nil, Errorf(CodeSyntax, "LIKE takes a quoted pattern")
	}
	p, ok := v.GetValue().(string)
	if !ok {
		return nil, Errorf(CodeSyntax, "LIKE takes a quoted pattern")
	}
	return func(name string) bool { return LikeMatch(p, name) }, nil
}

// showWhere keeps the rows of r for which SHOW ... WHERE holds.
func (s *Session) showWhere(ctx context.Context, n *ast.ShowStmt, r *Result) (*Result, error) {
	if n.Where == nil || r == nil || !r.IsResultSet() {
		return r, nil
	}
	t := &catalog.Table{Name: "show", Columns: make([]catalog.Column, len(r.Columns)), Rows: r.Rows}
	for i, c := range r.Columns {
		t.Columns[i] = catalog.Column{Name: c.Name, Type: [...]catalog.Type{catalog.String, catalog.Int, catalog.Uint, catalog.Float}[c.Type]}
	}
	rows, err := catalog.Filter(ctx, t, n.Where, s.catalogEnv(nil))
	if err != nil {
		return nil, catalogError(err)
	}
	if rows == nil {
		rows = [][]any{}
	}
	return &Result{Columns: r.Columns, Rows: rows}, nil
}

func (s *Session) execShow(ctx context.Context, n *ast.ShowStmt) (*Result, error) {
	if unlock, held := s.engine.repl.holdDBs(s); held {
		defer unlock() // (SHOW TABLES, DESCRIBE and the rest read the clusters' catalogs)
	}
	r, err := s.show(n)
	if err != nil {
		return nil, err
	}
	return s.showWhere(ctx, n, r)
}

func (s *Session) show(n *ast.ShowStmt) (*Result, error) {
	keep, err := s.showFilter(n)
	if err != nil {
		return nil, err
	}
	if n.DBName != "" && n.Tp != ast.ShowCreateDatabase && !strings.EqualFold(n.DBName, Database) && !strings.EqualFold(n.DBName, catalog.Schema) {
		return nil, Errorf(CodeNoSuchDB, "unknown database '%s'", n.DBName)
	}
	inCatalog := strings.EqualFold(n.DBName, catalog.Schema) || n.DBName == "" && strings.EqualFold(s.db, catalog.Schema)
	switch n.Tp {
	case ast.ShowTables:
		var names []string
		if inCatalog {
			for name := range catalog.InformationSchema(catalog.Information{}) {
				names = append(names, name)
			}
			sort.Strings(names)
		} else {
			names = s.engine.tableNames()
		}
		if n.Full {
			// MySQL's form, which tools read: SQLAlchemy keeps the BASE TABLE rows.
			db, typ := Database, "BASE TABLE"
			if inCatalog {
				db, typ = catalog.Schema, "SYSTEM VIEW"
			}
			r := &Result{Columns: []Column{{"Tables_in_" + db, ColString}, {"Table_type", ColString}}, Rows: [][]any{}}
			for _, name := range names {
				if keep(name) {
					r.Rows = append(r.Rows, []any{name, typ})
				}
			}
			return r, nil
		}
		r := &Result{Columns: []Column{{"Table", ColString}, {"Type", ColString}}, Rows: [][]any{}}
		for _, name := range names {
			if keep(name) {
				r.Rows = append(r.Rows, []any{name, "rt"})
			}
		}
		if !inCatalog {
			s.addDistributedTables(r, keep)
		}
		return r, nil
	case ast.ShowDatabases:
		r := &Result{Columns: []Column{{"Database", ColString}}, Rows: [][]any{}}
		for _, name := range []string{catalog.Schema, Database} {
			if keep(name) {
				r.Rows = append(r.Rows, []any{name})
			}
		}
		return r, nil
	case ast.ShowCreateDatabase:
		if !strings.EqualFold(n.DBName, Database) {
			return nil, Errorf(CodeNoSuchDB, "unknown database '%s'", n.DBName)
		}
		return &Result{Columns: []Column{{"Database", ColString}, {"Create Database", ColString}},
			Rows: [][]any{{Database, "CREATE DATABASE `" + Database + "` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */"}}}, nil
	case ast.ShowColumns:
		schema := n.Table.Schema.O
		if n.DBName != "" {
			schema = n.DBName
		}
		return s.showColumns(schema, n.Table.Name.O, n.Full, keep)
	case ast.ShowIndex:
		return s.showIndex(n.Table.Name.O)
	case ast.ShowTableStatus:
		return s.showTableStatus(keep)
	case ast.ShowCreateTable:
		if d, dist, err := s.distributed(n.Table.Name.O); dist {
			if err != nil {
				return nil, err
			}
			return &Result{Columns: []Column{{"Table", ColString}, {"Create Table", ColString}},
				Rows: [][]any{{d.name, d.createText()}}}, nil
		}
		t, err := s.table(n.Table.Name.O)
		if err != nil {
			return nil, err
		}
		sc := t.Schema()
		return &Result{
			Columns: []Column{{"Table", ColString}, {"Create Table", ColString}},
			Rows:    [][]any{{sc.Name, createTableText(sc)}},
		}, nil
	case ast.ShowVariables:
		vars := s.systemVariables()
		for k, v := range s.vars {
			vars[k] = v
		}
		names := make([]string, 0, len(vars))
		for k := range vars {
			if keep(k) {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		r := &Result{Columns: []Column{{"Variable_name", ColString}, {"Value", ColString}}, Rows: [][]any{}}
		for _, k := range names {
			r.Rows = append(r.Rows, []any{k, displayString(vars[k])})
		}
		return r, nil
	case ast.ShowStatus:
		r := &Result{Columns: []Column{{"Counter", ColString}, {"Value", ColString}}, Rows: [][]any{}}
		for _, c := range s.statusCounters() {
			if keep(c.name) {
				r.Rows = append(r.Rows, []any{c.name, c.value})
			}
		}
		return r, nil
	case ast.ShowWarnings:
		r := &Result{Columns: []Column{{"Level", ColString}, {"Code", ColInt}, {"Message", ColString}}, Rows: [][]any{}}
		for _, w := range s.warnings {
			number, _ := w.code.MySQL()
			r.Rows = append(r.Rows, []any{w.level, int64(number), w.msg})
		}
		return r, nil
	case ast.ShowCharset:
		r := &Result{Columns: []Column{{"Charset", ColString}, {"Description", ColString}, {"Default collation", ColString}, {"Maxlen", ColInt}}, Rows: [][]any{}}
		for _, row := range s.catalogRows("CHARACTER_SETS") {
			if keep(row[0].(string)) {
				r.Rows = append(r.Rows, []any{row[0], row[2], row[1], int64(row[3].(uint64))})
			}
		}
		return r, nil
	case ast.ShowCollation:
		r := &Result{Columns: []Column{{"Collation", ColString}, {"Charset", ColString}, {"Id", ColInt}, {"Default", ColString},
			{"Compiled", ColString}, {"Sortlen", ColInt}, {"Pad_attribute", ColString}}, Rows: [][]any{}}
		for _, row := range s.catalogRows("COLLATIONS") {
			if keep(row[0].(string)) {
				r.Rows = append(r.Rows, []any{row[0], row[1], int64(row[2].(uint64)), row[3], row[4], int64(row[5].(uint64)), row[6]})
			}
		}
		return r, nil
	case ast.ShowEngines:
		r := &Result{Columns: []Column{{"Engine", ColString}, {"Support", ColString}, {"Comment", ColString},
			{"Transactions", ColString}, {"XA", ColString}, {"Savepoints", ColString}}, Rows: [][]any{}}
		r.Rows = append(r.Rows, s.catalogRows("ENGINES")...)
		return r, nil
	case ast.ShowGrants:
		// glint has no privileges: a user that connects may do everything,
		// which is what this grant says (Metabase reads it to learn which
		// tables it may query).
		user := s.user
		if n.User != nil && !n.User.CurrentUser {
			user = n.User.Username
		}
		return &Result{Columns: []Column{{"Grants for " + user + "@%", ColString}},
			Rows: [][]any{{"GRANT ALL PRIVILEGES ON *.* TO `" + strings.ReplaceAll(user, "`", "``") + "`@`%`"}}}, nil
	case ast.ShowProcedureStatus, ast.ShowFunctionStatus:
		return &Result{Columns: []Column{{"Db", ColString}, {"Name", ColString}, {"Type", ColString}, {"Definer", ColString},
			{"Modified", ColString}, {"Created", ColString}, {"Security_type", ColString}, {"Comment", ColString},
			{"character_set_client", ColString}, {"collation_connection", ColString}, {"Database Collation", ColString}}, Rows: [][]any{}}, nil
	case ast.ShowTriggers:
		return &Result{Columns: []Column{{"Trigger", ColString}, {"Event", ColString}, {"Table", ColString}, {"Statement", ColString},
			{"Timing", ColString}, {"Created", ColString}, {"sql_mode", ColString}, {"Definer", ColString},
			{"character_set_client", ColString}, {"collation_connection", ColString}, {"Database Collation", ColString}}, Rows: [][]any{}}, nil
	case ast.ShowEvents:
		return &Result{Columns: []Column{{"Db", ColString}, {"Name", ColString}, {"Definer", ColString}, {"Time zone", ColString},
			{"Type", ColString}, {"Execute at", ColString}, {"Interval value", ColString}, {"Interval field", ColString},
			{"Starts", ColString}, {"Ends", ColString}, {"Status", ColString}, {"Originator", ColInt},
			{"character_set_client", ColString}, {"collation_connection", ColString}, {"Database Collation", ColString}}, Rows: [][]any{}}, nil
	case ast.ShowPlugins:
		return &Result{Columns: []Column{{"Name", ColString}, {"Status", ColString}, {"Type", ColString}, {"Library", ColString},
			{"License", ColString}}, Rows: [][]any{}}, nil
	}
	return nil, Errorf(CodeUnsupported, "this SHOW statement is not supported")
}

// catalogRows are the rows of one of the catalog's tables.
func (s *Session) catalogRows(table string) [][]any {
	return catalog.InformationSchema(s.catalogInformation())[table].Rows
}

// showColumns answers SHOW [FULL] COLUMNS in MySQL's form, which tools
// read (DESC keeps the reference's form: describe).
func (s *Session) showColumns(schema, table string, full bool, keep func(string) bool) (*Result, error) {
	var ti catalog.TableInfo
	if strings.EqualFold(schema, catalog.Schema) || schema == "" && strings.EqualFold(s.db, catalog.Schema) {
		ti.Columns = catalog.SchemaColumns(strings.ToUpper(table))
		if ti.Columns == nil {
			return nil, Errorf(CodeNoSuchTable, "unknown table '%s' in information_schema", table)
		}
	} else {
		if schema != "" && !strings.EqualFold(schema, Database) {
			return nil, Errorf(CodeNoSuchDB, "unknown database '%s'", schema)
		}
		t, err := s.table(table)
		if err != nil {
			return nil, err
		}
		ti = tableInfo(t)
	}
	r := &Result{Rows: [][]any{}}
	if full {
		r.Columns = []Column{{"Field", ColString}, {"Type", ColString}, {"Collation", ColString}, {"Null", ColString},
			{"Key", ColString}, {"Default", ColString}, {"Extra", ColString}, {"Privileges", ColString}, {"Comment", ColString}}
	} else {
		r.Columns = []Column{{"Field", ColString}, {"Type", ColString}, {"Null", ColString}, {"Key", ColString},
			{"Default", ColString}, {"Extra", ColString}}
	}
	for _, c := range ti.Columns {
		if !keep(c.Name) {
			continue
		}
		null, key := "YES", ""
		if c.Primary {
			null, key = "NO", "PRI"
		}
		if full {
			var collation any
			if c.CharLength > 0 {
				collation = catalog.Collation
			}
			r.Rows = append(r.Rows, []any{c.Name, c.ColumnType, collation, null, key, nil, "", "select,insert,update,references", c.Comment})
		} else {
			r.Rows = append(r.Rows, []any{c.Name, c.ColumnType, null, key, nil, ""})
		}
	}
	return r, nil
}

// showIndex answers SHOW INDEX: every table has one, its primary key on id.
func (s *Session) showIndex(table string) (*Result, error) {
	t, err := s.table(table)
	if err != nil {
		return nil, err
	}
	return &Result{
		Columns: []Column{{"Table", ColString}, {"Non_unique", ColInt}, {"Key_name", ColString}, {"Seq_in_index", ColInt},
			{"Column_name", ColString}, {"Collation", ColString}, {"Cardinality", ColInt}, {"Sub_part", ColInt},
			{"Packed", ColString}, {"Null", ColString}, {"Index_type", ColString}, {"Comment", ColString},
			{"Index_comment", ColString}, {"Visible", ColString}, {"Expression", ColString}},
		Rows: [][]any{{t.Schema().Name, int64(0), "PRIMARY", int64(1), "id", "A", int64(t.Snapshot().Count()), nil, nil, "",
			"BTREE", "", "", "YES", nil}},
	}, nil
}

// showTableStatus answers SHOW TABLE STATUS in MySQL's form.
func (s *Session) showTableStatus(keep func(string) bool) (*Result, error) {
	r := &Result{Columns: []Column{{"Name", ColString}, {"Engine", ColString}, {"Version", ColInt}, {"Row_format", ColString},
		{"Rows", ColInt}, {"Avg_row_length", ColInt}, {"Data_length", ColInt}, {"Max_data_length", ColInt},
		{"Index_length", ColInt}, {"Data_free", ColInt}, {"Auto_increment", ColInt}, {"Create_time", ColString},
		{"Update_time", ColString}, {"Check_time", ColString}, {"Collation", ColString}, {"Checksum", ColInt},
		{"Create_options", ColString}, {"Comment", ColString}}, Rows: [][]any{}}
	for _, ti := range s.catalogInformation().Tables {
		if keep(ti.Name) {
			r.Rows = append(r.Rows, []any{ti.Name, catalog.Engine, int64(10), "Dynamic", ti.Rows, nil, nil, nil, nil, nil, nil,
				nil, nil, nil, catalog.Collation, nil, ti.Options, ""})
		}
	}
	return r, nil
}

// describe answers DESC t: one row per column with its type and properties.
func (s *Session) describe(table string, keep func(string) bool) (*Result, error) {
	if d, dist, err := s.distributed(table); dist {
		if err != nil {
			return nil, err
		}
		return d.describe(keep), nil
	}
	t, err := s.table(table)
	if err != nil {
		return nil, err
	}
	r := &Result{Columns: []Column{{"Field", ColString}, {"Type", ColString}, {"Properties", ColString}}}
	if keep("id") {
		r.Rows = append(r.Rows, []any{"id", "bigint", ""})
	}
	for _, c := range t.Schema().Columns {
		if !keep(c.Name) {
			continue
		}
		typ, props := typeName(c), ""
		if typ == "text" || strings.HasPrefix(typ, "text ") {
			typ = "text"
			var p []string
			if c.Indexed {
				p = append(p, "indexed")
			}
			if c.Stored {
				p = append(p, "stored")
			}
			props = strings.Join(p, " ")
		}
		r.Rows = append(r.Rows, []any{c.Name, typ, props})
	}
	return r, nil
}

type counter struct{ name, value string }

func (s *Session) statusCounters() []counter {
	st := &s.engine.stats
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	// The Go heap's live and dead objects, and all the memory the Go runtime
	// holds from the system (heap, stacks, its own structures, free pages not
	// yet returned); the process's RSS adds badger's mapped files.
	mem := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	metrics.Read(mem)
	segments, deleted := s.engine.db.SegmentStats()
	out := []counter{
		{"uptime", strconv.FormatInt(int64(time.Since(s.engine.started).Seconds()), 10)},
		{"queries", u(st.Queries.Load())},
		{"command_select", u(st.Selects.Load())},
		{"command_insert", u(st.Inserts.Load())},
		{"command_delete", u(st.Deletes.Load())},
		{"command_update", u(st.Updates.Load())},
		{"stored_docs_read", u(st.StoredDocReads.Load())},
		{"highlight_calls", u(st.Highlights.Load())},
		{"highlight_docs", u(st.HighlightDocs.Load())},
		{"highlight_docs_from_index", u(st.HighlightsFromIndex.Load())},
		{"highlight_bytes", u(st.HighlightBytes.Load())},
		{"distributed_rows_dropped", u(st.DistRowsDropped.Load())},
		{"merges", strconv.FormatInt(s.engine.db.Merges(), 10)},
		{"merges_pending", strconv.Itoa(s.engine.db.MergesPending())},
		{"segments", strconv.Itoa(segments)},
		{"deleted_docs", strconv.Itoa(deleted)},
		{"goroutines", strconv.Itoa(runtime.NumGoroutine())},
		{"heap_bytes", u(mem[0].Value.Uint64())},
		{"go_memory_bytes", u(mem[1].Value.Uint64())},
		{"version", s.engine.version()},
	}
	return append(out, s.engine.repl.counters()...)
}
