package sql

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/catalog"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // literal values for the parser
)

// Database is the name of glint's one database.
const Database = "glint"

// Session is one client connection's state: current database, variables, the
// last statement's metadata (SHOW META) and warnings. A Session is used by one
// goroutine at a time.
type Session struct {
	engine       *Engine
	parser       *parser.Parser // see sqlParser
	id           uint32
	user         string
	db           string
	lastInsertID uint64
	meta         []metaRow  // SHOW META of the last SELECT
	metaQuery    *metaQuery // the full-text query of the last SELECT, for SHOW META's keyword rows
	warnings     []warning  // SHOW WARNINGS of the last statement
	lastError    *Error     // SHOW ERRORS: the last statement's error, nil when it did not fail (@@error_count)
	// leftOut are the shards that did not answer a search of the running
	// statement (its FACETs'), not asked again by the others; nil outside
	// a statement of several searches.
	leftOut  map[string]error // (by table and shard name)
	pending  []warning        // warnings of the statement running, which become warnings when it ends
	began    time.Time        // when the statement running began: NOW()
	vars     map[string]any
	userVars map[string]any       // @name, set by SET @name = value
	prepared map[string]*Prepared // PREPARE name FROM ..., by lower-case name
	// applying is the cluster whose raft entry this session runs (see
	// clusterSM.Apply), nil for a client's session; applyNow is then the
	// time the statement began where it was sent.
	applying *replCluster
	holdsDBs bool // a SELECT of this session holds the clusters' databases (replication.holdDBs)
	applyNow time.Time
	// inTransaction: a BEGIN ran and no COMMIT or ROLLBACK since;
	// unrolled counts the write statements since then (see
	// noteTransaction).
	inTransaction bool
	unrolled      int
	// savepoints are the transaction's SAVEPOINTs, oldest first, each
	// with the count of writes run before it (see execSavepoint).
	savepoints []savepoint
	// lock is the read lock of FLUSH TABLES ... WITH READ LOCK the
	// session holds, nil when none (see readLocks).
	lock *heldLock
	// nextReadOnly is what SET TRANSACTION READ ONLY or READ WRITE
	// without a scope, or START TRANSACTION READ ONLY, said of the next
	// transaction (or the one begun): it wins over @@transaction_read_only
	// until that transaction ends. nil: nothing was said.
	nextReadOnly *bool
	// stmtColl is the collation of the statement being planned when it
	// names one (OPTION collation), over @@collation_connection.
	stmtColl    collation
	hasStmtColl bool
}

type metaRow struct{ name, value string }

// metaQuery is what SHOW META tells of the full-text query of the last
// SELECT: per keyword, the documents and hits the search counted.
type metaQuery struct {
	terms []index.TermStat
}

type warning struct {
	level string
	code  Code // SHOW WARNINGS shows its MySQL number
	msg   string
	// about, when set, is what the warning is about (a shard left out):
	// two warnings about one thing in one statement are one (a FACET's
	// searches each meet the shard, and name its mirrors in turn).
	about string
}

// uniqueWarnings keeps the first of each warning ws repeats, in order.
func uniqueWarnings(ws []warning) []warning {
	var out []warning
	for _, w := range ws {
		if !slices.ContainsFunc(out, func(o warning) bool { return o == w || w.about != "" && o.about == w.about }) {
			out = append(out, w)
		}
	}
	return out
}

func newSession(e *Engine, user string, id uint32) *Session {
	s := &Session{engine: e, id: id, user: user, db: Database, vars: map[string]any{}, userVars: map[string]any{}, prepared: map[string]*Prepared{}}
	if g := e.globals.vars.Load(); g != nil {
		maps.Copy(s.vars, *g) // SET GLOBAL: what sessions start with
	}
	return s
}

// sqlParser is the session's TiDB parser, made on first use: a session of
// the JSON API that only searches or writes never needs one (it costs about
// 17 KB).
func (s *Session) sqlParser() *parser.Parser {
	if s.parser == nil {
		s.parser = parser.New()
	}
	return s.parser
}

// Exec runs every statement of query in order and returns one Result each. When
// a statement fails, Exec returns the results of the statements before it and the
// error (an *Error); later statements are not run.
func (s *Session) Exec(ctx context.Context, query string) ([]*Result, error) {
	if st, give := s.lendParsed(query); st != nil {
		defer give()
		return s.execStatement(ctx, st)
	}
	pieces := dialect.Split(query)
	if len(pieces) == 0 {
		if dialect.IsComment(query) {
			return []*Result{{}}, nil
		}
		return nil, Errorf(CodeEmptyQuery, "Query was empty")
	}
	if len(pieces) == 1 { // (its results are the statement's own)
		rs, err := s.execCachedPiece(ctx, pieces[0])
		if err != nil {
			return []*Result{}, err
		}
		return rs, nil
	}
	results := make([]*Result, 0, len(pieces))
	for _, p := range pieces {
		// Each statement is kept in the parse cache by its own text, so
		// that one sent again within other statements (a coordinator's
		// search, SHOW WARNINGS, SHOW META in one packet) is not parsed
		// again.
		rs, err := s.execCachedPiece(ctx, p)
		if err != nil {
			return results, err
		}
		results = append(results, rs...)
	}
	return results, nil
}

// execCachedPiece runs one statement that Split cut out, parsed from the
// parse cache when its text is there.
func (s *Session) execCachedPiece(ctx context.Context, p dialect.Piece) ([]*Result, error) {
	if st, give := s.lendParsed(p.Text); st != nil {
		defer give()
		return s.execStatement(ctx, st)
	}
	return s.execPiece(ctx, p, true)
}

// lendParsed returns the statement of text from the parse cache, lent to
// the caller until it calls give: the tree kept with it, or one of its shape
// with its values put in. nil when there is none free.
func (s *Session) lendParsed(text string) (st *dialect.Statement, give func()) {
	e := s.engine.parsed.lend(text)
	if e == nil {
		return nil, nil
	}
	if e.Value.Shape == nil {
		return e.Value, func() { s.engine.parsed.give(e) }
	}
	st, release := s.engine.shapes.Lend(e.Value)
	if st == nil {
		s.engine.parsed.give(e)
		return nil, nil
	}
	return st, func() {
		release()
		s.engine.parsed.give(e)
	}
}

func (s *Session) execOne(ctx context.Context, text string) (*Result, error) {
	var rs []*Result
	var err error
	if st, give := s.lendParsed(text); st != nil {
		defer give()
		rs, err = s.execStatement(ctx, st)
	} else if pieces := dialect.Split(text); len(pieces) == 1 && pieces[0].Text == text {
		rs, err = s.execPiece(ctx, pieces[0], true)
	} else {
		rs, err = s.execPiece(ctx, dialect.Piece{Text: text}, false)
	}
	if err != nil {
		return nil, err
	}
	if len(rs) > 1 {
		return nil, Errorf(CodeUnsupported, "FACET returns several result sets, which a prepared statement cannot; send it as a query")
	}
	return rs[0], nil
}

// execPiece runs one statement that Split cut out (or any one statement):
// one result, and one more per FACET clause. With cache, the parsed
// statement may be kept in the parse cache by its text.
func (s *Session) execPiece(ctx context.Context, piece dialect.Piece, cache bool) ([]*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, cancelled(err)
	}
	st, release, err := dialect.ParseShaped(s.sqlParser(), piece, s.engine.shapes)
	if err != nil {
		return nil, syntaxError(err, piece.Text)
	}
	if release != nil {
		defer release() // a tree the shapes lent
	}
	if cache {
		if e := s.engine.parsed.add(piece.Text, st); e != nil {
			defer s.engine.parsed.give(e)
		}
	}
	return s.execStatement(ctx, st)
}

// execStatement runs one parsed statement: one result, and one more per
// FACET clause. st is read, not changed.
func (s *Session) execStatement(ctx context.Context, st *dialect.Statement) ([]*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, cancelled(err)
	}
	var err error
	s.engine.stats.Queries.Add(1)
	s.pending = nil
	s.began = time.Now()
	if s.applying != nil {
		s.began = s.applyNow
	}
	var rs []*Result
	if sel, isSelect := st.Node.(*ast.SelectStmt); isSelect && len(st.Facets) > 0 {
		rs, err = s.runFacets(ctx, sel, st)
		// Each of a FACET's searches meets the same shard left out, the
		// same query warning: one of each is told.
		s.pending = uniqueWarnings(s.pending)
	} else {
		var r *Result
		r, err = s.run(ctx, st)
		rs = []*Result{r}
	}
	if err != nil {
		e := asError(err)
		if _, isShow := st.Node.(*ast.ShowStmt); !isShow {
			s.warnings, s.lastError = nil, nil
			if !errors.As(e, &s.lastError) {
				s.lastError = &Error{Code: CodeInternal, Msg: e.Error()}
			}
		}
		return nil, e
	}
	if !diagnostic(st.Node) {
		s.warnings, s.lastError = s.pending, nil
		rs[0].Warnings = uint16(min(len(s.pending), 0xffff))
		for _, w := range s.pending {
			rs[0].WarningTexts = append(rs[0].WarningTexts, w.msg)
		}
	}
	s.pending = nil
	return rs, nil
}

// diagnostic reports whether n tells of the statement before it (SHOW
// WARNINGS, SHOW META), which then keeps its warnings: SHOW META and then
// SHOW WARNINGS still show them.
func diagnostic(n ast.StmtNode) bool {
	switch x := n.(type) {
	case *ast.ShowStmt:
		return x.Tp == ast.ShowWarnings || x.Tp == ast.ShowErrors
	case *ast.SelectStmt:
		_, meta := showMetaCall(x)
		return meta
	}
	return false
}

// Prepared is a statement prepared with Prepare.
type Prepared struct {
	NumParams int
	text      string
}

// Text is the prepared statement's text, with its ? placeholders.
func (p *Prepared) Text() string { return p.text }

// Prepare checks a single statement with ? placeholders. CodeNotPreparable for
// text holding several statements.
func (s *Session) Prepare(query string) (*Prepared, error) {
	pieces := dialect.Split(query)
	switch {
	case len(pieces) == 0:
		return nil, Errorf(CodeEmptyQuery, "Query was empty")
	case len(pieces) > 1:
		return nil, Errorf(CodeNotPreparable, "a prepared statement must hold exactly one statement, got %d", len(pieces))
	}
	st, err := dialect.ParsePiece(s.sqlParser(), pieces[0])
	if err != nil {
		return nil, syntaxError(err, pieces[0].Text)
	}
	if len(st.Facets) > 0 {
		return nil, Errorf(CodeNotPreparable, "FACET returns several result sets, which a prepared statement cannot; send it as a query")
	}
	return &Prepared{NumParams: len(dialect.Placeholders(pieces[0].Text)), text: pieces[0].Text}, nil
}

// ExecPrepared runs p with args bound to its placeholders in order. Each arg is
// nil, int64, uint64, float64, string or []byte.
func (s *Session) ExecPrepared(ctx context.Context, p *Prepared, args []any) (*Result, error) {
	if len(args) != p.NumParams {
		return nil, Errorf(CodeWrongCount, "the statement has %d placeholder(s), got %d argument(s)", p.NumParams, len(args))
	}
	text, err := dialect.Interpolate(p.text, args)
	if err != nil {
		return nil, Errorf(CodeWrongValue, "%v", err)
	}
	return s.execOne(ctx, text)
}

// UseDB sets the current database (COM_INIT_DB, USE). glint has one database,
// named "glint", and the catalog, information_schema; another name is a
// CodeNoSuchDB error.
func (s *Session) UseDB(name string) error {
	switch {
	case strings.EqualFold(name, Database):
		s.db = Database
	case strings.EqualFold(name, catalog.Schema):
		s.db = catalog.Schema
	default:
		return Errorf(CodeNoSuchDB, "unknown database '%s' (glint has one database, '%s', and '%s')", name, Database, catalog.Schema)
	}
	return nil
}

// FieldList answers COM_FIELD_LIST: the columns of a table.
func (s *Session) FieldList(table string) ([]Column, error) {
	t, err := s.engine.db.Table(table)
	if err != nil {
		return nil, asError(err)
	}
	cols := []Column{{Name: "id", Type: ColUint}}
	for _, c := range t.Schema().Columns {
		cols = append(cols, Column{Name: c.Name, Type: columnWireType(c.Type)})
	}
	return cols, nil
}

// run dispatches one parsed statement.
func (s *Session) run(ctx context.Context, st *dialect.Statement) (*Result, error) {
	r, err := s.dispatch(ctx, st)
	if s.applying != nil {
		return r, err
	}
	if err == nil {
		s.noteTransaction(st.Node)
	}
	if s.nextReadOnly != nil {
		switch st.Node.(type) {
		case *ast.SetStmt, *ast.BeginStmt: // (its transaction is to come, or has begun)
		default:
			if !s.inTransaction && s.Autocommit() {
				s.nextReadOnly = nil // its transaction has ended
			}
		}
	}
	return r, err
}

// noteTransaction keeps count of the writes a ROLLBACK would be asked to
// undo: those run since BEGIN, or since the last COMMIT while autocommit
// is off. glint applies every statement as it runs (there are no
// transactions): ROLLBACK refuses to answer OK when there are any (see
// rollback). A statement that defines tables commits, as in MySQL.
func (s *Session) noteTransaction(n ast.StmtNode) {
	switch n.(type) {
	case *ast.InsertStmt, *ast.DeleteStmt, *ast.UpdateStmt:
		if s.inTransaction || !s.Autocommit() {
			s.unrolled++
		}
	case *ast.BeginStmt:
		s.inTransaction, s.unrolled, s.savepoints = true, 0, nil
	case *ast.CommitStmt, *ast.CreateTableStmt, *ast.DropTableStmt, *ast.AlterTableStmt, *ast.TruncateTableStmt:
		s.inTransaction, s.unrolled, s.savepoints = false, 0, nil
	}
}

// rollback answers ROLLBACK: OK when nothing was written since the
// transaction began, and otherwise an error saying that the writes stay,
// rather than an OK that a client would take for their undoing.
func (s *Session) rollback() (*Result, error) {
	n := s.unrolled
	s.inTransaction, s.unrolled, s.savepoints = false, 0, nil
	if n > 0 {
		return nil, Errorf(CodeUnsupported, "ROLLBACK cannot undo the %d write statement(s) run since the transaction began: glint applies every statement as it runs (there are no transactions), and they stay applied", n)
	}
	return &Result{}, nil
}

// savepoint is a SAVEPOINT of the transaction running: its name and the
// writes run in the transaction before it.
type savepoint struct {
	name   string
	writes int
}

// execSavepoint answers SAVEPOINT name (mysqldump --single-transaction
// sets one before each table and rolls back to it after). As in MySQL, a
// savepoint set outside a transaction ends with the statement's own
// transaction, and one set again under the same name (in any case)
// replaces the old one.
func (s *Session) execSavepoint(name string) (*Result, error) {
	if !s.inTransaction && s.Autocommit() {
		return &Result{}, nil
	}
	if i := s.findSavepoint(name); i >= 0 {
		s.savepoints = append(s.savepoints[:i], s.savepoints[i+1:]...)
	}
	s.savepoints = append(s.savepoints, savepoint{name: name, writes: s.unrolled})
	return &Result{}, nil
}

// rollbackTo answers ROLLBACK TO SAVEPOINT name: OK when nothing was
// written since the savepoint, which stays while those set after it go;
// otherwise the error of rollback, since the writes stay applied. The
// transaction goes on either way.
func (s *Session) rollbackTo(name string) (*Result, error) {
	i := s.findSavepoint(name)
	if i < 0 {
		return nil, Errorf(CodeNoSavepoint, "SAVEPOINT %s does not exist", name)
	}
	sp := s.savepoints[i]
	s.savepoints = s.savepoints[:i+1]
	if n := s.unrolled - sp.writes; n > 0 {
		return nil, Errorf(CodeUnsupported, "ROLLBACK TO SAVEPOINT %s cannot undo the %d write statement(s) run since it was set: glint applies every statement as it runs (there are no transactions), and they stay applied", name, n)
	}
	return &Result{}, nil
}

// releaseSavepoint answers RELEASE SAVEPOINT name, which forgets it and
// those set after it.
func (s *Session) releaseSavepoint(name string) (*Result, error) {
	i := s.findSavepoint(name)
	if i < 0 {
		return nil, Errorf(CodeNoSavepoint, "SAVEPOINT %s does not exist", name)
	}
	s.savepoints = s.savepoints[:i]
	return &Result{}, nil
}

// findSavepoint is the index of the savepoint named name (MySQL's names
// of savepoints are not case-sensitive), or -1.
func (s *Session) findSavepoint(name string) int {
	for i, sp := range s.savepoints {
		if strings.EqualFold(sp.name, name) {
			return i
		}
	}
	return -1
}

// ownTables checks the tables that statements other than SELECT name
// (CREATE, DROP, TRUNCATE, ALTER, OPTIMIZE, SHOW CREATE TABLE, SHOW INDEX,
// DESC, and the writes): each read glint's table of that name whatever
// database was written before it, so DROP TABLE other.books dropped books,
// and after USE information_schema, INSERT INTO books wrote to glint's.
func (s *Session) ownTables(node ast.StmtNode) error {
	names, _ := writtenTables(node)
	switch n := node.(type) {
	case *ast.ShowStmt:
		if (n.Tp == ast.ShowCreateTable || n.Tp == ast.ShowIndex) && n.Table != nil {
			tn := *n.Table
			if n.DBName != "" { // SHOW INDEX FROM t FROM db
				tn.Schema = ast.NewCIStr(n.DBName)
			}
			names = []*ast.TableName{&tn}
		}
	case *ast.ExplainStmt:
		if show, ok := n.Stmt.(*ast.ShowStmt); ok && show.Tp == ast.ShowColumns && !s.inCatalog(show.Table) {
			names = []*ast.TableName{show.Table}
		}
	}
	for _, tn := range names {
		switch {
		case tn == nil:
		case s.inCatalog(tn):
			return Errorf(CodeUnsupported, "'%s.%s': this statement takes glint's own tables, not %s's", catalog.Schema, tn.Name.O, catalog.Schema)
		case tn.Schema.O != "" && !strings.EqualFold(tn.Schema.O, Database):
			return Errorf(CodeNoSuchDB, "unknown database '%s' (glint has one database, '%s', and '%s')", tn.Schema.O, Database, catalog.Schema)
		}
	}
	return nil
}

// writtenTables is the tables a statement writes or redefines, and
// whether it is such a statement (for a write of another shape than one
// table, which the write refuses itself, no tables).
func writtenTables(node ast.StmtNode) ([]*ast.TableName, bool) {
	switch n := node.(type) {
	case *ast.CreateTableStmt:
		return []*ast.TableName{n.Table}, true
	case *ast.DropTableStmt:
		return n.Tables, true
	case *ast.TruncateTableStmt:
		return []*ast.TableName{n.Table}, true
	case *ast.AlterTableStmt:
		return []*ast.TableName{n.Table}, true
	case *ast.OptimizeTableStmt:
		return n.Tables, true
	case *ast.InsertStmt:
		return refsTable(n.Table), true
	case *ast.DeleteStmt:
		return refsTable(n.TableRefs), true
	case *ast.UpdateStmt:
		return refsTable(n.TableRefs), true
	}
	return nil, false
}

// refsTable is the table of a write's single-table clause (nil for any
// other shape, which the write refuses itself).
func refsTable(refs *ast.TableRefsClause) []*ast.TableName {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return nil
	}
	if src, ok := refs.TableRefs.Left.(*ast.TableSource); ok {
		if tn, ok := src.Source.(*ast.TableName); ok {
			return []*ast.TableName{tn}
		}
	}
	return nil
}

// inCatalog reports whether tn is a table of information_schema: named so,
// or unqualified after USE information_schema.
func (s *Session) inCatalog(tn *ast.TableName) bool {
	if tn == nil {
		return false
	}
	return strings.EqualFold(tn.Schema.O, catalog.Schema) || tn.Schema.O == "" && strings.EqualFold(s.db, catalog.Schema)
}

// dispatch runs st (see run).
func (s *Session) dispatch(ctx context.Context, st *dialect.Statement) (*Result, error) {
	if err := s.writeAllowed(st.Node); err != nil {
		return nil, err
	}
	end, err := s.beginWrite(ctx, st.Node)
	if err != nil {
		return nil, err
	}
	if end != nil {
		defer end()
	}
	if st.Cluster != nil {
		// (Each changes tables or membership: none is a read.)
		if err := s.readOnly(); err != nil {
			return nil, err
		}
		return s.execCluster(ctx, st.Cluster)
	}
	if err := s.ownTables(st.Node); err != nil {
		return nil, err
	}
	if r, handled, err := s.routeWrite(ctx, st); handled {
		return r, err
	}
	if _, isSelect := st.Node.(*ast.SelectStmt); !isSelect && len(st.Settings) > 0 {
		if _, isCreate := st.Node.(*ast.CreateTableStmt); !isCreate {
			return nil, Errorf(CodeSyntax, "OPTION is allowed only after SELECT")
		}
	}
	switch n := st.Node.(type) {
	case *ast.SelectStmt:
		s.engine.stats.Selects.Add(1)
		ctx, done := s.statementTime(ctx)
		defer done()
		r, err := s.execSelect(ctx, n, st.Settings, st.WithinGroup)
		return r, s.statementTimeError(ctx, err)
	case *ast.SetOprStmt:
		s.engine.stats.Selects.Add(1)
		ctx, done := s.statementTime(ctx)
		defer done()
		r, err := s.selectSet(ctx, n)
		return r, s.statementTimeError(ctx, err)
	case *ast.InsertStmt:
		s.engine.stats.Inserts.Add(1)
		return s.execInsert(ctx, n)
	case *ast.DeleteStmt:
		s.engine.stats.Deletes.Add(1)
		return s.execDelete(ctx, n)
	case *ast.UpdateStmt:
		s.engine.stats.Updates.Add(1)
		return s.execUpdate(ctx, n)
	case *ast.CreateTableStmt:
		return s.execCreateTable(ctx, n, st.Settings)
	case *ast.DropTableStmt:
		return s.execDropTable(ctx, n)
	case *ast.TruncateTableStmt:
		return s.execTruncate(ctx, n)
	case *ast.OptimizeTableStmt:
		return s.execOptimize(ctx, n)
	case *ast.ShowStmt:
		return s.execShow(ctx, n)
	case *ast.ExplainStmt:
		if show, ok := n.Stmt.(*ast.ShowStmt); ok && show.Tp == ast.ShowColumns {
			keep := func(string) bool { return true } // DESC t
			if show.Column != nil {                   // DESC t col
				keep = func(f string) bool { return strings.EqualFold(f, show.Column.Name.O) }
			}
			if s.inCatalog(show.Table) {
				return s.showColumns(catalog.Schema, show.Table.Name.O, false, keep)
			}
			return s.describe(show.Table.Name.O, keep)
		}
	case *ast.SetStmt:
		return s.execSet(n)
	case *ast.CallStmt:
		ctx, done := s.statementTime(ctx)
		defer done()
		if isQueryStatsCall(n) {
			r, err := s.callQueryStats(ctx, n)
			return r, s.statementTimeError(ctx, err)
		}
		if isSearchRequestCall(n) {
			r, err := s.callSearchRequest(ctx, n)
			return r, s.statementTimeError(ctx, err)
		}
		if isKeywordsCall(n) {
			r, err := s.callKeywords(ctx, n)
			return r, s.statementTimeError(ctx, err)
		}
		r, err := s.callSnippets(ctx, n)
		return r, s.statementTimeError(ctx, err)
	case *ast.UseStmt:
		if err := s.UseDB(n.DBName); err != nil {
			return nil, err
		}
		return &Result{}, nil
	case *ast.PrepareStmt:
		return s.execPrepare(n)
	case *ast.ExecuteStmt:
		return s.execExecute(ctx, n)
	case *ast.DeallocateStmt:
		return s.execDeallocate(n)
	case *ast.LockTablesStmt:
		return s.execLockTables(n)
	case *ast.CreateDatabaseStmt:
		return s.execCreateDatabase(n)
	case *ast.AnalyzeTableStmt:
		return s.execAnalyze(n)
	case *ast.KillStmt:
		return s.execKill(n)
	case *ast.UnlockTablesStmt:
		s.unlockTables()
		return &Result{}, nil
	case *ast.FlushStmt:
		return s.execFlush(ctx, n)
	case *ast.AlterTableStmt:
		return s.execAlterTable(n)
	case *ast.BeginStmt:
		// Every statement commits on its own; BEGIN and COMMIT are
		// accepted for clients that wrap their writes in them (see
		// noteTransaction). START TRANSACTION READ ONLY is honoured.
		if n.ReadOnly {
			ro := true
			s.nextReadOnly = &ro
		}
		return &Result{}, nil
	case *ast.CommitStmt:
		s.nextReadOnly = nil
		return &Result{}, nil
	case *ast.RollbackStmt:
		if n.SavepointName != "" {
			return s.rollbackTo(n.SavepointName)
		}
		s.nextReadOnly = nil
		return s.rollback()
	case *ast.SavepointStmt:
		return s.execSavepoint(n.Name)
	case *ast.ReleaseSavepointStmt:
		return s.releaseSavepoint(n.Name)
	}
	return nil, Errorf(CodeUnsupported, "statement is not supported: %s", firstWords(st.Text))
}

// firstWords is the start of a statement, for error messages.
func firstWords(text string) string {
	f := strings.Fields(text)
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.Join(f, " ")
}

// syntaxError converts an error of the dialect bridge for the statement
// text. An ALTER TABLE that does not parse (a table setting, as the
// reference changes them, or a column type MySQL does not have) says what
// ALTER TABLE takes instead.
func syntaxError(err error, text string) error {
	var se *dialect.SyntaxError
	if errors.As(err, &se) {
		if f := strings.Fields(text); len(f) >= 2 && strings.EqualFold(f[0], "ALTER") && strings.EqualFold(f[1], "TABLE") {
			return errAlterTable
		}
		return &Error{Code: CodeSyntax, Msg: se.Error()}
	}
	return asError(err)
}

// cancelled is the error of a statement whose context ended: by KILL
// QUERY or KILL (MySQL's words), the client going away or the server
// stopping.
func cancelled(err error) *Error {
	if errors.Is(err, context.Canceled) {
		return Errorf(CodeCancelled, "Query execution was interrupted")
	}
	return Errorf(CodeCancelled, "Query execution was interrupted: %v", err)
}
