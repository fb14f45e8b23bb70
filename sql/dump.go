package sql

import (
	"fmt"
	"strings"

	"github.com/glint-search/glint/sql/catalog"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// This file holds the statements mysqldump writes around a table's rows
// and reads a table with, which glint accepts so that a dump restores.

// execLockTables accepts LOCK TABLES t READ|WRITE after checking that the
// tables exist. glint takes no lock: every statement reads one snapshot of
// a table and writes to a table run one at a time, which is what mysqldump
// locks for (a consistent SELECT of each table, and INSERTs that nothing
// interleaves with).
func (s *Session) execLockTables(n *ast.LockTablesStmt) (*Result, error) {
	for _, l := range n.TableLocks {
		if err := s.checkDumpTable(l.Table); err != nil {
			return nil, err
		}
	}
	return &Result{}, nil
}

// execCreateDatabase answers CREATE DATABASE, which mysqldump
// --databases and --all-databases write before a database's tables
// (CREATE DATABASE IF NOT EXISTS, from SHOW CREATE DATABASE IF NOT
// EXISTS): glint has its two databases, so as in MySQL, creating one of
// them is error 1007, or with IF NOT EXISTS a note of it; any other name
// is not supported.
func (s *Session) execCreateDatabase(n *ast.CreateDatabaseStmt) (*Result, error) {
	name := n.Name.O
	if !strings.EqualFold(name, Database) && !strings.EqualFold(name, catalog.Schema) {
		return nil, Errorf(CodeUnsupported, "CREATE DATABASE '%s': glint has one database, '%s' (and '%s'); its tables are created in it", name, Database, catalog.Schema)
	}
	msg := fmt.Sprintf("Can't create database '%s'; database exists", name)
	if !n.IfNotExists {
		return nil, Errorf(CodeDatabaseExists, "%s", msg)
	}
	s.pending = append(s.pending, warning{level: "Note", code: CodeDatabaseExists, msg: msg})
	return &Result{}, nil
}

// errAlterTable is the error of an ALTER TABLE that does more than
// mysqldump's DISABLE KEYS and ENABLE KEYS.
var errAlterTable = Errorf(CodeUnsupported, "ALTER TABLE takes only DISABLE KEYS and ENABLE KEYS: a table's columns and settings are fixed when it is created")

// execAlterTable accepts ALTER TABLE t DISABLE KEYS and ENABLE KEYS, which
// mysqldump writes around a table's INSERTs: glint's index is written by
// each INSERT, as a MyISAM table with its keys enabled is. Other ALTERs are
// errors.
func (s *Session) execAlterTable(n *ast.AlterTableStmt) (*Result, error) {
	if !keysOnly(n) {
		return nil, errAlterTable
	}
	if err := s.checkDumpTable(n.Table); err != nil {
		return nil, err
	}
	return &Result{}, nil
}

// keysOnly reports whether every change of n is DISABLE KEYS or ENABLE
// KEYS, the only ALTER TABLE glint takes.
func keysOnly(n *ast.AlterTableStmt) bool {
	for _, spec := range n.Specs {
		if spec.Tp != ast.AlterTableDisableKeys && spec.Tp != ast.AlterTableEnableKeys {
			return false
		}
	}
	return true
}

func (s *Session) checkDumpTable(t *ast.TableName) error {
	if t.Schema.O != "" && !strings.EqualFold(t.Schema.O, Database) {
		return Errorf(CodeNoSuchDB, "unknown database '%s'", t.Schema.O)
	}
	if _, dist, err := s.distributed(t.Name.O); dist {
		return err
	}
	_, err := s.table(t.Name.O)
	return err
}
