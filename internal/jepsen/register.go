package jepsen

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/anishathalye/porcupine"
)

// registerInput is a register operation as the model sees it.
type registerInput struct {
	Key   int64
	Write bool
	Value int64 // the value written; for a read, what it returned
}

// registerModel is one integer register per key, 0 before the first write (a
// read of a missing row returns 0). It is partitioned by key: the history is
// linearizable if and only if each key's is.
var registerModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[int64][]porcupine.Operation{}
		var keys []int64
		for _, op := range history {
			k := op.Input.(registerInput).Key
			if _, seen := byKey[k]; !seen {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		parts := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, byKey[k])
		}
		return parts
	},
	Init: func() any { return int64(0) },
	Step: func(state, input, _ any) (bool, any) {
		in := input.(registerInput)
		if in.Write {
			return true, in.Value
		}
		return in.Value == state.(int64), state
	},
	DescribeOperation: func(input, _ any) string {
		in := input.(registerInput)
		if in.Write {
			return fmt.Sprintf("write(%d, %d)", in.Key, in.Value)
		}
		return fmt.Sprintf("read(%d) -> %d", in.Key, in.Value)
	},
	DescribeState: func(state any) string { return fmt.Sprint(state.(int64)) },
}

// RegisterResult is the register checker's verdict on one history.
type RegisterResult struct {
	Reads, Writes    int // operations given to porcupine (Ok reads; Ok and Unknown writes)
	UnknownWrites    int // of Writes, those that may or may not have happened
	Keys             int
	Linearizable     bool
	Inconclusive     bool   // porcupine ran out of time: neither a pass nor a violation
	FailedKey        int64  // with !Linearizable: the first key whose history is not
	Explanation      string // with !Linearizable: that key's operations, for the report
	info             porcupine.LinearizationInfo
	hasVisualization bool
}

// CheckRegister checks the register workload's entries of ops for
// linearizability with porcupine, one partition per key. An Ok write took
// effect between its invoke and its completion; an Unknown write took effect
// at some point after its invoke or never (its completion is put after the
// history's end); a Fail write did not happen and is left out, as are reads
// that did not return (they changed nothing). timeout bounds porcupine's
// search (0: none); running out of it is Inconclusive, not a pass.
func CheckRegister(ops []Op, timeout time.Duration) (RegisterResult, error) {
	pairs, err := Pairs(ops)
	if err != nil {
		return RegisterResult{}, err
	}
	var end int64
	for _, op := range ops {
		end = max(end, op.Time)
	}
	var res RegisterResult
	var history []porcupine.Operation
	keys := map[int64]bool{}
	for _, p := range pairs {
		inv, c := p.Invoke, p.Complete
		if inv.Workload != WorkloadRegister {
			continue
		}
		op := porcupine.Operation{ClientId: inv.Process, Call: inv.Time, Return: c.Time}
		switch {
		case inv.Kind == Write && c.Type == Ok:
			res.Writes++
		case inv.Kind == Write && c.Type == Unknown:
			res.Writes++
			res.UnknownWrites++
			op.Return = end + 1
		case inv.Kind == Read && c.Type == Ok:
			res.Reads++
		case inv.Kind == Read || inv.Kind == Write:
			continue
		default:
			return RegisterResult{}, fmt.Errorf("jepsen: register operation %d has kind %q", inv.Index, inv.Kind)
		}
		in := registerInput{Key: inv.Key, Write: inv.Kind == Write, Value: inv.Value}
		if !in.Write {
			in.Value = c.Value
		}
		op.Input = in
		keys[inv.Key] = true
		history = append(history, op)
	}
	res.Keys = len(keys)
	result, info := porcupine.CheckOperationsVerbose(registerModel, history, timeout)
	res.info, res.hasVisualization = info, true
	switch result {
	case porcupine.Ok:
		res.Linearizable = true
	case porcupine.Unknown:
		res.Inconclusive = true
	case porcupine.Illegal:
		res.FailedKey, res.Explanation = explainRegister(history)
	}
	return res, nil
}

// explainRegister finds the first key whose own history is not linearizable
// and lists its operations in call order.
func explainRegister(history []porcupine.Operation) (int64, string) {
	for _, part := range registerModel.Partition(history) {
		single := registerModel
		single.Partition = nil
		if porcupine.CheckOperations(single, part) {
			continue
		}
		sort.SliceStable(part, func(i, j int) bool { return part[i].Call < part[j].Call })
		key := part[0].Input.(registerInput).Key
		s := fmt.Sprintf("key %d is not linearizable; its operations (process, call ms, return ms):\n", key)
		for _, op := range part {
			s += fmt.Sprintf("  p%d [%.3f, %.3f] %s\n", op.ClientId, float64(op.Call)/1e6, float64(op.Return)/1e6,
				registerModel.DescribeOperation(op.Input, op.Output))
		}
		return key, s
	}
	return 0, "porcupine found the history not linearizable, but no single key alone"
}

// Visualize writes porcupine's HTML view of the checked history: the
// linearization found, or for a violation the longest partial ones and the
// operation that could not be placed.
func (r RegisterResult) Visualize(w io.Writer) error {
	if !r.hasVisualization {
		return fmt.Errorf("jepsen: no register check to visualize")
	}
	return porcupine.Visualize(registerModel, r.info, w)
}
