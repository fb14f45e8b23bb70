package sql

import (
	"path"
	"runtime"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// systemVariables are the @@variables clients ask for on connect, with the
// values glint reports. Integers are int64 so that clients get numeric columns.
func (s *Session) systemVariables() map[string]any {
	return map[string]any{
		"version":                  s.engine.version(),
		"version_comment":          "glint full-text search server",
		"version_compile_os":       "Linux",
		"version_compile_machine":  "x86_64",
		"max_allowed_packet":       int64(64 << 20),
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
		"wait_timeout":             int64(28800),
		"interactive_timeout":      int64(28800),
		"net_write_timeout":        int64(60),
		"net_buffer_length":        int64(16384),
		"license":                  "Apache-2.0",
		"init_connect":             "",
		"have_ssl":                 "DISABLED",
		"query_cache_size":         int64(0),
		"query_cache_type":         "OFF",
		"performance_schema":       int64(0),
		"session_track_gtids":      "OFF",
		"sql_select_limit":         int64(20),
		"default_storage_engine":   "glint",
		"hostname":                 "localhost",
		"port":                     int64(9306),
	}
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
func (s *Session) execSet(n *ast.SetStmt) (*Result, error) {
	sc := &scope{sess: s}
	for _, a := range n.Variables {
		if a.Value == nil || a.Name == ast.SetNames || a.Name == ast.SetCharset {
			continue
		}
		e, err := sc.compile(a.Value)
		if err != nil {
			// Values built from other variables or functions glint lacks are
			// accepted without being stored, as connectors send such SETs.
			continue
		}
		v, err := e.eval(nil)
		if err == nil {
			s.vars[strings.ToLower(a.Name)] = v
		}
	}
	return &Result{}, nil
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

// showPattern returns the LIKE pattern of a SHOW statement, or "" for none.
func showPattern(n *ast.ShowStmt) (string, error) {
	if n.Where != nil {
		return "", Errorf(CodeUnsupported, "SHOW ... WHERE is not supported; use LIKE")
	}
	if n.Pattern == nil {
		return "", nil
	}
	v, ok := n.Pattern.Pattern.(ast.ValueExpr)
	if !ok {
		return "", Errorf(CodeSyntax, "LIKE takes a quoted pattern")
	}
	p, ok := v.GetValue().(string)
	if !ok {
		return "", Errorf(CodeSyntax, "LIKE takes a quoted pattern")
	}
	return p, nil
}

func (s *Session) execShow(n *ast.ShowStmt) (*Result, error) {
	pattern, err := showPattern(n)
	if err != nil {
		return nil, err
	}
	keep := func(name string) bool { return pattern == "" || LikeMatch(pattern, name) }
	switch n.Tp {
	case ast.ShowTables:
		r := &Result{Columns: []Column{{"Table", ColString}, {"Type", ColString}}}
		for _, name := range s.engine.db.TableNames() {
			if keep(name) {
				r.Rows = append(r.Rows, []any{name, "rt"})
			}
		}
		return r, nil
	case ast.ShowDatabases:
		r := &Result{Columns: []Column{{"Database", ColString}}}
		if keep(Database) {
			r.Rows = append(r.Rows, []any{Database})
		}
		return r, nil
	case ast.ShowColumns:
		return s.describe(n.Table.Name.O, keep)
	case ast.ShowCreateTable:
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
		r := &Result{Columns: []Column{{"Variable_name", ColString}, {"Value", ColString}}}
		for _, k := range names {
			r.Rows = append(r.Rows, []any{k, displayString(vars[k])})
		}
		return r, nil
	case ast.ShowStatus:
		r := &Result{Columns: []Column{{"Counter", ColString}, {"Value", ColString}}}
		for _, c := range s.statusCounters() {
			if keep(c.name) {
				r.Rows = append(r.Rows, []any{c.name, c.value})
			}
		}
		return r, nil
	case ast.ShowWarnings:
		r := &Result{Columns: []Column{{"Level", ColString}, {"Code", ColInt}, {"Message", ColString}}}
		for _, w := range s.warnings {
			r.Rows = append(r.Rows, []any{w.level, int64(w.code), w.msg})
		}
		return r, nil
	case ast.ShowEngines, ast.ShowCharset, ast.ShowCollation, ast.ShowProcedureStatus,
		ast.ShowFunctionStatus, ast.ShowTriggers, ast.ShowEvents, ast.ShowPlugins, ast.ShowIndex:
		// Tools ask for these while exploring a server; glint has none of them.
		return &Result{Columns: []Column{{"Name", ColString}}}, nil
	}
	return nil, Errorf(CodeUnsupported, "this SHOW statement is not supported")
}

// describe answers DESC t: one row per column with its type and properties.
func (s *Session) describe(table string, keep func(string) bool) (*Result, error) {
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
	return []counter{
		{"uptime", strconv.FormatInt(int64(time.Since(s.engine.started).Seconds()), 10)},
		{"queries", u(st.Queries.Load())},
		{"command_select", u(st.Selects.Load())},
		{"command_insert", u(st.Inserts.Load())},
		{"command_delete", u(st.Deletes.Load())},
		{"command_update", u(st.Updates.Load())},
		{"stored_docs_read", u(st.StoredDocReads.Load())},
		{"highlight_calls", u(st.Highlights.Load())},
		{"highlight_docs_from_index", u(st.HighlightsFromIndex.Load())},
		{"merges", strconv.FormatInt(s.engine.db.Merges(), 10)},
		{"merges_pending", strconv.Itoa(s.engine.db.MergesPending())},
		{"segments", strconv.Itoa(segments)},
		{"deleted_docs", strconv.Itoa(deleted)},
		{"goroutines", strconv.Itoa(runtime.NumGoroutine())},
		{"heap_bytes", u(mem[0].Value.Uint64())},
		{"go_memory_bytes", u(mem[1].Value.Uint64())},
		{"version", s.engine.version()},
	}
}
