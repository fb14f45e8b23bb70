package sql

import (
	"context"
	"strings"
	"time"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/index/query"
	"github.com/glint-search/glint/sql/dialect"
)

// Doc is one document of a write request (POST /insert, /replace, /bulk).
type Doc struct {
	Path   string
	ID     uint64 // 0: a new id (insert only)
	Values []DocValue
}

// DocValue is one column value of a write request: Value is a JSON scalar
// (string, int64, uint64, float64, bool, nil), []any of scalars (a multi),
// or map[string]any for anything structured (an object, nested arrays),
// which only a json column takes; Raw is the member's JSON text, which a
// json column stores.
type DocValue struct {
	Path  string
	Name  string
	Value any
	Raw   string
}

// Written is the outcome of one written document: its id, and whether it
// is new (false: a replace found the id and replaced it).
type Written struct {
	ID      uint64
	Created bool
}

// InsertDocs inserts (or, with replace, replaces) documents in one
// transaction. A bad value fails every document.
func (s *Session) InsertDocs(ctx context.Context, table string, docs []Doc, replace bool) ([]Written, error) {
	end, err := s.beginDocWrite(ctx, table)
	if err != nil {
		return nil, err
	}
	defer end()
	t, err := s.table(table)
	if err != nil {
		return nil, err
	}
	schema := t.Schema()
	out := make([]index.Document, len(docs))
	for k, d := range docs {
		doc := index.Document{ID: d.ID, Values: make([]index.Value, len(schema.Columns))}
		seen := map[int]bool{}
		for _, v := range d.Values {
			i, cv, err := docValue(schema, v, s.zone())
			if err != nil {
				return nil, err
			}
			if seen[i] {
				return nil, Errorf(CodeSyntax, "%s: column '%s' is given twice", v.Path, v.Name)
			}
			seen[i] = true
			doc.Values[i] = cv
		}
		out[k] = doc
	}
	written := make([]Written, len(out))
	err = t.Write(ctx, func(w *index.Writer) error {
		if replace {
			snap := w.Snapshot()
			for i, d := range out {
				_, found := snap.Lookup(d.ID)
				written[i].Created = !found
			}
		} else {
			for i := range written {
				written[i].Created = true
			}
		}
		var ids []uint64
		var err error
		if replace {
			ids, err = w.Replace(out)
		} else {
			ids, err = w.Insert(out)
		}
		for i, id := range ids {
			written[i].ID = id
		}
		return err
	})
	if err != nil {
		return nil, s.tableError(schema.Name, err)
	}
	return written, nil
}

// docValue converts a value of a write request for its column.
func docValue(schema *index.Schema, v DocValue, loc *time.Location) (int, index.Value, error) {
	i := columnIndex(schema, v.Name)
	if i < 0 {
		if strings.EqualFold(v.Name, "id") {
			return 0, nil, Errorf(CodeSyntax, "%s: the id goes beside the document (\"id\": ...), not inside it", v.Path)
		}
		return 0, nil, Errorf(CodeNoSuchColumn, "%s: unknown column '%s' in table '%s'", v.Path, v.Name, schema.Name)
	}
	c := schema.Columns[i]
	value := v.Value
	switch x := value.(type) {
	case bool:
		value = boolValue(x)
	case []any:
		if c.Type != index.TypeMulti && c.Type != index.TypeMulti64 && c.Type != index.TypeJSON {
			return 0, nil, Errorf(CodeWrongValue, "%s: column '%s' (%s) takes a single value, not an array", v.Path, c.Name, typeName(c))
		}
	}
	if c.Type == index.TypeJSON {
		value = v.Raw
		if v.Value == nil {
			value = nil
		}
	} else if _, isObject := v.Value.(map[string]any); isObject {
		return 0, nil, Errorf(CodeWrongValue, "%s: column '%s' (%s) does not take an object or a nested array", v.Path, c.Name, typeName(c))
	}
	cv, msg := columnValueIn(c.Type, value, loc)
	if msg != "" && c.Type != index.TypeFloat && beyond64Bits(v.Raw) {
		// Named as written, as INSERT names it, not as the float64 the
		// decoder rounded it to.
		msg = "value " + v.Raw + " is beyond 64 bits"
	}
	if msg != "" {
		return 0, nil, Errorf(CodeWrongValue, "%s: column '%s' (%s): %s", v.Path, c.Name, typeName(c), msg)
	}
	return i, cv, nil
}

// beginDocWrite is the start of a JSON write to table: refused in a
// read-only session, held back by another session's read lock (see
// readLocks); end ends it.
func (s *Session) beginDocWrite(ctx context.Context, table string) (end func(), err error) {
	if err := s.readOnly(); err != nil {
		return nil, err
	}
	if err := s.clusterDocWrite(table); err != nil {
		return nil, err
	}
	return s.beginWriteTo(ctx, []string{table})
}

// clusterDocWrite refuses a JSON write to a table of a cluster, by its
// plain name or as c:t, with the way to make it: a cluster's log carries
// SQL statements, and no SQL text is made of a JSON request.
func (s *Session) clusterDocWrite(table string) error {
	if s.engine.repl == nil {
		return nil
	}
	cn, name, isCluster := dialect.SplitClusterTable(table)
	switch {
	case isCluster:
		if c, ok := s.engine.repl.cluster(cn); !ok || !c.currentDB().HasTable(name) {
			return nil // the table's lookup names what is unknown
		}
	case s.engine.db.HasTable(table):
		return nil // this server's own, beside a cluster's of that name
	default:
		if cn, name = s.engine.repl.clusterOf(table), table; cn == "" {
			return nil
		}
	}
	return Errorf(CodeCluster, "table '%s' is in cluster '%s': JSON writes do not reach a cluster's tables; write to it in SQL as %s:%s (POST /sql too)", name, cn, cn, name)
}

// UpdateDocs sets attributes of the documents that match cond (POST
// /update) in one transaction, and returns how many were updated.
func (s *Session) UpdateDocs(ctx context.Context, table string, cond Cond, values []DocValue) (int, error) {
	end, err := s.beginDocWrite(ctx, table)
	if err != nil {
		return 0, err
	}
	defer end()
	t, err := s.table(table)
	if err != nil {
		return 0, err
	}
	schema := t.Schema()
	if len(values) == 0 {
		return 0, Errorf(CodeSyntax, "update: \"doc\" names no column to set")
	}
	var set []assignment
	seen := map[int]bool{}
	for _, v := range values {
		if strings.EqualFold(v.Name, "id") {
			return 0, Errorf(CodeWrongValue, "%s: the id of a document cannot be updated", v.Path)
		}
		i, cv, err := docValue(schema, v, s.zone())
		if err != nil {
			return 0, err
		}
		if schema.Columns[i].Type == index.TypeText {
			return 0, Errorf(CodeWrongValue, "%s: column '%s' is a full-text field; update changes attributes only (use replace)", v.Path, v.Name)
		}
		if seen[i] {
			return 0, Errorf(CodeSyntax, "%s: column '%s' is given twice", v.Path, v.Name)
		}
		seen[i] = true
		set = append(set, assignment{col: i, e: constExpr{cv}})
	}
	sc, where, err := s.writeCond(t, cond)
	if err != nil {
		return 0, err
	}
	return s.updateWhere(ctx, t, sc, where, set)
}

// DeleteDocs deletes the documents that match cond (POST /delete) in one
// transaction, and returns how many were deleted.
func (s *Session) DeleteDocs(ctx context.Context, table string, cond Cond) (int, error) {
	end, err := s.beginDocWrite(ctx, table)
	if err != nil {
		return 0, err
	}
	defer end()
	t, err := s.table(table)
	if err != nil {
		return 0, err
	}
	sc, where, err := s.writeCond(t, cond)
	if err != nil {
		return 0, err
	}
	return s.deleteWhere(ctx, t, sc, where)
}

// writeCond compiles the condition of an update or delete.
func (s *Session) writeCond(t *index.Table, cond Cond) (*scope, expr, error) {
	sc := &scope{schema: t.Schema(), sess: s}
	if cond == nil {
		return nil, nil, Errorf(CodeSyntax, "name the documents with \"id\" or \"query\" (\"query\": {\"match_all\": {}} for every one)")
	}
	c := &condCompiler{sess: s, table: t, sc: sc, parts: query.NewParts(t.Tokenizer())}
	part, err := c.compile(cond)
	if err != nil {
		return nil, nil, err
	}
	where, err := sc.filter(part, cond.where())
	return sc, where, err
}
