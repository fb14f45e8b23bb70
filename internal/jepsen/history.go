package jepsen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// Type is what became of an operation, as Jepsen names it.
type Type string

// An operation's history entries: one Invoke, then one of Ok, Fail or Unknown
// with the same Index. Info entries are the nemesis's (kill, stop, heal...).
const (
	Invoke  Type = "invoke"
	Ok      Type = "ok"      // the server acknowledged it
	Fail    Type = "fail"    // it certainly did not happen (the server said no, or it was never sent)
	Unknown Type = "unknown" // it may or may not have happened: a timeout or a broken connection after sending
	Info    Type = "info"    // a nemesis event, not a client operation
)

// Kind is the operation a client ran.
type Kind string

// Client operations and the nemesis's events.
const (
	Read  Kind = "read"  // register: SELECT v ... WHERE id = Key
	Write Kind = "write" // register: REPLACE INTO (id, v) VALUES (Key, Value)
	Add   Kind = "add"   // set: INSERT INTO (id, v) VALUES (Key, Key)
	// The nemesis's kinds: Value names the node, Error what happened.
	NemesisStart Kind = "nemesis-start"
	NemesisStop  Kind = "nemesis-stop"
	// FinalRead is the set's read of one node (Node) after the run: IDs
	// holds every id it found.
	FinalRead Kind = "final-read"
)

// Op is one entry of a history. Time is nanoseconds since the run started
// (monotonic). Process identifies one client's thread of operations: a client
// whose operation ended Unknown carries on as a new process, since the old one
// may still be pending forever (Jepsen's rule).
type Op struct {
	Index    int     `json:"index"` // pairs an Invoke with its completion
	Process  int     `json:"process"`
	Type     Type    `json:"type"`
	Kind     Kind    `json:"f"`
	Workload string  `json:"workload,omitempty"` // "register", "set", or "" for the nemesis
	Key      int64   `json:"key"`
	Value    int64   `json:"value"`
	Node     int     `json:"node"` // the node the client spoke to, or the nemesis's target
	Time     int64   `json:"time"`
	Error    string  `json:"error,omitempty"`
	Nemesis  string  `json:"nemesis,omitempty"`
	IDs      []int64 `json:"ids,omitempty"` // a FinalRead's ids
}

// History records operations from many goroutines. The zero value is not
// ready: use NewHistory.
type History struct {
	start time.Time
	mu    sync.Mutex
	ops   []Op
	next  int
}

// NewHistory starts a history whose clock reads 0 now.
func NewHistory() *History { return &History{start: time.Now()} }

// Now is the history's clock: nanoseconds since NewHistory.
func (h *History) Now() int64 { return int64(time.Since(h.start)) }

// Invoke records the start of an operation and returns its entry, whose Index
// the completion carries.
func (h *History) Invoke(op Op) Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	op.Index = h.next
	h.next++
	op.Type = Invoke
	op.Time = h.Now()
	h.ops = append(h.ops, op)
	return op
}

// Complete records how the invoked op ended: typ is Ok, Fail or Unknown; value
// is what a read returned (ignored otherwise); err says why it failed.
func (h *History) Complete(inv Op, typ Type, value int64, err error) Op {
	op := inv
	op.Type = typ
	if inv.Kind == Read {
		op.Value = value
	}
	if err != nil {
		op.Error = err.Error()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	op.Time = h.Now()
	h.ops = append(h.ops, op)
	return op
}

// Note records a nemesis event.
func (h *History) Note(kind Kind, nemesis string, node int, detail string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ops = append(h.ops, Op{Index: -1, Process: -1, Type: Info, Kind: kind, Nemesis: nemesis, Node: node, Error: detail, Time: h.Now()})
}

// noTableNote marks a FinalRead of a node that had no such table.
const noTableNote = "no such table"

// FinalRead records what the set's final read of node found; noTable: the
// node had no such table (so it holds none of the ids).
func (h *History) FinalRead(node int, ids []int64, noTable bool) {
	op := Op{Index: -1, Process: -1, Type: Info, Kind: FinalRead, Workload: WorkloadSet, Node: node, IDs: ids}
	if noTable {
		op.Error = noTableNote
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	op.Time = h.Now()
	h.ops = append(h.ops, op)
}

// Ops returns a copy of the entries recorded so far, in the order recorded.
func (h *History) Ops() []Op {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Op(nil), h.ops...)
}

// WriteJSONL writes ops as JSON lines, one entry a line.
func WriteJSONL(w io.Writer, ops []Op) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for _, op := range ops {
		if err := enc.Encode(op); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ReadJSONL reads what WriteJSONL wrote; an unknown field or a malformed line
// is an error naming its line.
func ReadJSONL(r io.Reader) ([]Op, error) {
	var ops []Op
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 256<<20) // a final read's line holds every id
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var op Op
		if err := dec.Decode(&op); err != nil {
			return nil, fmt.Errorf("jepsen: history line %d: %w", line, err)
		}
		ops = append(ops, op)
	}
	return ops, sc.Err()
}

// Pair is an invoked operation with its completion.
type Pair struct {
	Invoke, Complete Op
}

// Pairs matches every client Invoke with its completion, in invocation order.
// An Invoke with no completion (the run stopped while it was in flight) is
// paired with an Unknown at the history's end. An entry that completes an
// index never invoked, or twice, is an error: the history is corrupt.
func Pairs(ops []Op) ([]Pair, error) {
	var end int64
	open := map[int]int{} // index -> position in pairs
	var pairs []Pair
	for _, op := range ops {
		end = max(end, op.Time)
		switch op.Type {
		case Info:
		case Invoke:
			if _, dup := open[op.Index]; dup {
				return nil, fmt.Errorf("jepsen: operation %d invoked twice", op.Index)
			}
			open[op.Index] = len(pairs)
			pairs = append(pairs, Pair{Invoke: op})
		case Ok, Fail, Unknown:
			i, ok := open[op.Index]
			if !ok {
				return nil, fmt.Errorf("jepsen: operation %d completed (%s) but never invoked or completed twice", op.Index, op.Type)
			}
			delete(open, op.Index)
			pairs[i].Complete = op
		default:
			return nil, fmt.Errorf("jepsen: operation %d has unknown type %q", op.Index, op.Type)
		}
	}
	for _, i := range open {
		c := pairs[i].Invoke
		c.Type, c.Time, c.Error = Unknown, end, "no completion recorded"
		pairs[i].Complete = c
	}
	return pairs, nil
}
