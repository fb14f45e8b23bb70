package sql

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/catalog"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// This file connects the catalog (package sql/catalog) to sessions: which
// SELECTs it answers, the tables it sees, and how glint's column types read
// in MySQL's terms.

// readsCatalog reports whether a SELECT is the catalog's: it reads a table
// of information_schema (named so, or in it as the current database).
func (s *Session) readsCatalog(n *ast.SelectStmt) bool {
	return n.From != nil && catalog.ReadsSchema(n, catalog.Schema, s.db)
}

// selectCatalog runs a SELECT of the catalog.
func (s *Session) selectCatalog(ctx context.Context, n *ast.SelectStmt) (*Result, error) {
	res, err := catalog.Select(ctx, n, s.catalogEnv(catalog.InformationSchema(s.catalogInformation())))
	if err != nil {
		return nil, catalogError(err)
	}
	return catalogResult(res), nil
}

// catalogEnv is what the catalog's row engine sees of the session; tables
// are information_schema's (nil: none).
func (s *Session) catalogEnv(tables map[string]*catalog.Table) *catalog.Env {
	return &catalog.Env{
		Database:     s.db,
		User:         s.user,
		Version:      s.engine.version(),
		ConnectionID: int64(s.id),
		Now:          s.began,
		Zone:         s.zone(),
		Table: func(schema, name string) (*catalog.Table, error) {
			switch {
			case strings.EqualFold(schema, catalog.Schema), schema == "" && strings.EqualFold(s.db, catalog.Schema):
				if t, ok := tables[strings.ToUpper(name)]; ok {
					return t, nil
				}
				return nil, Errorf(CodeNoSuchTable, "unknown table '%s' in information_schema", name)
			case schema != "" && !strings.EqualFold(schema, Database):
				return nil, Errorf(CodeNoSuchDB, "unknown database '%s'", schema)
			}
			if _, err := s.table(name); err != nil {
				return nil, s.tableError(name, err)
			}
			return nil, Errorf(CodeUnsupported, "'%s' is a full-text table, which glint reads only in a SELECT of its own (or one derived from it): not in a UNION, a subquery or a query of information_schema", name)
		},
		Variable: func(name string, system, global bool) (any, error) {
			if !system {
				return s.userVars[strings.ToLower(name)], nil
			}
			return s.scopedVariable(name, global)
		},
		SetVariable: func(name string, value any) { s.userVars[strings.ToLower(name)] = value },
	}
}

// selectSet runs a UNION: glint's full-text searches have none, so its
// SELECTs are the catalog's (or have no table).
func (s *Session) selectSet(ctx context.Context, n *ast.SetOprStmt) (*Result, error) {
	res, err := catalog.SelectSet(ctx, n, s.catalogEnv(catalog.InformationSchema(s.catalogInformation())))
	if err != nil {
		return nil, catalogError(err)
	}
	return catalogResult(res), nil
}

func catalogResult(res *catalog.Result) *Result {
	r := &Result{Columns: make([]Column, len(res.Columns)), Rows: res.Rows, ShortestFloats: true}
	for i, c := range res.Columns {
		r.Columns[i] = Column{Name: c.Name, Type: [...]ColumnType{ColString, ColInt, ColUint, ColFloat}[c.Type]}
	}
	if r.Rows == nil {
		r.Rows = [][]any{}
	}
	return r
}

// catalogError converts an error of the catalog.
func catalogError(err error) error {
	var ce *catalog.Error
	if !errors.As(err, &ce) {
		return asError(err)
	}
	code := map[catalog.Code]Code{
		catalog.CodeUnsupported:  CodeUnsupported,
		catalog.CodeNoSuchTable:  CodeNoSuchTable,
		catalog.CodeNoSuchColumn: CodeNoSuchColumn,
		catalog.CodeSyntax:       CodeSyntax,
		catalog.CodeWrongValue:   CodeWrongValue,
	}[ce.Code]
	return &Error{Code: code, Msg: ce.Msg}
}

// catalogInformation is what the catalog is built from, now.
func (s *Session) catalogInformation() catalog.Information {
	info := catalog.Information{Database: Database}
	for _, name := range s.engine.tableNames() {
		t, err := s.table(name)
		if err != nil {
			continue // dropped meanwhile
		}
		info.Tables = append(info.Tables, tableInfo(t))
	}
	if names := s.engine.db.DistributedNames(); len(names) > 0 {
		for _, name := range names {
			d, dist, err := s.distributed(name)
			if !dist || err != nil {
				continue // dropped meanwhile, or a definition SHOW CREATE TABLE reports the fault of
			}
			info.Tables = append(info.Tables, catalog.TableInfo{Name: d.name, Rows: -1, Options: d.optionsText(), Distributed: true})
		}
		sort.SliceStable(info.Tables, func(i, j int) bool { return info.Tables[i].Name < info.Tables[j].Name })
	}
	for _, p := range s.processes() {
		pi := catalog.ProcessInfo{ID: p.ID, User: p.User, Host: p.Host, DB: p.DB, Command: p.Command, Time: p.Time}
		if p.Command == "Query" {
			pi.State, pi.Info = "executing", p.Info
		}
		info.Processes = append(info.Processes, pi)
	}
	vars := s.systemVariables()
	for k, v := range s.vars {
		vars[k] = v
	}
	for k, v := range vars {
		info.Variables = append(info.Variables, [2]string{k, displayString(v)})
	}
	return info
}

// tableInfo describes a table in MySQL's terms.
func tableInfo(t *index.Table) catalog.TableInfo {
	sc := t.Schema()
	ti := catalog.TableInfo{Name: sc.Name, Rows: int64(t.Snapshot().Count()), Options: settingsText(sc)}
	ti.Columns = append(ti.Columns, idColumnInfo())
	for _, c := range sc.Columns {
		ti.Columns = append(ti.Columns, columnInfo(c))
	}
	return ti
}

func idColumnInfo() catalog.ColumnInfo {
	return catalog.ColumnInfo{Name: "id", DataType: "bigint", ColumnType: "bigint unsigned", Primary: true,
		Precision: 20, Comment: "glint: document id"}
}

// columnInfo gives a column's MySQL type: the one of the values glint sends
// for it (a timestamp is sent as seconds since 1970, a bigint; a multi as
// the text "1,2,3"). The comment names the glint type.
func columnInfo(c index.Column) catalog.ColumnInfo {
	ci := catalog.ColumnInfo{Name: c.Name, Comment: "glint: " + typeName(c)}
	switch c.Type {
	case index.TypeText:
		// mediumtext (16 MB): a tool that copies the schema must not make a
		// column that cuts a document of megabytes; longtext's 4294967295
		// overflows the 32-bit sizes ODBC drivers read it into (the
		// MariaDB driver reported -1).
		ci.DataType, ci.ColumnType, ci.CharLength = "mediumtext", "mediumtext", 16777215
	case index.TypeString, index.TypeMulti, index.TypeMulti64:
		// (varchar, which BI tools group by, where they take a longtext
		// for prose: an attribute is a name, a tag, a list of numbers. One
		// longer than 65535 is possible, and rare.)
		ci.DataType, ci.ColumnType, ci.CharLength = "varchar", "varchar(65535)", 65535
	case index.TypeJSON:
		ci.DataType, ci.ColumnType = "json", "json"
	case index.TypeUint:
		ci.DataType, ci.ColumnType, ci.Precision = "int", "int unsigned", 10
	case index.TypeBigint, index.TypeTimestamp:
		ci.DataType, ci.ColumnType, ci.Precision = "bigint", "bigint", 19
	case index.TypeFloat:
		ci.DataType, ci.ColumnType, ci.Precision, ci.Scale = "float", "float", 12, -1
	case index.TypeBool:
		ci.DataType, ci.ColumnType, ci.Precision = "tinyint", "tinyint(1)", 3
	default:
		panic(fmt.Sprintf("sql: column type %v has no MySQL type", c.Type))
	}
	return ci
}
