package sql

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/glint-search/glint/index"
	"github.com/glint-search/glint/sql/dialect"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// idColumn marks the implicit id in an INSERT's column positions.
const idColumn = -1

func (s *Session) execInsert(ctx context.Context, n *ast.InsertStmt) (*Result, error) {
	if n.Select != nil || len(n.OnDuplicate) > 0 {
		return nil, Errorf(CodeUnsupported, "INSERT takes VALUES only (no SELECT or ON DUPLICATE KEY)")
	}
	t, err := s.tableIn(n.Table)
	if err != nil {
		return nil, err
	}
	schema := t.Schema()

	// Column positions: the list given, or id followed by every column.
	var cols []int
	if len(n.Columns) == 0 {
		cols = append(cols, idColumn)
		for i := range schema.Columns {
			cols = append(cols, i)
		}
	} else {
		seen := map[int]bool{}
		for _, c := range n.Columns {
			i := idColumn
			if !strings.EqualFold(c.Name.O, "id") {
				if i = columnIndex(schema, c.Name.O); i < 0 {
					return nil, Errorf(CodeNoSuchColumn, "unknown column '%s' in table '%s'", c.Name.O, schema.Name)
				}
			}
			if seen[i] {
				return nil, Errorf(CodeSyntax, "column '%s' is given twice", c.Name.O)
			}
			seen[i] = true
			cols = append(cols, i)
		}
	}

	docs := make([]index.Document, len(n.Lists))
	consts := &scope{sess: s}
	for r, list := range n.Lists {
		if len(list) != len(cols) {
			return nil, Errorf(CodeWrongCount, "row %d has %d value(s), but %d column(s) are named", r+1, len(list), len(cols))
		}
		doc := index.Document{Values: make([]index.Value, len(schema.Columns))}
		for k, node := range list {
			v, err := constantValue(consts, node)
			if err != nil {
				return nil, err
			}
			if cols[k] == idColumn {
				if doc.ID, err = documentID(v, numberText(node), r+1); err != nil {
					return nil, err
				}
				continue
			}
			c := schema.Columns[cols[k]]
			cv, msg := columnValueIn(c.Type, v, s.zone())
			if msg != "" && c.Type != index.TypeFloat && beyond64Bits(numberText(node)) {
				msg = "value " + numberText(node) + " is beyond 64 bits"
			}
			if msg != "" {
				return nil, Errorf(CodeWrongValue, "row %d, column '%s' (%s): %s", r+1, c.Name, typeName(c), msg)
			}
			doc.Values[cols[k]] = cv
		}
		docs[r] = doc
	}

	ignore := n.IgnoreErr && !n.IsReplace // (REPLACE has no duplicates to pass over)
	ids, err := s.writeDocs(ctx, t, docs, n.IsReplace, ignore)
	if err != nil {
		return nil, err
	}
	r := &Result{AffectedRows: uint64(len(ids))}
	if len(ids) > 0 {
		r.InsertID = ids[len(ids)-1]
		s.lastInsertID = r.InsertID
	}
	return r, nil
}

// writeDocs inserts (or replaces) documents in one transaction and returns
// their ids. With ignore (INSERT IGNORE), a document whose id the table
// has, or an earlier row of the statement has, is passed over with a
// warning, as MySQL passes over a duplicate key; any other error is the
// statement's, as without IGNORE (glint does not turn a bad value into a
// warning and a value it was not given).
func (s *Session) writeDocs(ctx context.Context, t *index.Table, docs []index.Document, replace, ignore bool) ([]uint64, error) {
	var ids []uint64
	var skipped []uint64
	err := t.Write(ctx, func(w *index.Writer) error {
		var err error
		switch {
		case replace:
			ids, err = w.Replace(docs)
		case ignore:
			keep := docs[:0:0]
			skipped = skipped[:0]
			seen := map[uint64]bool{}
			for _, d := range docs {
				if d.ID != 0 && (seen[d.ID] || w.Exists(d.ID)) {
					skipped = append(skipped, d.ID)
					continue
				}
				seen[d.ID] = d.ID != 0
				keep = append(keep, d)
			}
			ids, err = w.Insert(keep)
		default:
			ids, err = w.Insert(docs)
		}
		return err
	})
	for _, id := range skipped {
		s.pending = append(s.pending, warning{level: "Warning", code: CodeDuplicateID,
			msg: fmt.Sprintf("Duplicate entry '%d' for key 'PRIMARY': INSERT IGNORE passed the row over", id)})
	}
	if err != nil {
		return nil, s.tableError(t.Schema().Name, err)
	}
	return ids, nil
}

// constantValue evaluates a VALUES item: a literal, an arithmetic of literals, or
// a parenthesised list for a multi column, () for an empty one.
func constantValue(sc *scope, node ast.ExprNode) (any, error) {
	if isEmptyList(node) {
		return []any{}, nil
	}
	if row, ok := node.(*ast.RowExpr); ok {
		out := make([]any, len(row.Values))
		for i, e := range row.Values {
			v, err := constantValue(sc, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	if p, ok := node.(*ast.ParenthesesExpr); ok {
		v, err := constantValue(sc, p.Expr)
		if err != nil {
			return nil, err
		}
		return []any{v}, nil
	}
	e, err := sc.compile(node)
	if err != nil {
		return nil, err
	}
	return e.eval(nil)
}

// documentID converts the value given for id; text is the number as
// written when the value is a literal (see numberText), else "".
func documentID(v any, text string, row int) (uint64, error) {
	if id, ok := exactID(text); ok {
		return id, nil
	}
	if beyond64Bits(text) {
		return 0, Errorf(CodeWrongValue, "row %d: id %s is beyond 64 bits (the largest id is %d)", row, text, uint64(math.MaxUint64))
	}
	switch x := v.(type) {
	case int64:
		if x >= 0 {
			return uint64(x), nil
		}
	case uint64:
		return x, nil
	case float64:
		if x >= 0 && x == math.Trunc(x) && x < math.MaxUint64 {
			return uint64(x), nil
		}
		if x >= math.MaxUint64 && !math.IsInf(x, 1) {
			return 0, Errorf(CodeWrongValue, "row %d: id %s is beyond 64 bits (the largest id is %d)", row, formatNumber(x), uint64(math.MaxUint64))
		}
	case string:
		n, msg := intInRange(x, 0, math.MaxInt64)
		if msg == "" {
			return uint64(n.(int64)), nil
		}
	case nil:
		return 0, nil
	}
	return 0, Errorf(CodeWrongValue, "row %d: id must be a non-negative integer, got %s", row, describe(v))
}

func (s *Session) execDelete(ctx context.Context, n *ast.DeleteStmt) (*Result, error) {
	if n.IsMultiTable || n.Order != nil || n.Limit != nil {
		return nil, Errorf(CodeUnsupported, "DELETE takes one table and a WHERE clause (no ORDER BY or LIMIT)")
	}
	t, err := s.tableIn(n.TableRefs)
	if err != nil {
		return nil, err
	}
	if err := missingWhere(n, t.Schema().Name); err != nil {
		return nil, err
	}
	sc := &scope{schema: t.Schema(), sess: s}
	where, err := sc.compile(n.Where)
	if err != nil {
		return nil, err
	}
	deleted, err := s.deleteWhere(ctx, t, sc, where)
	if err != nil {
		return nil, err
	}
	return &Result{AffectedRows: uint64(deleted)}, nil
}

// deleteWhere deletes the documents that pass where, in one transaction.
func (s *Session) deleteWhere(ctx context.Context, t *index.Table, sc *scope, where expr) (int, error) {
	deleted := 0
	err := t.Write(ctx, func(w *index.Writer) error {
		snap := w.Snapshot()
		var ids []uint64
		err := s.matches(ctx, snap, sc, where, func(r *row) error {
			ids = append(ids, snap.ID(r.ref))
			return nil
		})
		if err != nil {
			return err
		}
		deleted, err = w.Delete(ids)
		return err
	})
	if err != nil {
		return 0, s.tableError(t.Schema().Name, err)
	}
	return deleted, nil
}

func (s *Session) execUpdate(ctx context.Context, n *ast.UpdateStmt) (*Result, error) {
	if n.MultipleTable || n.Order != nil || n.Limit != nil || n.IgnoreErr {
		return nil, Errorf(CodeUnsupported, "UPDATE takes one table, SET and WHERE (no ORDER BY, LIMIT or IGNORE)")
	}
	t, err := s.tableIn(n.TableRefs)
	if err != nil {
		return nil, err
	}
	schema := t.Schema()
	if err := missingWhere(n, schema.Name); err != nil {
		return nil, err
	}
	sc := &scope{schema: schema, sess: s}
	var set []assignment
	for _, a := range n.List {
		cname := a.Column.Name.O
		if strings.EqualFold(cname, "id") {
			return nil, Errorf(CodeWrongValue, "the id of a document cannot be updated")
		}
		i := columnIndex(schema, cname)
		if i < 0 {
			return nil, Errorf(CodeNoSuchColumn, "unknown column '%s' in table '%s'", cname, schema.Name)
		}
		if slices.ContainsFunc(set, func(a assignment) bool { return a.col == i }) {
			return nil, Errorf(CodeSyntax, "column '%s' is given twice", cname)
		}
		if schema.Columns[i].Type == index.TypeText {
			return nil, Errorf(CodeWrongValue, "column '%s' is a full-text field; UPDATE changes attributes only (use REPLACE)", cname)
		}
		var e expr
		if isList(a.Expr) {
			v, err := constantValue(&scope{sess: s}, a.Expr)
			if err != nil {
				return nil, err
			}
			e = constExpr{v}
		} else if e, err = sc.compile(a.Expr); err != nil {
			return nil, err
		}
		set = append(set, assignment{col: i, e: e})
	}
	where, err := sc.compile(n.Where)
	if err != nil {
		return nil, err
	}
	updated, err := s.updateWhere(ctx, t, sc, where, set)
	if err != nil {
		return nil, err
	}
	return &Result{AffectedRows: uint64(updated)}, nil
}

// missingWhere refuses a DELETE or UPDATE of table without a WHERE clause,
// as the reference does (its grammar has neither): a statement cut short
// would change every document. nil for any other statement.
func missingWhere(n ast.StmtNode, table string) error {
	switch n := n.(type) {
	case *ast.DeleteStmt:
		if n.Where == nil {
			return Errorf(CodeSyntax, "DELETE FROM %s needs a WHERE clause (WHERE id = 1, WHERE MATCH('...')); TRUNCATE TABLE %s deletes every document", table, table)
		}
	case *ast.UpdateStmt:
		if n.Where == nil {
			return Errorf(CodeSyntax, "UPDATE %s needs a WHERE clause (WHERE id = 1, WHERE MATCH('...'))", table)
		}
	}
	return nil
}

// isList reports whether a value is a list for a multi column: (1, 2), or
// () for an empty one.
func isList(node ast.ExprNode) bool {
	_, row := node.(*ast.RowExpr)
	return row || isEmptyList(node)
}

// isEmptyList reports whether a value is (), the empty list, as the
// dialect's rewrite hands it on.
func isEmptyList(node ast.ExprNode) bool {
	f, ok := node.(*ast.FuncCallExpr)
	return ok && f.FnName.L == dialect.FuncEmpty
}

// assignment is one SET column = expression of an UPDATE.
type assignment struct {
	col int
	e   expr
}

// updateWhere sets attributes of the documents that pass where, in one
// transaction: a value that does not fit its column fails the whole update.
func (s *Session) updateWhere(ctx context.Context, t *index.Table, sc *scope, where expr, set []assignment) (int, error) {
	schema := t.Schema()
	updated := 0
	err := t.Write(ctx, func(w *index.Writer) error {
		snap := w.Snapshot()
		type change struct {
			id     uint64
			values map[int]index.Value
		}
		var changes []change
		err := s.matches(ctx, snap, sc, where, func(r *row) error {
			values := make(map[int]index.Value, len(set))
			for _, a := range set {
				v, err := a.e.eval(r)
				c := schema.Columns[a.col]
				var e *Error
				if errors.As(err, &e) && e.Code == CodeOutOfRange {
					return Errorf(CodeOutOfRange, "document %d, column '%s' (%s): %s", snap.ID(r.ref), c.Name, typeName(c), e.Msg)
				}
				if err != nil {
					return err
				}
				cv, msg := columnValueIn(c.Type, v, s.zone())
				if _, same := a.e.(constExpr); msg != "" && !same {
					// A value of the document's own: say which one.
					return Errorf(CodeWrongValue, "document %d, column '%s' (%s): %s", snap.ID(r.ref), c.Name, typeName(c), msg)
				}
				if msg != "" {
					return Errorf(CodeWrongValue, "column '%s' (%s): %s", c.Name, typeName(c), msg)
				}
				values[a.col] = cv
			}
			changes = append(changes, change{id: snap.ID(r.ref), values: values})
			return nil
		})
		if err != nil {
			return err
		}
		for _, c := range changes {
			ok, err := w.Update(c.id, c.values)
			if err != nil {
				return err
			}
			if ok {
				updated++
			}
		}
		return nil
	})
	if err != nil {
		return 0, s.tableError(schema.Name, err)
	}
	return updated, nil
}

// numberText is a numeric literal as written (a decimal such as
// 100000000000000000000000 or 18446744073709551614.0, or an integer below
// -2^63, which the executor holds as an inexact float64), with its sign;
// "" for anything else.
func numberText(node ast.ExprNode) string {
	sign := ""
	for {
		switch x := node.(type) {
		case *ast.ParenthesesExpr:
			node = x.Expr
			continue
		case *ast.UnaryOperationExpr:
			if x.Op != opcode.Minus || sign != "" {
				return ""
			}
			sign, node = "-", x.V
			continue
		case ast.ValueExpr:
			switch v := x.GetValue().(type) {
			case fmt.Stringer:
				return sign + v.String()
			case uint64:
				// -9223372036854775809: the executor holds it as a
				// rounded float64.
				if sign != "" {
					return sign + strconv.FormatUint(v, 10)
				}
			}
		}
		return ""
	}
}

// maxNumberText bounds the literals read exactly: a decimal literal has at
// most 65 digits (MySQL's DECIMAL; TiDB's parser allows 81).
const maxNumberText = 100

// exactID reads a decimal literal that is a whole number from 0 to 2^64-1,
// exactly (18446744073709551614.0 would round to 2^64 as a float64).
func exactID(text string) (uint64, bool) {
	if text == "" || len(text) > maxNumberText {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || !r.IsInt() || r.Sign() < 0 || !r.Num().IsUint64() {
		return 0, false
	}
	return r.Num().Uint64(), true
}

// beyond64Bits reports whether a literal (numberText) is a whole number
// that no 64-bit integer holds, signed or not.
func beyond64Bits(text string) bool {
	if text == "" || len(text) > maxNumberText {
		return false
	}
	r, ok := new(big.Rat).SetString(text)
	if !ok || !r.IsInt() {
		return false
	}
	return !r.Num().IsUint64() && !r.Num().IsInt64()
}
