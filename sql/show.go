package sql

import (
	"context"
	"maps"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/glint-search/glint/sql/catalog"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// LikeMatch reports whether name matches a SQL LIKE pattern (% and _,
// each itself after a backslash), case-insensitively.
func LikeMatch(pattern, name string) bool { return catalog.Like(name, pattern) }

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
		// (IF NOT EXISTS: the text mysqldump --databases writes)
		name, charset := Database, " /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci */"
		switch {
		case strings.EqualFold(n.DBName, catalog.Schema):
			name, charset = catalog.Schema, " /*!40100 DEFAULT CHARACTER SET utf8mb3 */"
		case !strings.EqualFold(n.DBName, Database):
			return nil, Errorf(CodeNoSuchDB, "unknown database '%s'", n.DBName)
		}
		create := "CREATE DATABASE "
		if n.IfNotExists {
			create += "/*!32312 IF NOT EXISTS*/ "
		}
		return &Result{Columns: []Column{{"Database", ColString}, {"Create Database", ColString}},
			Rows: [][]any{{name, create + s.quoted(name) + charset}}}, nil
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
				Rows: [][]any{{d.name, d.createText(s.quoteShowCreate())}}}, nil
		}
		t, err := s.table(n.Table.Name.O)
		if err != nil {
			return nil, err
		}
		sc := t.Schema()
		return &Result{
			Columns: []Column{{"Table", ColString}, {"Create Table", ColString}},
			Rows:    [][]any{{sc.Name, createTableText(sc, s.quoteShowCreate())}},
		}, nil
	case ast.ShowVariables:
		// SHOW [SESSION] VARIABLES: the session's values; SHOW GLOBAL
		// VARIABLES: those sessions start with.
		vars := s.systemVariables()
		if n.GlobalScope {
			if g := s.engine.globals.vars.Load(); g != nil {
				maps.Copy(vars, *g)
			}
		} else {
			maps.Copy(vars, s.vars)
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
	case ast.ShowErrors:
		if n.CountWarningsOrErrors {
			return &Result{Columns: []Column{{"@@session.error_count", ColInt}}, Rows: [][]any{{s.errorCount()}}}, nil
		}
		r := &Result{Columns: []Column{{"Level", ColString}, {"Code", ColInt}, {"Message", ColString}}, Rows: [][]any{}}
		if e := s.lastError; e != nil {
			number, _ := e.Code.MySQL()
			r.Rows = append(r.Rows, []any{"Error", int64(number), e.Msg})
		}
		return r, nil
	case ast.ShowWarnings:
		if n.CountWarningsOrErrors {
			return &Result{Columns: []Column{{"@@session.warning_count", ColInt}}, Rows: [][]any{{int64(len(s.warnings))}}}, nil
		}
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
	case ast.ShowOpenTables:
		// glint keeps no table open between statements (each reads a
		// snapshot): MySQL's answer with no table open.
		return &Result{Columns: []Column{{"Database", ColString}, {"Table", ColString}, {"In_use", ColInt},
			{"Name_locked", ColInt}}, Rows: [][]any{}}, nil
	case ast.ShowPrivileges:
		// glint grants no privileges: a user who may connect may run every
		// statement (README). MySQL's shape, no privilege in it.
		return &Result{Columns: []Column{{"Privilege", ColString}, {"Context", ColString}, {"Comment", ColString}}, Rows: [][]any{}}, nil
	case ast.ShowPlugins:
		return &Result{Columns: []Column{{"Name", ColString}, {"Status", ColString}, {"Type", ColString}, {"Library", ColString},
			{"License", ColString}}, Rows: [][]any{}}, nil
	case ast.ShowProcessList:
		return s.showProcessList(n.Full), nil
	case ast.ShowMasterStatus, ast.ShowBinlogStatus:
		// glint writes no binary log: MySQL's answer without one (a
		// cluster's log is raft's: SHOW STATUS LIKE 'cluster_%').
		return &Result{Columns: []Column{{"File", ColString}, {"Position", ColInt}, {"Binlog_Do_DB", ColString},
			{"Binlog_Ignore_DB", ColString}, {"Executed_Gtid_Set", ColString}}, Rows: [][]any{}}, nil
	case ast.ShowReplicaStatus:
		// No MySQL replication source: MySQL's answer on a server that
		// replicates from none (its first columns; there are no rows).
		return &Result{Columns: []Column{{"Replica_IO_State", ColString}, {"Source_Host", ColString}, {"Source_User", ColString},
			{"Source_Port", ColInt}, {"Connect_Retry", ColInt}, {"Source_Log_File", ColString}, {"Read_Source_Log_Pos", ColInt},
			{"Relay_Log_File", ColString}, {"Relay_Log_Pos", ColInt}, {"Relay_Source_Log_File", ColString},
			{"Replica_IO_Running", ColString}, {"Replica_SQL_Running", ColString}, {"Last_Errno", ColInt}, {"Last_Error", ColString},
			{"Seconds_Behind_Source", ColInt}, {"Last_IO_Errno", ColInt}, {"Last_IO_Error", ColString},
			{"Last_SQL_Errno", ColInt}, {"Last_SQL_Error", ColString}, {"Channel_Name", ColString}}, Rows: [][]any{}}, nil
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
		if _, dist, err := s.distributed(table); dist {
			// (no columns of its own, as in information_schema.COLUMNS)
			if err != nil {
				return nil, err
			}
		} else {
			t, err := s.table(table)
			if err != nil {
				return nil, err
			}
			ti = tableInfo(t)
		}
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
// A distributed table has no keys, as it has no columns of its own.
func (s *Session) showIndex(table string) (*Result, error) {
	r := &Result{
		Columns: []Column{{"Table", ColString}, {"Non_unique", ColInt}, {"Key_name", ColString}, {"Seq_in_index", ColInt},
			{"Column_name", ColString}, {"Collation", ColString}, {"Cardinality", ColInt}, {"Sub_part", ColInt},
			{"Packed", ColString}, {"Null", ColString}, {"Index_type", ColString}, {"Comment", ColString},
			{"Index_comment", ColString}, {"Visible", ColString}, {"Expression", ColString}},
		Rows: [][]any{},
	}
	if _, dist, err := s.distributed(table); dist {
		return r, err
	}
	t, err := s.table(table)
	if err != nil {
		return nil, err
	}
	r.Rows = append(r.Rows, []any{t.Schema().Name, int64(0), "PRIMARY", int64(1), "id", "A", int64(t.Snapshot().Count()), nil, nil, "",
		"BTREE", "", "", "YES", nil})
	return r, nil
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
			engine, format := ti.EngineFormat()
			rows := any(ti.Rows)
			if ti.Rows < 0 {
				rows = nil // (a distributed table's)
			}
			r.Rows = append(r.Rows, []any{ti.Name, engine, int64(10), format, rows, nil, nil, nil, nil, nil, nil,
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
