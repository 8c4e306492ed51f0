package checker

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/sim"
)

// Evidence for P3: which operation breaks a partition, and porcupine's
// visualisation with the faults as annotations.

// evidenceOpsMax bounds how many linearised operations a violation lists.
const evidenceOpsMax = 3

// explain records one violation per partition that porcupine could not
// linearise.
func (l *linHistory) explain(v *verdict, info porcupine.LinearizationInfo) {
	partials := info.PartialLinearizations()
	if len(partials) != len(l.parts) {
		panic(fmt.Sprintf("checker: P3 partitions-match: porcupine checked %d partitions, the checker made %d",
			len(partials), len(l.parts)))
	}
	found := false
	for p, part := range l.parts {
		if best := longestPartial(partials[p]); len(best) < len(part) {
			l.violation(v, part, best)
			found = true
		}
	}
	if !found {
		v.violate(l.h.End, "porcupine found the history not linearizable but linearised every partition in full")
	}
}

// longestPartial returns the longest of a partition's partial
// linearisations; among equals, the first in lexicographic order, so that
// evidence is the same on every run.
func longestPartial(partials [][]int) []int {
	var best []int
	for _, p := range partials {
		if len(p) > len(best) || (len(p) == len(best) && slices.Compare(p, best) < 0) {
			best = p
		}
	}
	return best
}

// violation records why part cannot be linearised. porcupine's longest
// prefix says how far an order got; the operation blamed is the first one
// outside it in the order the server processed them, judged in the state
// that the prefix reached before that point. If that operation is legal
// there (the prefix took a wrong turn elsewhere), the blame falls on the
// operation that had to come next after the whole prefix: the one outside
// it that returned first.
func (l *linHistory) violation(v *verdict, part []porcupine.Operation, best []int) {
	done := make([]bool, len(part))
	for _, id := range best {
		done[id] = true
	}
	first, next := -1, -1
	for i, op := range part {
		if done[i] {
			continue
		}
		if first < 0 || l.processedFirst(op, part[first]) {
			first = i
		}
		if next < 0 || returnsFirst(op, part[next]) {
			next = i
		}
	}
	prefix := best
	for k, id := range best {
		if !l.processedFirst(part[id], part[first]) {
			prefix = best[:k]
			break
		}
	}
	blamed, state, why := l.judge(part, prefix, first)
	if why == "" {
		prefix = best
		blamed, state, why = l.judge(part, prefix, next)
	}
	if why == "" {
		why = "it is legal here, but no order of the operations concurrent with it completes the history"
	}
	in, out := blamed.Input.(lease.Message), blamed.Output.(lease.Message)
	which := "lease store"
	if isRegisterOp(in.Kind) {
		which = "fenced resource"
	}
	detail := fmt.Sprintf("%s %q: %s cannot be linearised: %s", which, in.Resource, l.model.DescribeOperation(in, out), why)
	evidence := []string{describeOp(&l.h.Ops[blamed.Metadata.(int)]), "state before it: " + l.model.DescribeState(state),
		fmt.Sprintf("linearised %d of the resource's %d operations before it; the longest order found has %d",
			len(prefix), len(part), len(best))}
	for _, id := range prefix[max(0, len(prefix)-evidenceOpsMax):] {
		evidence = append(evidence, "after: "+describeOp(&l.h.Ops[part[id].Metadata.(int)]))
	}
	v.violate(l.opTime(blamed), detail, evidence...)
}

// judge replays prefix, a legal order of some of part's operations, and
// says why part[i] cannot follow it ("" if it can).
func (l *linHistory) judge(part []porcupine.Operation, prefix []int, i int) (porcupine.Operation, any, string) {
	state := l.model.Init()
	for _, id := range prefix {
		var legal bool
		legal, state = l.model.Step(state, part[id].Input, part[id].Output)
		if !legal {
			panic(fmt.Sprintf("checker: P3 partial-linearisation-replays: op %d of porcupine's prefix is illegal", id))
		}
	}
	op := part[i]
	in, out := op.Input.(lease.Message), op.Output.(lease.Message)
	return op, state, model.Explain(l.h.Config, l.inner(state, in.Kind), in, out)
}

// processedFirst orders operations as their server processed them: by
// time, then in the order recorded, which is the order of the replies.
func (l *linHistory) processedFirst(a, b porcupine.Operation) bool {
	return cmp.Or(cmp.Compare(l.opTime(a), l.opTime(b)), cmp.Compare(a.Metadata.(int), b.Metadata.(int))) < 0
}

// returnsFirst orders operations by return, then call, then recording.
func returnsFirst(a, b porcupine.Operation) bool {
	return cmp.Or(cmp.Compare(a.Return, b.Return), cmp.Compare(a.Call, b.Call),
		cmp.Compare(a.Metadata.(int), b.Metadata.(int))) < 0
}

// inner returns the model's own state inside a routed state, the initial
// one before the partition's first step.
func (l *linHistory) inner(state any, k lease.Kind) any {
	if s := state.(routedState); s.state != nil {
		return s.state
	}
	if isRegisterOp(k) {
		return model.FencedRegister().Init()
	}
	return model.LeaseStore(l.h.Config).Init()
}

// visualize writes porcupine's visualisation, with the faults as
// annotations, to dir/linearizability.html and returns its path.
func (l *linHistory) visualize(info porcupine.LinearizationInfo, dir string) (string, error) {
	info.AddAnnotations(l.annotations())
	path := filepath.Join(dir, "linearizability.html")
	if err := writeVisualization(l.model, info, path); err != nil {
		return "", fmt.Errorf("linearizability.html not written: %w", err)
	}
	return path, nil
}

func writeVisualization(m porcupine.Model, info porcupine.LinearizationInfo, path string) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating its folder: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("creating it: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing it: %w", cerr)
		}
	}()
	if err := porcupine.Visualize(m, info, f); err != nil {
		return fmt.Errorf("rendering it: %w", err)
	}
	return nil
}

// annotations are the run's faults, one row per node, and the heal phase
// and the end of the run, after which no reply returned.
func (l *linHistory) annotations() []porcupine.Annotation {
	out := make([]porcupine.Annotation, 0, len(l.h.Faults)+2)
	for _, w := range l.h.Faults {
		out = append(out, porcupine.Annotation{Tag: "fault " + cmp.Or(w.Node, "network"),
			Start: int64(w.Start), End: int64(w.End), Description: faultLabel(w), Details: faultDetails(w),
			BackgroundColor: faultColor(w.Kind)})
	}
	if l.h.HealAt > 0 {
		out = append(out, porcupine.Annotation{Tag: "harness", Start: int64(l.h.HealAt), Description: "heal",
			Details: fmt.Sprintf("the fault phase ended at %v", l.h.HealAt)})
	}
	out = append(out, porcupine.Annotation{Tag: "harness", Start: int64(l.h.End), Description: "end",
		Details: fmt.Sprintf("the run ended at %v; operations still open then never returned", l.h.End)})
	return out
}

func faultLabel(w faults.Window) string {
	if w.Peer != "" {
		return fmt.Sprintf("%v → %s", w.Kind, w.Peer)
	}
	return w.Kind.String()
}

func faultDetails(w faults.Window) string {
	s := fmt.Sprintf("%v %s from %v to %v", w.Kind, cmp.Or(w.Node, "network"), w.Start, w.End)
	if w.Peer != "" {
		s += ", peer " + w.Peer
	}
	if w.Detail != "" {
		s += ": " + w.Detail
	}
	return s
}

// faultColor shades faults by family: processes, network, clocks.
func faultColor(k sim.FaultKind) string {
	switch k {
	case sim.FaultPause, sim.FaultCrash, sim.FaultFailpointHit:
		return "#ff9191"
	case sim.FaultPartition, sim.FaultPartitionOneWay, sim.FaultIsolate, sim.FaultSplit, sim.FaultBridge, sim.FaultLink:
		return "#efaefc"
	case sim.FaultDrift, sim.FaultStep:
		return "#aee1fc"
	}
	return "#dddddd"
}
