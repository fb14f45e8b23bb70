package jepsen

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hist builds a history by hand: each step is an invoke or a completion at
// the given time in milliseconds, so the tests decide what overlaps.
type hist struct{ ops []Op }

func (h *hist) invoke(index, process int, workload string, kind Kind, key, value, at int64) {
	h.ops = append(h.ops, Op{Index: index, Process: process, Type: Invoke, Kind: kind, Workload: workload, Key: key, Value: value, Time: at * 1e6})
}

func (h *hist) complete(index int, typ Type, value, at int64) {
	for _, op := range h.ops {
		if op.Index == index && op.Type == Invoke {
			op.Type, op.Time = typ, at*1e6
			if op.Kind == Read {
				op.Value = value
			}
			h.ops = append(h.ops, op)
			return
		}
	}
	panic("no invoke")
}

func (h *hist) write(index, process int, key, value, from, to int64, typ Type) {
	h.invoke(index, process, WorkloadRegister, Write, key, value, from)
	h.complete(index, typ, 0, to)
}

func (h *hist) read(index, process int, key, got, from, to int64) {
	h.invoke(index, process, WorkloadRegister, Read, key, 0, from)
	h.complete(index, Ok, got, to)
}

func TestRegisterLinearizable(t *testing.T) {
	var h hist
	h.read(0, 0, 1, 0, 0, 10)       // nothing written yet
	h.write(1, 0, 1, 5, 20, 30, Ok) // 5
	h.read(2, 1, 1, 5, 40, 50)
	h.write(3, 0, 1, 6, 60, 100, Ok)
	h.read(4, 1, 1, 5, 70, 80) // concurrent with the write of 6: either is fine
	h.read(5, 1, 1, 6, 90, 95)
	h.write(6, 0, 2, 9, 0, 5, Ok) // another key
	h.read(7, 1, 2, 9, 6, 7)
	res, err := CheckRegister(h.ops, 0)
	require.NoError(t, err)
	assert.True(t, res.Linearizable)
	assert.Equal(t, 2, res.Keys)
	assert.Equal(t, 5, res.Reads)
	assert.Equal(t, 3, res.Writes)
	var html bytes.Buffer
	require.NoError(t, res.Visualize(&html))
	assert.Contains(t, html.String(), "<html")
}

// TestRegisterCatchesStaleRead: a read after a write was acknowledged that
// returns the old value is a violation, and the explanation names the key.
func TestRegisterCatchesStaleRead(t *testing.T) {
	var h hist
	h.write(0, 0, 3, 1, 0, 10, Ok)
	h.write(1, 0, 3, 2, 20, 30, Ok)
	h.read(2, 1, 3, 1, 40, 50) // stale: 2 was acknowledged at 30
	h.write(3, 0, 4, 7, 0, 10, Ok)
	h.read(4, 1, 4, 7, 40, 50)
	res, err := CheckRegister(h.ops, 0)
	require.NoError(t, err)
	assert.False(t, res.Linearizable)
	assert.False(t, res.Inconclusive)
	assert.Equal(t, int64(3), res.FailedKey)
	assert.Equal(t, "key 3 is not linearizable; its operations (process, call ms, return ms):\n"+
		"  p0 [0.000, 10.000] write(3, 1)\n"+
		"  p0 [20.000, 30.000] write(3, 2)\n"+
		"  p1 [40.000, 50.000] read(3) -> 1\n", res.Explanation)
	var html bytes.Buffer
	require.NoError(t, res.Visualize(&html))
	assert.Contains(t, html.String(), "<html")
}

// TestRegisterCatchesLostWrite: an acknowledged write that a later read does
// not see, with no other write after it, is a lost write.
func TestRegisterCatchesLostWrite(t *testing.T) {
	var h hist
	h.write(0, 0, 1, 4, 0, 10, Ok)
	h.read(1, 1, 1, 0, 20, 30) // the row is gone (say, after a kill -9)
	res, err := CheckRegister(h.ops, 0)
	require.NoError(t, err)
	assert.False(t, res.Linearizable)
}

// TestRegisterUnknownAndFailedWrites: an Unknown write may show up at any
// time after its invoke (even after a kill and restart), or never; a Fail
// write must never show up.
func TestRegisterUnknownAndFailedWrites(t *testing.T) {
	var h hist
	h.write(0, 0, 1, 4, 0, 10, Unknown)
	h.read(1, 1, 1, 0, 20, 30) // not yet
	h.read(2, 1, 1, 4, 40, 50) // now it has happened
	res, err := CheckRegister(h.ops, 0)
	require.NoError(t, err)
	assert.True(t, res.Linearizable)
	assert.Equal(t, 1, res.UnknownWrites)

	var never hist
	never.write(0, 0, 1, 4, 0, 10, Unknown)
	never.read(1, 1, 1, 0, 20, 30)
	res, err = CheckRegister(never.ops, 0)
	require.NoError(t, err)
	assert.True(t, res.Linearizable, "an unknown write may never happen")

	var failed hist
	failed.write(0, 0, 1, 4, 0, 10, Fail)
	failed.read(1, 1, 1, 4, 20, 30)
	res, err = CheckRegister(failed.ops, 0)
	require.NoError(t, err)
	assert.False(t, res.Linearizable, "a failed write was seen")

	// an Unknown write cannot go back in time: a read before its invoke
	// cannot see it
	var early hist
	early.read(0, 1, 1, 4, 0, 10)
	early.write(1, 0, 1, 4, 20, 30, Unknown)
	res, err = CheckRegister(early.ops, 0)
	require.NoError(t, err)
	assert.False(t, res.Linearizable)
}

func TestSetChecker(t *testing.T) {
	var h hist
	add := func(index int, id int64, typ Type) {
		h.invoke(index, 0, WorkloadSet, Add, id, id, int64(index*10))
		h.complete(index, typ, 0, int64(index*10+5))
	}
	add(0, 1, Ok)
	add(1, 2, Ok)
	add(2, 3, Unknown)
	add(3, 4, Unknown)
	add(4, 5, Fail)
	add(5, 6, Ok)

	res, err := CheckSet(h.ops, 0, []int64{1, 2, 3, 6})
	require.NoError(t, err)
	assert.True(t, res.OK(), res.String())
	assert.Equal(t, SetResult{Node: 0, Acknowledged: 3, Failed: 1, UnknownAdds: 2, Read: 4, RecoveredUnknown: 1}, res)

	// a lost acknowledged add, a failed one that appeared and one never added
	res, err = CheckSet(h.ops, 2, []int64{1, 3, 5, 6, 99})
	require.NoError(t, err)
	assert.False(t, res.OK())
	assert.Equal(t, []int64{2}, res.Lost)
	assert.Equal(t, []int64{5, 99}, res.Unexpected)
	assert.Equal(t, "node 2: 3 acknowledged, 1 failed, 2 unknown; read 5: 1 lost [2], 2 unexpected [5 99], 1 unknown recovered", res.String())

	_, err = CheckSet(h.ops, 0, []int64{1, 1})
	assert.ErrorContains(t, err, "returned id 1 twice")
	add(6, 1, Ok)
	_, err = CheckSet(h.ops, 0, nil)
	assert.ErrorContains(t, err, "set id 1 added twice")
}

func TestPairsAndJSONL(t *testing.T) {
	h := NewHistory()
	inv := h.Invoke(Op{Process: 3, Kind: Write, Workload: WorkloadRegister, Key: 1, Value: 7})
	h.Note(NemesisStart, "kill", 0, "")
	pending := h.Invoke(Op{Process: 4, Kind: Read, Workload: WorkloadRegister, Key: 1})
	h.Complete(inv, Ok, 0, nil)
	ops := h.Ops()
	require.Len(t, ops, 4)

	var b bytes.Buffer
	require.NoError(t, WriteJSONL(&b, ops))
	assert.Equal(t, 4, strings.Count(b.String(), "\n"))
	back, err := ReadJSONL(&b)
	require.NoError(t, err)
	assert.Equal(t, ops, back)

	pairs, err := Pairs(back)
	require.NoError(t, err)
	require.Len(t, pairs, 2)
	assert.Equal(t, Ok, pairs[0].Complete.Type)
	assert.Equal(t, pending.Index, pairs[1].Invoke.Index)
	assert.Equal(t, Unknown, pairs[1].Complete.Type, "an operation still in flight at the end is unknown")

	_, err = Pairs([]Op{{Index: 9, Type: Ok}})
	assert.ErrorContains(t, err, "operation 9 completed (ok) but never invoked")
	_, err = ReadJSONL(strings.NewReader("{\"index\": 1}\n{\"bogus\": 2}\n"))
	assert.ErrorContains(t, err, "history line 2")
}

// TestCheckWholeHistory: Check reads the final reads from the history, so a
// saved history is checked again to the same verdict.
func TestCheckWholeHistory(t *testing.T) {
	h := NewHistory()
	w := h.Invoke(Op{Process: 0, Kind: Write, Workload: WorkloadRegister, Key: 1, Value: 3})
	h.Complete(w, Ok, 0, nil)
	r := h.Invoke(Op{Process: 1, Kind: Read, Workload: WorkloadRegister, Key: 1})
	h.Complete(r, Ok, 3, nil)
	h.Note(NemesisStart, NemesisKill, 0, "killed -9")
	h.Note(NemesisStop, NemesisKill, 0, "started")
	for id := int64(1); id <= 3; id++ {
		a := h.Invoke(Op{Process: 2, Kind: Add, Workload: WorkloadSet, Key: id, Value: id})
		h.Complete(a, Ok, 0, nil)
	}
	h.FinalRead(0, []int64{1, 2, 3}, false)
	h.FinalRead(1, []int64{1, 3}, false)
	h.FinalRead(2, nil, true)

	var b bytes.Buffer
	require.NoError(t, WriteJSONL(&b, h.Ops()))
	ops, err := ReadJSONL(&b)
	require.NoError(t, err)
	res, err := Check(ops, 0)
	require.NoError(t, err)
	assert.Equal(t, 5, res.Ops)
	assert.Equal(t, 5, res.Ok)
	assert.Equal(t, map[string]int{NemesisKill: 1}, res.Faults)
	assert.Len(t, res.Failovers, 1, "the adds after the kill")
	assert.Len(t, res.Restarts, 1)
	require.NotNil(t, res.Register)
	assert.True(t, res.Register.Linearizable)
	require.Len(t, res.Sets, 3)
	assert.True(t, res.Sets[0].OK())
	assert.Equal(t, []int64{2}, res.Sets[1].Lost)
	assert.True(t, res.Sets[2].NoTable)
	assert.Equal(t, []int64{1, 2, 3}, res.Sets[2].Lost)
	assert.Equal(t, []string{
		"set: node 1: 3 acknowledged, 0 failed, 0 unknown; read 2: 1 lost [2], 0 unexpected [], 0 unknown recovered",
		"set: node 2 (the table is gone): 3 acknowledged, 0 failed, 0 unknown; read 0: 3 lost [1 2 3], 0 unexpected [], 0 unknown recovered",
	}, res.Violations)
}

// TestConvergeDifference: the convergence check's report names the first
// row where two nodes' answers part, and how many rows each gave.
func TestConvergeDifference(t *testing.T) {
	got := difference("Q", "1\ta\n2\tb\n", "1\ta\n2\tc\n3\td\n", 2)
	assert.Equal(t, `node 2 answers Q unlike node 0 (3 rows against 2); first at row 2: node 0 "2\tb", node 2 "2\tc"`, got)
	got = difference("Q", "1\ta\n2\tb\n", "1\ta\n", 1)
	assert.Equal(t, `node 1 answers Q unlike node 0 (1 rows against 2); first at row 2: node 0 "2\tb", node 1 (no row)`, got)
	assert.Equal(t, bodyOf(42), bodyOf(42), "a row's body is the same on every run")
	assert.NotEqual(t, bodyOf(42), bodyOf(43))
	for _, w := range strings.Fields(bodyOf(7)) {
		assert.Contains(t, vocab, w)
	}
}
