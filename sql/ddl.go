package sql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/tokenize"
	"github.com/glint-search/glint/sql/catalog"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// settingKind says what values a table setting takes.
type settingKind int

const (
	settingText settingKind = iota // any string
	settingInt                     // a non-negative integer
	settingFlag                    // 0 or 1
	settingEnum                    // one of settingValues[name], in any case; stored in lower case
)

// settingValues are the values of the settingEnum settings.
var settingValues = map[string][]string{
	// dict: the reference's dictionary type. glint's term dictionary always
	// keeps the words (keywords); crc (word hashes) is accepted and shown,
	// and searches and highlights the same (docs/fulltext.md, "dict").
	"dict": {"keywords", "crc"},
}

// tableSettings are the table settings of CREATE TABLE. Settings that a
// later capability acts on are validated, stored and shown already.
var tableSettings = map[string]settingKind{
	"charset_table":        settingText,
	"ignore_chars":         settingText,
	"blend_chars":          settingText,
	"blend_mode":           settingText,
	"min_word_len":         settingInt,
	"stopwords":            settingText,
	"morphology":           settingText,
	"wordforms":            settingText,
	"exceptions":           settingText,
	"index_exact_words":    settingFlag,
	"min_prefix_len":       settingInt,
	"min_infix_len":        settingInt,
	"html_strip":           settingFlag,
	"html_remove_elements": settingText,
	"html_index_attrs":     settingText,
	"index_sp":             settingFlag,
	"index_zones":          settingText,
	"phrase_boundary":      settingText,
	"phrase_boundary_step": settingInt,
	"ngram_len":            settingInt,
	"ngram_chars":          settingText,
	"dict":                 settingEnum,
	"stopword_step":        settingFlag,
	"expand_keywords":      settingText,
}

// columnTypes maps the canonical type names of the bridge to column types.
var columnTypes = map[string]index.Column{
	"text":         {Type: index.TypeText, Indexed: true, Stored: true},
	"text indexed": {Type: index.TypeText, Indexed: true},
	"text stored":  {Type: index.TypeText, Stored: true},
	"string":       {Type: index.TypeString},
	"uint":         {Type: index.TypeUint},
	"bigint":       {Type: index.TypeBigint},
	"float":        {Type: index.TypeFloat},
	"bool":         {Type: index.TypeBool},
	"timestamp":    {Type: index.TypeTimestamp},
	"multi":        {Type: index.TypeMulti},
	"multi64":      {Type: index.TypeMulti64},
	"json":         {Type: index.TypeJSON},
}

// typeName is the dialect name of a column's type, as DESC and SHOW CREATE TABLE
// show it.
func typeName(c index.Column) string {
	switch c.Type {
	case index.TypeText:
		switch {
		case c.Indexed && c.Stored:
			return "text"
		case c.Indexed:
			return "text indexed"
		default:
			return "text stored"
		}
	case index.TypeString:
		return "string"
	case index.TypeUint:
		return "uint"
	case index.TypeBigint:
		return "bigint"
	case index.TypeFloat:
		return "float"
	case index.TypeBool:
		return "bool"
	case index.TypeTimestamp:
		return "timestamp"
	case index.TypeMulti:
		return "multi"
	case index.TypeMulti64:
		return "multi64"
	case index.TypeJSON:
		return "json"
	}
	return "unknown"
}

func (s *Session) execCreateTable(ctx context.Context, n *ast.CreateTableStmt, settings []dialect.Setting) (*Result, error) {
	if err := checkTableName(n.Table.Name.O); err != nil {
		return nil, err
	}
	if isDistributedCreate(n, settings) {
		return s.execCreateDistributed(n, settings)
	}
	settings = slices.DeleteFunc(slices.Clone(settings), isRealTimeType)
	if n.ReferTable != nil || n.Partition != nil || len(n.Options) > 0 {
		return nil, Errorf(CodeUnsupported, "CREATE TABLE takes only a column list and table settings")
	}
	for _, c := range n.Constraints {
		// SHOW CREATE TABLE writes PRIMARY KEY (`id`), as MySQL tools expect,
		// so a dump of it is read back.
		if c.Tp != ast.ConstraintPrimaryKey || len(c.Keys) != 1 || c.Keys[0].Column == nil ||
			!strings.EqualFold(c.Keys[0].Column.Name.O, "id") {
			return nil, Errorf(CodeUnsupported, "CREATE TABLE takes no keys or constraints but PRIMARY KEY (id): every table has the document id as its key")
		}
	}
	schema := index.Schema{Name: n.Table.Name.O}
	seen := map[string]bool{}
	for _, def := range n.Cols {
		name := def.Name.Name.O
		if name == "" {
			return nil, Errorf(CodeSyntax, "a column name cannot be empty")
		}
		if err := checkNameLen("column", name); err != nil {
			return nil, err
		}
		canonical := ""
		for _, opt := range def.Options {
			if strings.EqualFold(name, "id") && (opt.Tp == ast.ColumnOptionNotNull || opt.Tp == ast.ColumnOptionPrimaryKey) {
				continue // the document id is never NULL and is the key
			}
			if opt.Tp != ast.ColumnOptionComment {
				return nil, Errorf(CodeSyntax, "column '%s': only a type is allowed after the column name", name)
			}
			// The first comment is the dialect's, carrying the type; one
			// written after the type would be dropped, or taken for the type.
			str := ""
			if v, ok := opt.Expr.(ast.ValueExpr); ok {
				str, _ = v.GetValue().(string)
			}
			if canonical != "" || !strings.HasPrefix(str, dialect.ColumnTypePrefix) {
				return nil, Errorf(CodeSyntax, "column '%s': only a type is allowed after the column name (glint keeps no column COMMENT)", name)
			}
			canonical = strings.TrimPrefix(str, dialect.ColumnTypePrefix)
		}
		col, ok := columnTypes[canonical]
		if !ok {
			return nil, Errorf(CodeSyntax, "column '%s' has no type glint knows", name)
		}
		if strings.EqualFold(name, "id") {
			if col.Type != index.TypeBigint && col.Type != index.TypeUint {
				return nil, Errorf(CodeWrongValue, "column 'id' is the implicit document id (an unsigned 64-bit number); it can only be declared as bigint (or int, which is taken as bigint)")
			}
			continue // the implicit id, declared explicitly (SHOW CREATE TABLE prints it)
		}
		if seen[strings.ToLower(name)] {
			return nil, Errorf(CodeSyntax, "duplicate column name '%s'", name)
		}
		seen[strings.ToLower(name)] = true
		col.Name = name
		schema.Columns = append(schema.Columns, col)
	}
	given := map[string]bool{}
	for _, st := range settings {
		if mysqlOption, err := checkMySQLTableOption(st); mysqlOption {
			if err != nil {
				return nil, err
			}
			continue
		}
		kind, ok := tableSettings[st.Name]
		if !ok {
			return nil, Errorf(CodeBadOption, "unknown table setting '%s'", st.Name)
		}
		if given[st.Name] {
			return nil, Errorf(CodeBadOption, "table setting '%s' is given twice", st.Name)
		}
		given[st.Name] = true
		value, err := settingValue(st, kind)
		if err != nil {
			return nil, err
		}
		schema.Settings = append(schema.Settings, index.Setting{Name: st.Name, Value: value})
	}
	cfg, err := tokenizationOf(schema.Settings)
	if err != nil {
		return nil, err
	}
	schema.Tokenization = cfg
	db, name, err := s.engine.dbFor(schema.Name)
	if err != nil {
		return nil, err
	}
	schema.Name = name
	err = db.CreateTableContext(ctx, schema)
	if errors.Is(err, index.ErrTableExists) {
		if n.IfNotExists {
			return &Result{}, nil
		}
		return nil, Errorf(CodeTableExists, "table '%s' already exists", schema.Name)
	}
	if err != nil {
		return nil, asError(err)
	}
	return &Result{}, nil
}

// tokenizationOf resolves the tokenization settings of a new table. Files
// named by settings (stopwords, wordforms, exceptions) are read now, by the
// server process, with relative paths taken from its working directory: the
// table keeps their contents, so later changes to the files do not change it.
func tokenizationOf(settings []index.Setting) (tokenize.Config, error) {
	ts := make([]tokenize.Setting, len(settings))
	for i, st := range settings {
		ts[i] = tokenize.Setting{Name: st.Name, Value: st.Value}
	}
	cfg, err := tokenize.ParseSettings(ts, readSettingFile)
	if err != nil {
		return tokenize.Config{}, Errorf(CodeBadOption, "%v", err)
	}
	return cfg, nil
}

// maxSettingFile bounds a file a table setting names (a wordforms list of
// a whole language's forms is tens of MB).
const maxSettingFile = 256 << 20

// readSettingFile reads a file a table setting names. As readSnippetFile,
// it waits on nothing but the disk (a FIFO is opened non-blocking and
// refused) and reads only a regular file of at most maxSettingFile bytes,
// so /dev/zero or a pipe is an error, not a statement that never ends.
func readSettingFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("it is %s, not a regular file", fileKind(st.Mode()))
	}
	if st.Size() > maxSettingFile {
		return nil, fmt.Errorf("it is larger than %d MB (%d bytes)", maxSettingFile>>20, st.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSettingFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSettingFile {
		return nil, fmt.Errorf("it grew over %d MB while it was read", maxSettingFile>>20)
	}
	return b, nil
}

// settingValue checks and renders the value of a table setting.
func settingValue(st dialect.Setting, kind settingKind) (string, error) {
	var raw string
	switch v := st.Value.(type) {
	case ast.ValueExpr:
		lit, err := catalog.Literal(v.GetValue())
		if err != nil || lit == nil {
			return "", Errorf(CodeBadOption, "table setting '%s' needs a value", st.Name)
		}
		raw = displayString(lit)
		if st.Text != "" {
			raw = st.Text // (3000.0 and 1e2 as written, refused where '3000.0' is)
		}
	case *ast.ColumnNameExpr:
		raw = v.Name.Name.O
	case *ast.UnaryOperationExpr:
		// A signed number (-5, +3000): its text, for the setting's own
		// check to say what it takes.
		lit, ok := v.V.(ast.ValueExpr)
		if !ok || (v.Op != opcode.Minus && v.Op != opcode.Plus) {
			return "", Errorf(CodeBadOption, "table setting '%s' takes a quoted value", st.Name)
		}
		inner, err := settingValue(dialect.Setting{Name: st.Name, Value: lit, Text: st.Text}, settingText)
		if err != nil {
			return "", err
		}
		raw = inner
		if v.Op == opcode.Minus {
			raw = "-" + inner
		}
	default:
		return "", Errorf(CodeBadOption, "table setting '%s' takes a quoted value", st.Name)
	}
	if !utf8.ValidString(raw) {
		return "", Errorf(CodeBadOption, "table setting '%s' is not UTF-8 text", st.Name)
	}
	switch kind {
	case settingInt:
		if n, err := strconv.ParseUint(raw, 10, 31); err != nil {
			return "", Errorf(CodeBadOption, "table setting '%s' takes a non-negative integer, got '%s'", st.Name, raw)
		} else {
			raw = strconv.FormatUint(n, 10)
		}
	case settingFlag:
		if raw != "0" && raw != "1" {
			return "", Errorf(CodeBadOption, "table setting '%s' takes 0 or 1, got '%s'", st.Name, raw)
		}
	case settingEnum:
		values := settingValues[st.Name]
		lower := strings.ToLower(strings.TrimSpace(raw))
		if !slices.Contains(values, lower) {
			return "", Errorf(CodeBadOption, "table setting '%s' takes %s, got '%s'", st.Name, strings.Join(values, " or "), raw)
		}
		raw = lower
	}
	return raw, nil
}

func (s *Session) execDropTable(ctx context.Context, n *ast.DropTableStmt) (*Result, error) {
	if n.IsView {
		return nil, Errorf(CodeUnsupported, "views are not supported")
	}
	for _, tn := range n.Tables {
		if _, dist := s.engine.db.DistributedTable(tn.Name.O); dist {
			continue
		}
		db, name, err := s.engine.dbFor(tn.Name.O)
		if err != nil {
			return nil, err
		}
		if _, err := db.Table(name); err != nil {
			if errors.Is(err, index.ErrNoSuchTable) && n.IfExists {
				continue
			}
			return nil, s.tableError(tn.Name.O, err)
		}
	}
	var dropped []string // local tables of this server
	for _, tn := range n.Tables {
		if _, dist := s.engine.db.DistributedTable(tn.Name.O); dist {
			if err := s.engine.db.DropDistributed(tn.Name.O); err != nil {
				return nil, s.tableError(tn.Name.O, err)
			}
			continue
		}
		db, name, err := s.engine.dbFor(tn.Name.O)
		if err == nil {
			err = db.DropTableContext(ctx, name)
		}
		if err != nil && !(errors.Is(err, index.ErrNoSuchTable) && n.IfExists) {
			return nil, s.tableError(tn.Name.O, err)
		}
		if err == nil && db == s.engine.db {
			dropped = append(dropped, name)
		}
	}
	for _, name := range dropped {
		s.warnShardDropped(name)
	}
	return &Result{}, nil
}

// localShardOf lists, quoted, the distributed tables that name table name
// as a local shard.
func (s *Session) localShardOf(name string) []string {
	var users []string
	for _, dn := range s.engine.db.DistributedNames() {
		d, ok, err := s.distributed(dn)
		if !ok || err != nil {
			continue
		}
		if slices.ContainsFunc(d.locals, func(l string) bool { return strings.EqualFold(l, name) }) {
			users = append(users, "'"+d.name+"'")
		}
	}
	return users
}

// warnShardDropped warns, after table name was dropped, of the
// distributed tables (left after the statement) that name it as a local shard: their searches now
// fail ("unknown table") until a table of that name is created again or
// they are created again without it. (The drop is not refused: a shard
// may be dropped to be recreated, as the family allows.)
func (s *Session) warnShardDropped(name string) {
	users := s.localShardOf(name)
	if len(users) == 0 {
		return
	}
	what := "distributed table " + users[0] + ": searching it fails"
	if len(users) > 1 {
		what = "distributed tables " + strings.Join(users, ", ") + ": searching them fails"
	}
	s.pending = append(s.pending, warning{level: "Warning", code: CodeNoSuchTable,
		msg: fmt.Sprintf("table '%s' was a local shard of %s until a table '%s' is created again", name, what, name)})
}

func (s *Session) execTruncate(ctx context.Context, n *ast.TruncateTableStmt) (*Result, error) {
	db, name, err := s.engine.dbFor(n.Table.Name.O)
	if err == nil {
		err = db.TruncateTableContext(ctx, name)
	}
	if err != nil {
		return nil, s.tableError(n.Table.Name.O, err)
	}
	return &Result{}, nil
}

// execOptimize merges each table's segments into one (OPTIMIZE TABLE t [, t2 ...]),
// returning when that is done. Every table must exist before any is merged.
func (s *Session) execOptimize(ctx context.Context, n *ast.OptimizeTableStmt) (*Result, error) {
	tables := make([]*index.Table, len(n.Tables))
	for i, tn := range n.Tables {
		t, err := s.table(tn.Name.O)
		if err != nil {
			return nil, err
		}
		tables[i] = t
	}
	for i, t := range tables {
		if err := t.Optimize(ctx); err != nil {
			return nil, s.tableError(n.Tables[i].Name.O, err)
		}
	}
	return &Result{}, nil
}

// execAnalyze answers ANALYZE TABLE (mysqlcheck --analyze, tools'
// maintenance menus) as MySQL does for a table whose statistics are
// current: glint's (each word's documents and hits, the table's count)
// change with every write, so there is nothing to gather. A distributed
// table's are its shards'.
func (s *Session) execAnalyze(n *ast.AnalyzeTableStmt) (*Result, error) {
	if len(n.PartitionNames)+len(n.IndexNames)+len(n.AnalyzeOpts)+len(n.ColumnNames) > 0 || n.IndexFlag || n.Incremental ||
		n.HistogramOperation != ast.HistogramOperationNop || n.ColumnChoice != ast.DefaultChoice {
		return nil, Errorf(CodeUnsupported, "ANALYZE TABLE takes only table names: glint keeps no histograms, partitions or index statistics to gather")
	}
	r := &Result{Columns: []Column{{"Table", ColString}, {"Op", ColString}, {"Msg_type", ColString}, {"Msg_text", ColString}}, Rows: [][]any{}}
	for _, tn := range n.TableNames {
		if err := s.checkDumpTable(tn); err != nil {
			return nil, err
		}
		r.Rows = append(r.Rows, []any{Database + "." + tn.Name.O, "analyze", "status", "Table is already up to date"})
	}
	return r, nil
}

// table finds a table by name, with an error that names it.
func (s *Session) table(name string) (*index.Table, error) {
	db, tname, err := s.engine.dbFor(name)
	if err != nil {
		return nil, err
	}
	t, err := db.Table(tname)
	if err != nil {
		return nil, s.tableError(name, err)
	}
	return t, nil
}

func (s *Session) tableError(name string, err error) error {
	if errors.Is(err, index.ErrNoSuchTable) {
		if d, dist, _ := s.distributed(name); dist && d != nil {
			return d.writeError()
		}
		return Errorf(CodeNoSuchTable, "unknown table '%s'", name)
	}
	return asError(err)
}

// createTableText renders the statement that re-creates a table.
//
// With quote false (@@sql_quote_show_create 0) the names are written bare,
// as MySQL writes them then.
func createTableText(sc *index.Schema, quote bool) string {
	q := quoteName
	if !quote {
		q = func(name string) string { return name }
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n  %s bigint NOT NULL", q(sc.Name), q("id"))
	for _, c := range sc.Columns {
		fmt.Fprintf(&b, ",\n  %s %s", q(c.Name), typeName(c))
	}
	fmt.Fprintf(&b, ",\n  PRIMARY KEY (%s)\n)", q("id"))
	if st := settingsText(sc); st != "" {
		b.WriteString(" " + st)
	}
	return b.String()
}

// settingsText is a table's settings as CREATE TABLE takes them, in name order.
func settingsText(sc *index.Schema) string {
	settings := append([]index.Setting(nil), sc.Settings...)
	sort.SliceStable(settings, func(i, j int) bool { return settings[i].Name < settings[j].Name })
	parts := make([]string, len(settings))
	for i, st := range settings {
		parts[i] = fmt.Sprintf("%s='%s'", st.Name, strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(st.Value))
	}
	return strings.Join(parts, " ")
}

// quoteName writes a name as MySQL's SHOW CREATE TABLE does: in backquotes.
func quoteName(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// checkMySQLTableOption checks a MySQL table option, which CREATE TABLE
// statements written for MySQL carry (mysqldump of a MySQL table writes
// ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=...). Those that mean
// nothing here are accepted and not kept: the storage engine and row format
// (glint stores every table its own way), a UTF-8 character set and its
// collations (glint's text is UTF-8; how words match is charset_table's).
// Another character set would mean text glint does not hold: an error.
// isOption is false for a name that is no such option.
func checkMySQLTableOption(st dialect.Setting) (isOption bool, err error) {
	switch st.Name {
	case "engine", "row_format", "charset", "collate":
	default:
		return false, nil
	}
	var v string
	switch x := st.Value.(type) {
	case *ast.ColumnNameExpr:
		v = x.Name.Name.O
	case ast.ValueExpr:
		v, _ = x.GetValue().(string)
	}
	if v == "" {
		return true, Errorf(CodeBadOption, "table option '%s' takes a name", st.Name)
	}
	lower := strings.ToLower(v)
	utf8 := func(s string) bool {
		return s == "utf8" || s == "utf8mb3" || s == "utf8mb4" ||
			strings.HasPrefix(s, "utf8_") || strings.HasPrefix(s, "utf8mb3_") || strings.HasPrefix(s, "utf8mb4_")
	}
	switch {
	case st.Name == "charset" && !utf8(lower):
		return true, Errorf(CodeBadOption, "table option charset '%s': glint keeps text as UTF-8 (utf8mb4)", v)
	case st.Name == "collate" && !utf8(lower):
		return true, Errorf(CodeBadOption, "table option collate '%s': glint keeps text as UTF-8, so only a utf8mb4 collation fits (how words match is the table's charset_table)", v)
	}
	return true, nil
}

// blankOrControl reports whether r is a blank, a control character or not
// UTF-8 (utf8.RuneError): no part of a name anyone means.
func blankOrControl(r rune) bool {
	return unicode.IsSpace(r) || !unicode.IsPrint(r) || r == utf8.RuneError
}

// maxNameLen is the most characters of a table or column name, as MySQL's.
const maxNameLen = 64

// checkNameLen refuses a new name of more than maxNameLen characters.
func checkNameLen(kind, name string) error {
	if n := utf8.RuneCountInString(name); n > maxNameLen {
		return Errorf(CodeTooLongName, "%s name '%s...' is too long: %d characters, at most %d", kind, string([]rune(name)[:16]), n, maxNameLen)
	}
	return nil
}

// checkTableName refuses, at CREATE TABLE, a name that glint's own syntax
// could not name again: ',' separates the tables of local='a,b', '|' the
// mirrors of an agent, ':' a cluster from its table (c:t), and a blank or
// control character is no part of a name anyone means. name may be a
// cluster's table, c:t, whose table part is checked.
func checkTableName(name string) error {
	table := name
	if _, t, ok := dialect.SplitClusterTable(name); ok {
		table = t
	}
	if table == "" {
		return Errorf(CodeSyntax, "a table name cannot be empty")
	}
	if err := checkNameLen("table", table); err != nil {
		return err
	}
	if hiddenTable(table) {
		return Errorf(CodeSyntax, "table name %s: names that begin with '__glint_' are glint's own (the tables a cluster keeps for itself)", quoteForError(table))
	}
	for i, r := range table {
		var why string
		switch {
		case r == ',':
			why = "separates the tables of local='a,b'"
		case r == '|':
			why = "separates the mirrors of agent='...'"
		case r == ':':
			why = "separates a cluster from its table (cluster:table)"
		case blankOrControl(r):
			why = "is a blank, a control character or not UTF-8"
		default:
			continue
		}
		return Errorf(CodeSyntax, "table name %s: %q at byte %d %s; use letters, digits and '_'", quoteForError(table), r, i, why)
	}
	return nil
}
