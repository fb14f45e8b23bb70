package jepsen

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Classify turns a statement's error into the operation's outcome: nil is Ok;
// an error the server sent is Fail (a glintd statement is all-or-nothing, so
// one it refused did not happen); a dial that failed, or driver.ErrBadConn
// (which a driver returns only when it sent nothing), is Fail; anything else (a timeout, a connection broken after the statement
// went out) is Unknown. indeterminate names server error codes that do not
// prove the statement did not happen (a replicated commit that timed out, say);
// nil: none.
func Classify(err error, indeterminate func(code uint16) bool) Type {
	if err == nil {
		return Ok
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		if indeterminate != nil && indeterminate(me.Number) {
			return Unknown
		}
		return Fail
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" || errors.Is(err, driver.ErrBadConn) {
		return Fail
	}
	return Unknown
}

// openDB opens a pool of at most one connection to addr: one client is one
// connection, made again after it breaks.
func openDB(addr string, timeout time.Duration) (*sql.DB, error) {
	c := mysql.NewConfig()
	c.User = "root"
	c.Net = "tcp"
	c.Addr = addr
	c.Timeout = timeout
	c.ReadTimeout = 2 * timeout // the context ends each statement first
	c.WriteTimeout = 2 * timeout
	c.Logger = quietLogger{} // broken connections are the point here, and the history has them
	connector, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	return db, nil
}

// keys hands out the register workload's keys: Keys of them in play at
// once, each retired after OpsPerKey operations, or after unknownPerKey
// writes of unknown outcome, for a fresh one, so that each key's history
// stays small enough for porcupine.
type keys struct {
	mu       sync.Mutex
	active   []int64
	used     map[int64]int
	unknowns map[int64]int
	next     int64
	perKey   int
	value    int64
}

// unknownPerKey is how many writes of unknown outcome a key takes before it
// is retired. Each such write may take effect at any time after its invoke,
// so porcupine's search grows with them: a run whose cluster had no quorum
// for 14 s gave its few keys in play some 20 each (523 in all), and
// porcupine had no answer after 10 minutes.
const unknownPerKey = 8

func newKeys(n, perKey int, first int64) *keys {
	k := &keys{used: map[int64]int{}, unknowns: map[int64]int{}, next: first, perKey: perKey}
	for range n {
		k.active = append(k.active, k.next)
		k.next++
	}
	return k
}

// pick returns a key in play, retiring it if it has had its share.
func (k *keys) pick(rng *rand.Rand) int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	i := rng.Intn(len(k.active))
	key := k.active[i]
	k.used[key]++
	if k.used[key] >= k.perKey {
		k.retire(i)
	}
	return key
}

// unknown counts a write of unknown outcome to key, retiring the key at
// unknownPerKey of them (a key retired already stays so).
func (k *keys) unknown(key int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	i := slices.Index(k.active, key)
	if i < 0 {
		return
	}
	if k.unknowns[key]++; k.unknowns[key] >= unknownPerKey {
		k.retire(i)
	}
}

// retire replaces the key active[i] with a fresh one.
func (k *keys) retire(i int) {
	delete(k.used, k.active[i])
	delete(k.unknowns, k.active[i])
	k.active[i] = k.next
	k.next++
}

// newValue returns a value never written before (values are unique, which
// keeps porcupine's search small and a stale read unambiguous).
func (k *keys) newValue() int64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.value++
	return k.value
}

// counter hands out 1, 2, 3, ...: the set workload's unique ids, and
// process ids (a client gets a new one after an operation of unknown
// outcome).
type counter struct {
	mu   sync.Mutex
	next int64
}

func (c *counter) take() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	return c.next
}

// client runs one workload's operations on one node until ctx ends.
type client struct {
	workload  string
	table     string
	node      int
	addr      string
	cfg       *Config
	hist      *History
	rng       *rand.Rand
	procs     *counter
	keys      *keys
	ids       *counter
	readWhere string // appended to the register's SELECT (a read option)
}

func (c *client) run(ctx context.Context) error {
	db, err := openDB(c.addr, c.cfg.OpTimeout)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	var conn *sql.Conn
	defer func() {
		if conn != nil {
			_ = conn.Close()
		}
	}()
	backOff := func() { // a little; the node may be down
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(5+c.rng.Intn(20)) * time.Millisecond):
		}
	}
	process := int(c.procs.take()) - 1
	for ctx.Err() == nil {
		if conn == nil {
			// connected before the operation is invoked: a connection that
			// cannot be made sends nothing, so it is no operation at all
			cctx, cancel := context.WithTimeout(ctx, c.cfg.OpTimeout)
			conn, err = db.Conn(cctx)
			if err == nil {
				err = conn.PingContext(cctx)
			}
			cancel()
			if err != nil {
				if conn != nil {
					_ = conn.Close()
					conn = nil
				}
				backOff()
				continue
			}
		}
		inv, stmt, read := c.next(process)
		inv = c.hist.Invoke(inv)
		octx, cancel := context.WithTimeout(ctx, c.cfg.OpTimeout)
		var got int64
		var err error
		if read {
			err = conn.QueryRowContext(octx, stmt).Scan(&got)
			if errors.Is(err, sql.ErrNoRows) {
				got, err = 0, nil // no row yet: the register's initial 0
			}
		} else {
			_, err = conn.ExecContext(octx, stmt)
		}
		cancel()
		typ := Classify(err, c.cfg.Indeterminate)
		if ctx.Err() != nil && err != nil {
			typ = Unknown // cut short by the run's end
		}
		c.hist.Complete(inv, typ, got, err)
		if typ == Unknown && !read {
			process = int(c.procs.take()) - 1 // the old process may still be pending
			if c.keys != nil {
				c.keys.unknown(inv.Key)
			}
		}
		if err != nil {
			var me *mysql.MySQLError
			if !errors.As(err, &me) { // the connection is suspect: make a new one
				_ = conn.Close()
				conn = nil
			}
			backOff()
		}
	}
	return nil
}

// next makes the client's next operation and its statement.
func (c *client) next(process int) (Op, string, bool) {
	op := Op{Process: process, Workload: c.workload, Node: c.node}
	switch c.workload {
	case WorkloadRegister:
		op.Key = c.keys.pick(c.rng)
		if c.rng.Intn(2) == 0 {
			op.Kind = Read
			return op, fmt.Sprintf("SELECT v FROM %s WHERE id = %d%s", c.table, op.Key, c.readWhere), true
		}
		op.Kind, op.Value = Write, c.keys.newValue()
		return op, fmt.Sprintf("REPLACE INTO %s (id, v) VALUES (%d, %d)", c.table, op.Key, op.Value), false
	default:
		op.Kind = Add
		op.Key = c.ids.take()
		op.Value = op.Key
		return op, fmt.Sprintf("INSERT INTO %s (id, v, body) VALUES (%d, %d, '%s')", c.table, op.Key, op.Value, bodyOf(op.Key)), false
	}
}

// codeNoSuchTable is MySQL's ER_NO_SUCH_TABLE, glintd's answer for a table
// it does not have.
const codeNoSuchTable = 1146

// errNoTable: the node has no such table (its data was wiped, say).
var errNoTable = errors.New("jepsen: the node has no such table")

// readSet reads every id of table on addr, in pages.
func readSet(ctx context.Context, addr, table, option string, timeout time.Duration) ([]int64, error) {
	db, err := openDB(addr, timeout)
	if err != nil {
		return nil, err
	}
	defer func() { _ = db.Close() }()
	var all []int64
	last := int64(0)
	for {
		qctx, cancel := context.WithTimeout(ctx, timeout)
		rows, err := db.QueryContext(qctx, fmt.Sprintf("SELECT id FROM %s WHERE id > %d ORDER BY id ASC LIMIT 1000%s", table, last, option))
		if me := (*mysql.MySQLError)(nil); errors.As(err, &me) && me.Number == codeNoSuchTable {
			cancel()
			return nil, errNoTable
		}
		if err != nil {
			cancel()
			return nil, err
		}
		n := 0
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				cancel()
				return nil, err
			}
			if id <= last {
				rows.Close()
				cancel()
				return nil, fmt.Errorf("jepsen: %s: ids out of order in the final read (%d after %d)", table, id, last)
			}
			all = append(all, id)
			last = id
			n++
		}
		err = rows.Err()
		rows.Close()
		cancel()
		if err != nil {
			return nil, err
		}
		if n < 1000 {
			return all, nil
		}
	}
}

// quietLogger drops the driver's log lines.
type quietLogger struct{}

func (quietLogger) Print(...any) {}
