package jepsen

import (
	"fmt"
	"sort"
)

// Workload names, as Op.Workload and Config.Workloads give them.
const (
	WorkloadRegister = "register"
	WorkloadSet      = "set"
)

// SetResult is the set checker's verdict: what the adds' outcomes promised
// against what the final read of one node found.
type SetResult struct {
	Node             int
	Acknowledged     int     // adds that returned Ok
	Failed           int     // adds that returned Fail
	UnknownAdds      int     // adds that returned Unknown
	Read             int     // ids the final read found
	Lost             []int64 // acknowledged, and missing: a violation
	Unexpected       []int64 // found, but never added or added and failed: a violation
	RecoveredUnknown int     // Unknown adds that turned out to have happened
	NoTable          bool    // the node had no such table at all (read as empty)
}

// OK reports whether nothing was lost and nothing unexpected appeared.
func (r SetResult) OK() bool { return len(r.Lost) == 0 && len(r.Unexpected) == 0 }

func (r SetResult) String() string {
	gone := ""
	if r.NoTable {
		gone = " (the table is gone)"
	}
	return fmt.Sprintf("node %d%s: %d acknowledged, %d failed, %d unknown; read %d: %d lost %v, %d unexpected %v, %d unknown recovered",
		r.Node, gone, r.Acknowledged, r.Failed, r.UnknownAdds, r.Read, len(r.Lost), trimIDs(r.Lost), len(r.Unexpected), trimIDs(r.Unexpected), r.RecoveredUnknown)
}

// CheckSet checks the set workload's adds in ops against final, the ids one
// node holds at the end: every acknowledged id must be there, and every id
// there must have been added by an operation that did not fail.
func CheckSet(ops []Op, node int, final []int64) (SetResult, error) {
	pairs, err := Pairs(ops)
	if err != nil {
		return SetResult{}, err
	}
	res := SetResult{Node: node, Read: len(final)}
	outcome := map[int64]Type{}
	for _, p := range pairs {
		if p.Invoke.Workload != WorkloadSet {
			continue
		}
		if p.Invoke.Kind != Add {
			return SetResult{}, fmt.Errorf("jepsen: set operation %d has kind %q", p.Invoke.Index, p.Invoke.Kind)
		}
		if _, dup := outcome[p.Invoke.Key]; dup {
			return SetResult{}, fmt.Errorf("jepsen: set id %d added twice: the workload's ids must be unique", p.Invoke.Key)
		}
		outcome[p.Invoke.Key] = p.Complete.Type
		switch p.Complete.Type {
		case Ok:
			res.Acknowledged++
		case Fail:
			res.Failed++
		default:
			res.UnknownAdds++
		}
	}
	found := make(map[int64]bool, len(final))
	for _, id := range final {
		if found[id] {
			return SetResult{}, fmt.Errorf("jepsen: the final read of node %d returned id %d twice", node, id)
		}
		found[id] = true
		switch outcome[id] {
		case Ok:
		case Unknown:
			res.RecoveredUnknown++
		default: // failed, or never added
			res.Unexpected = append(res.Unexpected, id)
		}
	}
	for id, typ := range outcome {
		if typ == Ok && !found[id] {
			res.Lost = append(res.Lost, id)
		}
	}
	sort.Slice(res.Lost, func(i, j int) bool { return res.Lost[i] < res.Lost[j] })
	sort.Slice(res.Unexpected, func(i, j int) bool { return res.Unexpected[i] < res.Unexpected[j] })
	return res, nil
}

// trimIDs keeps a report's lists of ids short.
func trimIDs(ids []int64) string {
	if len(ids) <= 10 {
		return fmt.Sprint(ids)
	}
	return fmt.Sprintf("%v...", ids[:10])
}
