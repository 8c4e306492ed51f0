package checker

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// Evidence for P3: which operation breaks a partition, and porcupine's
// visualisation with the faults as annotations.

// evidenceOpsMax bounds how many linearised operations a violation lists.
const evidenceOpsMax = 3

// explain records one violation per partition that porcupine could not
// linearise.
func (l *linHistory) explain(v *verdict, ops []porcupine.Operation, info porcupine.LinearizationInfo) {
	partials := info.PartialLinearizations()
	parts := l.model.Partition(ops) // as porcupine made them: the function is deterministic
	if len(partials) != len(parts) {
		panic(fmt.Sprintf("checker: P3 partitions-match: porcupine checked %d partitions, the checker made %d",
			len(partials), len(parts)))
	}
	found := false
	for p, part := range parts {
		best := longestPartial(partials[p])
		// A partition that is legal in the order the server processed it is
		// linearizable: porcupine's timeout stopped its search after
		// another partition failed.
		if len(best) < len(part) && !l.legalAsProcessed(part) {
			l.violation(v, part, best)
			found = true
		}
	}
	if !found {
		v.dontKnow("porcupine found the history not linearizable, but every resource is legal in the order its " +
			"server processed it: are the recorded times consistent?")
	}
}

// legalAsProcessed reports whether part is legal in the order its server
// processed it. That order lies within the operations' intervals, so if it
// is legal, part is linearizable.
func (l *linHistory) legalAsProcessed(part []porcupine.Operation) bool {
	if len(part) == 0 {
		return true
	}
	// The order is of positions in part: a copy of the operations (72
	// bytes each) would be the largest allocation of checking a large
	// history.
	order := l.scratch[:0]
	for k := range part {
		order = append(order, int32(k))
	}
	l.scratch = order
	slices.SortFunc(order, func(a, b int32) int { return l.compareProcessed(part[a], part[b]) })
	w := l.walker(isRegisterOp(inputOf(part[order[0]].Input).Input.Kind), nil)
	for _, k := range order {
		if !w.step(inputOf(part[k].Input)) {
			return false
		}
	}
	return true
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

// violation records why part cannot be linearised, blaming the first
// operation that breaks it. porcupine's longest order is followed up to the
// first operation it left out in the order the server processed them; from
// there the operations follow in that order, and the first that the
// specification rejects is blamed, with the state it was rejected in. If
// none is (a register's concurrent operations may need another order), the
// blame falls on the operation that had to come next after porcupine's
// whole order: the one outside it that returned first.
func (l *linHistory) violation(v *verdict, part []porcupine.Operation, best []int) {
	order := make([]int, len(part)) // part's operations as processed
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return l.compareProcessed(part[a], part[b]) })
	done := make([]bool, len(part))
	for _, id := range best {
		done[id] = true
	}
	first := slices.IndexFunc(order, func(i int) bool { return !done[i] })
	prefix := best
	for k, id := range best {
		if l.compareProcessed(part[id], part[order[first]]) >= 0 {
			prefix = best[:k]
			break
		}
	}
	state, replayed := l.replay(part, prefix), slices.Clone(prefix)
	inPrefix := make([]bool, len(part))
	for _, id := range prefix {
		inPrefix[id] = true
	}
	blamed, why := -1, ""
	for _, i := range order {
		if inPrefix[i] {
			continue
		}
		if why = l.explainStep(state, part[i]); why != "" {
			blamed = i
			break
		}
		_, state = l.model.Step(state, part[i].Input, part[i].Output)
		replayed = append(replayed, i)
	}
	if blamed < 0 {
		blamed, replayed = l.returnsFirstOutside(part, done), best
		state = l.replay(part, best)
		why = cmp.Or(l.explainStep(state, part[blamed]),
			"it is legal here, but no order of the operations concurrent with it completes the history")
	}
	kept := len(v.violations)
	l.record(v, part[blamed], state, why, fmt.Sprintf(
		"%d of the resource's %d operations linearised before it; porcupine's longest order has %d",
		len(replayed), len(part), len(best)), part, replayed)
	if len(v.violations) > kept { // kept: add porcupine's longest prefix and what cannot follow it
		last := &v.violations[len(v.violations)-1]
		last.Evidence = append(last.Evidence, l.prefixEvidence(part, best)...)
	}
}

// record adds the violation that blames op, rejected in state for why.
// The model's texts give grantor readings as "g=…"; they are relabelled
// "grantor clock …" (grantorClock), and a lease-store violation explains
// what that clock is, so that every bare instant in the evidence is true
// time since the run's start.
func (l *linHistory) record(v *verdict, op porcupine.Operation, state any, why, progress string,
	part []porcupine.Operation, before []int) {
	in := &inputOf(op.Input).Input
	recorded := inputOf(op.Input)
	which := "lease store"
	if isRegisterOp(in.Kind) {
		which = "fenced resource"
	}
	if in.Resource == "" && in.Key != "" { // a spec of keys, not resources (an expiring key, a record)
		which += " key"
	}
	detail := fmt.Sprintf("%s %q: %s cannot be linearised: %s", which, target(in),
		grantorClock(l.model.DescribeOperation(op.Input, op.Output)), grantorClock(why))
	evidence := []string{describeOp(recorded), "state before it: " + grantorClock(l.model.DescribeState(state)),
		grantorClock(progress)}
	for _, id := range before[max(0, len(before)-evidenceOpsMax):] {
		evidence = append(evidence, "after: "+describeOp(inputOf(part[id].Input)))
	}
	if !isRegisterOp(in.Kind) {
		evidence = append(evidence, grantorClockNote(recorded))
	}
	at := l.opTime(op)
	v.violateInvolving([]string{recorded.Client, recorded.Server}, at, at, at, detail, evidence...)
}

// grantorReading matches a grantor clock reading in the model's texts:
// "g=58m15.074755937s", "@g=3s", or the "until 58m13.9s" of a lease's
// expiry, which is a grantor reading too.
var grantorReading = regexp.MustCompile(`(@?g=|until )((?:[0-9]+(?:\.[0-9]+)?(?:ms|µs|us|ns|h|m|s))+)`)

// grantorClock relabels the grantor readings in a model's text as
// "grantor clock 58m15.074756s" (to the microsecond), so that no reading
// of the grantor's clock passes for true time.
func grantorClock(text string) string {
	return grantorReading.ReplaceAllStringFunc(text, func(m string) string {
		sub := grantorReading.FindStringSubmatch(m)
		d, err := time.ParseDuration(sub[2])
		if err != nil {
			return m // not a duration after all: leave the text as it was
		}
		label := "grantor clock "
		switch sub[1] {
		case "@g=":
			label = "at grantor clock "
		case "until ":
			label = "until grantor clock "
		}
		return label + formatReading(d)
	})
}

// formatReading formats a grantor clock reading to the microsecond.
func formatReading(d time.Duration) string { return d.Round(time.Microsecond).String() }

// grantorClockNote says what the grantor clock is, anchored on op: the
// specification orders a resource's lease-store operations by these
// readings, which is why they appear in the evidence at all.
func grantorClockNote(op *history.Operation) string {
	return fmt.Sprintf("grantor clock: the reading of the grantor's monotonic clock that its reply carries, by "+
		"which the specification orders lease-store operations and measures expiry; it counts from an arbitrary "+
		"origin (as a real machine's uptime does), so only differences between readings mean anything. The "+
		"grantor processed this operation at true time %s, when its clock read %s",
		FormatTime(op.Processed), formatReading(op.Output.Clock))
}

// replay returns the state after order, a legal order of some of part's
// operations.
func (l *linHistory) replay(part []porcupine.Operation, order []int) any {
	state := l.model.Init()
	for _, id := range order {
		var legal bool
		legal, state = l.model.Step(state, part[id].Input, part[id].Output)
		if !legal {
			panic(fmt.Sprintf("checker: P3 partial-linearisation-replays: op %d of porcupine's order is illegal", id))
		}
	}
	return state
}

// explainStep says why op cannot follow state, "" if it can.
func (l *linHistory) explainStep(state any, op porcupine.Operation) string {
	spec := l.specOf(inputOf(op.Input).Input.Kind)
	if state == nil { // a routed state before the partition's first step
		state = spec.Model.Init()
	}
	return spec.Explain(state, op.Input, op.Output)
}

// returnsFirstOutside returns the operation not done that returned first.
func (l *linHistory) returnsFirstOutside(part []porcupine.Operation, done []bool) int {
	next := -1
	for i, op := range part {
		if !done[i] && (next < 0 || returnsFirst(op, part[next])) {
			next = i
		}
	}
	return next
}

// compareProcessed orders operations as their server processed them: by
// time, then in the order recorded, which is the order of the replies.
func (l *linHistory) compareProcessed(a, b porcupine.Operation) int {
	return cmp.Or(cmp.Compare(l.opTime(a), l.opTime(b)), cmp.Compare(opIndex(a), opIndex(b)))
}

// returnsFirst orders operations by return, then call, then recording.
func returnsFirst(a, b porcupine.Operation) bool {
	return cmp.Or(cmp.Compare(a.Return, b.Return), cmp.Compare(a.Call, b.Call),
		cmp.Compare(opIndex(a), opIndex(b))) < 0
}

// specOf returns the specification of an operation of kind.
func (p *asProcessed) specOf(kind string) model.Spec {
	if isRegisterOp(kind) {
		return p.register
	}
	return p.store
}

// visualize renders porcupine's visualisation, with the faults as
// annotations and the node names as row labels, in memory.
func (l *linHistory) visualize(info porcupine.LinearizationInfo) ([]byte, error) {
	info.AddAnnotations(l.annotations())
	var page bytes.Buffer
	if err := porcupine.Visualize(l.model, info, &page); err != nil {
		return nil, fmt.Errorf("porcupine's visualisation not rendered: %w", err)
	}
	return decorate(page.Bytes(), l.clients), nil
}

// The edits decorate makes to porcupine's page (v1.3.1): its title, a
// header after <body>, and the row labels of its clients, which porcupine
// draws as their ClientId (0, 1, ...) and which become node names.
const (
	porcupineTitle    = "<title>Porcupine</title>"
	porcupineBody     = "<body>"
	porcupineLabelTag = "i < realClients ? i.toString() : sortedTags[i - realClients]"
	porcupineLabel    = "i < realClients ? i : sortedTags[i - realClients]"
	clientLabel       = "i < realClients ? leasesimClient(i) : sortedTags[i - realClients]"
)

// visualizationHeader says what the page shows. The run's context
// (scenario, seed, implementation, a link back to report.html) is added by
// the reports package, which knows it.
//
// Porcupine's legend floats over the top of the page; the header starts
// below it, and the operations follow the header.
const visualizationHeader = `<style>.leasesim-top { margin-top: 42px } #canvas { margin-top: 12px }</style>
<div class="leasesim-top">
<header class="leasesim">
<h1 style="font-size:20px;margin:0 0 4px">P3 linearizability: porcupine's view of the run</h1>
<p style="margin:0;max-width:1100px;color:#444">Each row is a node calling the lease store or the fenced resource;
a bar spans one operation, from its call to its return, in true time. Rows named <i>fault …</i> are the run's faults,
<i>harness</i> marks the end of the fault phase and of the run (an operation whose reply never arrived ends there).
Click an operation for porcupine's longest linearisation through it; red marks where none can continue.</p>
</header>
</div>
`

// decorate gives porcupine's page a title, a header and node names as row
// labels. Should porcupine's page change so that an edit no longer
// applies, that edit is skipped: the page stays porcupine's, and correct.
func decorate(page []byte, clients []string) []byte {
	names, err := json.Marshal(clients) // escapes <, > and &: safe inside <script>
	if err != nil {
		names = []byte("[]")
	}
	script := "<script>const leasesimClients = " + string(names) +
		"; function leasesimClient(i) { return leasesimClients[i] ?? i.toString() }</script>\n"
	s := string(page)
	s = strings.Replace(s, porcupineTitle, "<title>P3 linearizability · leasesim</title>", 1)
	if strings.Contains(s, porcupineLabelTag) && strings.Contains(s, porcupineLabel) {
		s = strings.Replace(s, porcupineLabelTag, clientLabel, 1)
		s = strings.Replace(s, porcupineLabel, clientLabel, 1)
		s = strings.Replace(s, porcupineBody, porcupineBody+"\n"+script, 1)
	}
	s = strings.Replace(s, porcupineBody, porcupineBody+"\n"+visualizationHeader, 1)
	return []byte(s)
}

// annotations are the run's faults, one row per node, and the heal phase
// and the end of the run, after which no reply returned, on the scaled
// time of the operations.
func (l *linHistory) annotations() []porcupine.Annotation {
	out := make([]porcupine.Annotation, 0, len(l.h.Faults)+2)
	for _, w := range l.h.Faults {
		out = append(out, porcupine.Annotation{Tag: "fault " + cmp.Or(w.Node(), "network"),
			Start: int64(w.Start) * l.scale, End: int64(w.End) * l.scale, Description: faultLabel(w), Details: faultDetails(w),
			BackgroundColor: faultColor(w.Kind)})
	}
	if l.h.HealAt > 0 {
		out = append(out, porcupine.Annotation{Tag: "harness", Start: int64(l.h.HealAt) * l.scale, Description: "heal",
			Details: fmt.Sprintf("the fault phase ended at %v", l.h.HealAt)})
	}
	out = append(out, porcupine.Annotation{Tag: "harness", Start: int64(l.h.End) * l.scale, Description: "end",
		Details: fmt.Sprintf("the run ended at %v; operations still open then never returned", l.h.End)})
	return out
}

func faultLabel(w history.FaultWindow) string {
	if w.Peer() != "" {
		return fmt.Sprintf("%v → %s", w.Kind, w.Peer())
	}
	return w.Kind
}

func faultDetails(w history.FaultWindow) string {
	s := fmt.Sprintf("%v %s from %v to %v", w.Kind, cmp.Or(w.Node(), "network"), w.Start, w.End)
	if w.Peer() != "" {
		s += ", peer " + w.Peer()
	}
	if w.Detail != "" {
		s += ": " + w.Detail
	}
	return s
}

// faultColor shades faults by family: processes, network, clocks.
func faultColor(kind string) string {
	switch kind {
	case history.FaultPause, history.FaultCrash, history.FaultFailpointHit:
		return "#ff9191"
	case history.FaultPartition, history.FaultPartitionOneWay, history.FaultIsolate, history.FaultSplit, history.FaultBridge, history.FaultLink:
		return "#efaefc"
	case history.FaultDrift, history.FaultStep:
		return "#aee1fc"
	}
	return "#dddddd"
}
