package sql

import (
	"strings"

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

// execAlterTable accepts ALTER TABLE t DISABLE KEYS and ENABLE KEYS, which
// mysqldump writes around a table's INSERTs: glint's index is written by
// each INSERT, as a MyISAM table with its keys enabled is. Other ALTERs are
// errors.
func (s *Session) execAlterTable(n *ast.AlterTableStmt) (*Result, error) {
	for _, spec := range n.Specs {
		if spec.Tp != ast.AlterTableDisableKeys && spec.Tp != ast.AlterTableEnableKeys {
			return nil, Errorf(CodeUnsupported, "ALTER TABLE takes only DISABLE KEYS and ENABLE KEYS: a table's columns and settings are fixed when it is created")
		}
	}
	if err := s.checkDumpTable(n.Table); err != nil {
		return nil, err
	}
	return &Result{}, nil
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
