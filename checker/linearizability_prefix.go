package checker

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/model"
)

// Prefix is the evidence porcupine users ask for when a history is not
// linearizable (anishathalye/porcupine#21): the longest linearizable
// prefix porcupine found, in the order it placed the operations, and the
// operations that could come next in real time, none of which the
// specification lets follow it, each with why.
type Prefix struct {
	// Ops are the prefix's operations, as the specification describes
	// them, in linearization order; Index their positions in the history.
	Ops   []string
	Index []int
	// State is the specification's state after the prefix.
	State string
	// Blocked are the operations that real time allows next, each with the
	// specification's reason for refusing it after the prefix.
	Blocked []string
}

// LongestPrefix returns the longest linearizable prefix of the partition
// porcupine could not linearize, and what cannot follow it, from the
// LinearizationInfo of porcupine.CheckOperationsVerbose(spec.Model, ops,
// ...). ok is false when every partition is linearizable.
func LongestPrefix(spec model.Spec, ops []porcupine.Operation, info porcupine.LinearizationInfo) (Prefix, bool) {
	parts := info.PartialLinearizations()
	var partOps [][]porcupine.Operation
	if spec.Model.Partition != nil {
		partOps = spec.Model.Partition(ops)
	} else {
		partOps = [][]porcupine.Operation{ops}
	}
	for p, lins := range parts {
		if p >= len(partOps) {
			break
		}
		part := partOps[p]
		var best []int
		for _, l := range lins {
			if len(l) > len(best) {
				best = l
			}
		}
		if len(best) == len(part) {
			continue // this partition is linearizable
		}
		return prefixOf(spec, ops, part, best), true
	}
	return Prefix{}, false
}

// prefixOf replays lin (indices into part) and finds what cannot follow.
func prefixOf(spec model.Spec, ops, part []porcupine.Operation, lin []int) Prefix {
	m := spec.Model
	state := m.Init()
	done := make([]bool, len(part))
	var p Prefix
	for _, i := range lin {
		op := part[i]
		_, state = m.Step(state, op.Input, op.Output)
		done[i] = true
		p.Ops = append(p.Ops, m.DescribeOperation(op.Input, op.Output))
		p.Index = append(p.Index, indexIn(ops, op))
	}
	if m.DescribeState != nil {
		p.State = m.DescribeState(state)
	}
	for j, op := range part {
		if done[j] || !nextInRealTime(part, done, j) {
			continue
		}
		why := ""
		if spec.Explain != nil {
			why = spec.Explain(state, op.Input, op.Output)
		}
		if why == "" {
			why = "legal here, but no order of the rest completes the history"
		}
		p.Blocked = append(p.Blocked, fmt.Sprintf("#%d %s: %s", indexIn(ops, op), m.DescribeOperation(op.Input, op.Output), why))
	}
	return p
}

// nextInRealTime reports whether no operation left returned before
// part[j] was called.
func nextInRealTime(part []porcupine.Operation, done []bool, j int) bool {
	for i, op := range part {
		if !done[i] && i != j && op.Return < part[j].Call {
			return false
		}
	}
	return true
}

// indexIn is op's position in ops (operations are compared by call, client
// and return, which identify one in a history).
func indexIn(ops []porcupine.Operation, op porcupine.Operation) int {
	for i, o := range ops {
		if o.Call == op.Call && o.ClientId == op.ClientId && o.Return == op.Return {
			return i
		}
	}
	return -1
}

// String prints the prefix's last few operations and what cannot follow.
func (p Prefix) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the longest linearizable prefix has %d operations", len(p.Ops))
	const shown = 5
	from := max(0, len(p.Ops)-shown)
	if from > 0 {
		fmt.Fprintf(&b, " (the last %d shown)", shown)
	}
	b.WriteString(":\n")
	for k := from; k < len(p.Ops); k++ {
		fmt.Fprintf(&b, "  #%d %s\n", p.Index[k], p.Ops[k])
	}
	if p.State != "" {
		fmt.Fprintf(&b, "state after it: %s\n", p.State)
	}
	b.WriteString("none of these can follow it:\n")
	for _, s := range p.Blocked {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	return b.String()
}

// prefixEvidence says what porcupine's longest linearizable prefix of part
// (best, in its order) is and which operations cannot follow it: those
// real time allows next, each with why the specification refuses it after
// the prefix (anishathalye/porcupine#21).
func (l *linHistory) prefixEvidence(part []porcupine.Operation, best []int) []string {
	out := []string{fmt.Sprintf("porcupine's longest linearizable prefix: %d of the resource's %d operations", len(best),
		len(part))}
	for _, id := range best[max(0, len(best)-evidenceOpsMax):] {
		out = append(out, "prefix: "+describeOp(inputOf(part[id].Input)))
	}
	state := l.replay(part, best)
	out = append(out, "state after the prefix: "+grantorClock(l.model.DescribeState(state)))
	done := make([]bool, len(part))
	for _, id := range best {
		done[id] = true
	}
	for j, op := range part {
		if done[j] || !nextInRealTime(part, done, j) {
			continue
		}
		why := cmp.Or(l.explainStep(state, op), "legal here, but no order of the rest completes the history")
		out = append(out, "cannot follow the prefix: "+describeOp(inputOf(op.Input))+": "+grantorClock(why))
	}
	return out
}
