package checker

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// maxViolations bounds the counterexamples one Result carries; the summary
// still counts every one. A broken implementation can break a property
// thousands of times in one run, and the first few say everything.
const maxViolations = 20

// verdict collects one property's counterexamples and sub-verdicts while a
// checker runs, and turns them into a Result.
type verdict struct {
	h          *history.History
	property   string
	violations []Violation
	violated   int      // every violation, including those not kept
	unknown    []string // why parts of the property could not be decided
	undecided  int      // every undecided part, including those not kept
	assumed    int      // undecided parts that are only an assumption exceeded
}

func newVerdict(h *history.History, property string) *verdict {
	return &verdict{h: h, property: property}
}

// violate records a counterexample at true time at, with the faults that
// may have caused it (see violateDuring).
func (v *verdict) violate(at history.Time, detail string, evidence ...string) {
	v.violateDuring(at, at, at, detail, evidence...)
}

// violateDuring records a counterexample at true time at, with the faults
// that may have caused it: those in force at some point in [from, to], and
// those that touched the nodes involved and ended within a recent-fault
// window (one TTL) before from. The nodes involved are those of the
// operations and beliefs at at (involvedAt).
func (v *verdict) violateDuring(at, from, to history.Time, detail string, evidence ...string) {
	v.add(func() []string { return involvedAt(v.h, at) }, at, from, to, detail, evidence)
}

// violateInvolving is violateDuring with the nodes involved named by the
// caller.
func (v *verdict) violateInvolving(nodes []string, at, from, to history.Time, detail string, evidence ...string) {
	v.add(func() []string { return nodes }, at, from, to, detail, evidence)
}

// add counts a counterexample and keeps it if fewer than maxViolations are
// kept; nodes is only called then.
func (v *verdict) add(nodes func() []string, at, from, to history.Time, detail string, evidence []string) {
	v.violated++
	if len(v.violations) >= maxViolations {
		return
	}
	v.violations = append(v.violations, Violation{Property: v.property, At: at, Detail: detail,
		Evidence: evidence, Faults: causalFaults(v.h, nodes(), from, to)})
}

// dontKnow records that part of the property could not be decided.
func (v *verdict) dontKnow(why string) {
	v.undecided++
	if len(v.unknown) < maxUnknownReasons {
		v.unknown = append(v.unknown, why)
	}
}

// assumptionExceeded records a part that would be a violation but for an
// assumption the property rests on (clock drift within rho) that the run
// broke: unknown, and flagged so, never a failure and never a pass.
func (v *verdict) assumptionExceeded(why string) {
	v.assumed++
	v.dontKnow("assumption exceeded: " + why)
}

// maxUnknownReasons bounds the reasons an Unknown summary lists.
const maxUnknownReasons = 3

// result returns the Result: Violated if anything was violated, else
// Unknown if anything was undecided, else OK. okSummary is the summary of
// an OK result, and is appended to the others.
func (v *verdict) result(name, okSummary string) Result {
	r := Result{Property: v.property, Name: name, Status: OK, Summary: okSummary}
	switch {
	case v.violated > 0:
		r.Status = Violated
		r.Summary = fmt.Sprintf("%d violation(s): %s", v.violated, v.violations[0].Detail)
	case len(v.unknown) > 0:
		r.Status = Unknown
		r.Summary = strings.Join(v.unknown, "; ")
		if more := v.undecided - len(v.unknown); more > 0 {
			r.Summary += fmt.Sprintf("; and %d more undecided", more)
		}
		r.AssumptionExceeded = v.assumed == v.undecided
	}
	slices.SortStableFunc(v.violations, func(a, b Violation) int { return cmp.Compare(a.At, b.At) })
	r.Violations = v.violations
	return r
}

// FormatTime formats an instant of true time, counted from the run's
// start, as evidence and reports show every instant: seconds with six
// decimals (microseconds), "13.010421s". history.Never is "never".
func FormatTime(t history.Time) string {
	if t == history.Never {
		return "never"
	}
	sign := ""
	if t < 0 {
		sign, t = "-", -t
	}
	return fmt.Sprintf("%s%d.%06ds", sign, t/1e9, t%1e9/1e3)
}

// RecentFaultWindow is how long before a violation a fault that has
// already ended is still listed with it: the lease TTL. A holder's belief
// rests on a grant or renewal at most one TTL old, so a fault that ended
// earlier than that could not have kept alive the belief the violating
// event acted on; one that ended within it may have (Kleppmann's pause ends
// the instant the stale write is sent).
func RecentFaultWindow(l history.Lease) time.Duration { return max(l.TTL, 0) }

// causalFaults returns the fault windows that may have caused a violation
// over [from, to], in their order: those in force at some point in [from,
// to], and those that touched one of nodes (or the whole network) and
// ended within RecentFaultWindow before from.
func causalFaults(h *history.History, nodes []string, from, to history.Time) []history.FaultWindow {
	recent := from.Add(-RecentFaultWindow(h.Lease))
	var out []history.FaultWindow
	for _, w := range h.Faults {
		active := w.Start <= to && from <= w.End
		ended := w.End < from && w.End >= recent && touches(&w, nodes)
		if active || ended {
			out = append(out, w)
		}
	}
	return out
}

// touches reports whether w acted on one of nodes: it names one as its
// node or peer, or it has no node and acted on the network as a whole.
func touches(w *history.FaultWindow, nodes []string) bool {
	if len(w.Nodes) == 0 {
		return true
	}
	for _, n := range w.Nodes {
		if slices.Contains(nodes, n) {
			return true
		}
	}
	return false
}

// involvedAt returns the nodes involved in what happened at true time at:
// the client and server of every operation called, processed or returned
// then, and the holder of every belief that began or ended then, sorted.
func involvedAt(h *history.History, at history.Time) []string {
	var nodes []string
	var op history.Operation
	for i := range h.NumOps() {
		if h.LoadOp(i, &op); op.Call == at || op.Processed == at || op.Return == at {
			nodes = append(nodes, op.Client, op.Server)
		}
	}
	for i := range h.Beliefs {
		if b := &h.Beliefs[i]; b.Start == at || b.End == at {
			nodes = append(nodes, b.Holder)
		}
	}
	slices.Sort(nodes)
	return slices.Compact(nodes)
}

// driftExceeded reports whether some clock drifted beyond the configured
// bound rho during the run.
func driftExceeded(h *history.History) bool { return h.MaxDriftPPB > h.Lease.RhoPPB }

// driftNote says by how much drift exceeded rho.
func driftNote(h *history.History) string {
	bound := strings.TrimPrefix(FormatDrift(h.Lease.RhoPPB), "+") // a bound has no direction
	return fmt.Sprintf("drift %s exceeded rho %s", FormatDrift(h.MaxDriftPPB), bound)
}

// FormatDrift formats a clock drift or drift bound given in parts per
// billion as people read it, in parts per million with a sign and at most
// three decimals: "+120 ppm", "-0.5 ppm", "0 ppm".
func FormatDrift(ppb int64) string {
	s := strconv.FormatFloat(math.Round(float64(ppb))/1e3, 'f', -1, 64)
	if ppb > 0 {
		s = "+" + s
	}
	return s + " ppm"
}

// describeOp is one line of evidence about an operation.
// target names what an operation acts on: its resource, or, in a
// specification of keys (an expiring key, a compare-and-swap record), its
// key.
func target(p *history.Payload) string {
	if p.Resource == "" {
		return p.Key
	}
	return p.Resource
}

func describeOp(op *history.Operation) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %q by %s", op.Input.Kind, target(&op.Input), op.Client)
	if op.Input.Token != 0 {
		fmt.Fprintf(&sb, " token %d", op.Input.Token)
	}
	if op.Input.Kind == kindCheckpoint {
		fmt.Fprintf(&sb, " state %q req %d", op.Input.State, requestID(op))
	}
	fmt.Fprintf(&sb, ": sent %s, processed %s by %s", FormatTime(op.Call), FormatTime(op.Processed), op.Server)
	if op.Output.Clock != 0 {
		fmt.Fprintf(&sb, " (grantor clock %s)", formatReading(op.Output.Clock))
	}
	fmt.Fprintf(&sb, " → %s", op.Output.Outcome())
	if op.Output.Token != 0 {
		fmt.Fprintf(&sb, " token %d", op.Output.Token)
	}
	if op.Input.Kind == kindAcquire && op.Output.Err == "" {
		fmt.Fprintf(&sb, " handing over state %q of token %d", op.Output.State, op.Output.StateToken)
	}
	if !op.Returned() {
		sb.WriteString(", reply never arrived")
	}
	return sb.String()
}

// describeOpAt is describeOp of operation i of h, for a sweep that kept
// the operation's index rather than the operation: a history may give its
// operations only as copies (History.OpSource).
func describeOpAt(h *history.History, i int) string {
	op := h.Op(i)
	return describeOp(&op)
}

// describeBelief is one line of evidence about a belief interval.
func describeBelief(b *history.BeliefInterval) string {
	last := "none"
	if b.LastAct >= 0 {
		last = FormatTime(b.LastAct)
	}
	return fmt.Sprintf("%s believed %q token %d from %s to %s (ended by %s, last act %s)",
		b.Holder, b.Resource, b.Token, FormatTime(b.Start), FormatTime(b.End), b.Reason, last)
}

// grantorHold is how long after processing a request the lease store holds
// a lease granted for ttl, on its own clock: ttl + ceil(ttl×HoldPPB/1e9).
func grantorHold(l history.Lease, ttl time.Duration) time.Duration {
	return model.LeasePolicy{HoldPPB: l.HoldPPB}.Hold(ttl)
}

// restartGrace is how long a restarted lease store grants nothing: the
// longest hold of any lease it may have granted, that of TTLMax.
func restartGrace(l history.Lease) time.Duration { return grantorHold(l, l.TTLMax) }

// holdTrue is the longest true time a grantor holds a lease granted for ttl
// after processing the request: grantorHold(ttl) on its own clock, which may
// run slow by rho, so grantorHold(ttl)/(1-rho), rounded up.
func holdTrue(l history.Lease, ttl time.Duration) time.Duration {
	hold := grantorHold(l, ttl)
	rho := l.RhoPPB
	if rho <= 0 {
		return hold
	}
	if rho >= 1e9 {
		return math.MaxInt64
	}
	// hold×1e9/(1e9−rho) in floating point would do, but integers keep the
	// checkers bit-for-bit the same everywhere; hold fits 63 bits and the
	// factor is below 2, so split to avoid overflow.
	den := int64(1e9) - rho
	q, r := int64(hold)/den, int64(hold)%den
	if q >= math.MaxInt64/1_000_000_000 {
		return math.MaxInt64
	}
	return time.Duration(q*1e9 + (r*1e9+den-1)/den)
}
