package checker

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
)

// Completeness checks P8, failure-detector completeness: a member that
// stopped is declared dead within its declared bound. A member stops for
// the length of a fault window that crashes it, pauses it, or cuts it off
// from the lease store (cutsFromStore: its isolation, a partition that
// leaves it fewer than a quorum of the store's members). For each such
// window [s, e] of member m, with r its latest accepted renewal at or
// before e, the detector must declare m dead (or have it declared dead
// already) by r + Lease.DetectBound, if m is still stopped then (e is
// later). The detection time, from s to the declaration, is measured.
//
// A window that ends before its deadline needs no declaration (the member
// came back in time); one still open when the run ended before its
// deadline cannot be judged (unknown, the run was too short), and so
// cannot one that cut the lease store itself off (nobody could renew or
// be observed). A history whose lease configuration declares no detection
// bound is not a detector's (not applicable); one with no member stopped
// past its deadline has nothing to judge (unknown).
func Completeness(h *history.History) Result { return checkCompleteness(newAnalysis(h)) }

// checkCompleteness is Completeness on an analysis that other checkers
// may share (Judge).
func checkCompleteness(a *analysis) Result {
	h := a.h
	if h.Lease.DetectBound <= 0 {
		return notApplicable("P8", "completeness", notADetector)
	}
	v := newVerdict(h, "P8")
	detections, stops, recovered := scanCompleteness(newDetectorView(h), v)
	if len(detections) == 0 && v.violated == 0 {
		v.dontKnow(fmt.Sprintf("nothing to judge: no member stayed stopped past its detection bound "+
			"(%d stops, %d over before their bound)", stops, recovered))
	}
	summary := fmt.Sprintf("%d stops declared dead within the bound", len(detections))
	if len(detections) > 0 {
		summary += fmt.Sprintf(" (detection time from the stop: median %v, max %v)",
			detections[len(detections)/2], detections[len(detections)-1])
	}
	summary += fmt.Sprintf("; %d stops over before their bound", recovered)
	r := v.result("completeness", summary)
	r.Bound = fmt.Sprintf("declared dead within %v (detect_bound_ns) of the member's last accepted renewal",
		h.Lease.DetectBound)
	return r
}

// stopWindow is an interval in which a member could neither renew nor be
// heard: a crash, a pause, or a cut from the lease store.
type stopWindow struct {
	start, end history.Time
	kind       string
	all        bool // the lease store itself was cut off
}

// windowCut is a fault window and the cut it makes, if any.
type windowCut struct {
	w   history.FaultWindow
	c   cut
	cut bool
}

// windowCuts returns, for each of h's fault windows, the cut it makes
// from the lease store as P4's failover reads cuts (cutsFromStore, which
// judges each window alone).
func windowCuts(h *history.History) []windowCut {
	one := history.History{Grantor: h.Grantor, Members: h.Members, Leaders: h.Leaders, Beliefs: h.Beliefs}
	out := make([]windowCut, len(h.Faults))
	for i, w := range h.Faults {
		one.Faults = []history.FaultWindow{w}
		out[i].w = w
		if cs := cutsFromStore(&one); len(cs) == 1 {
			out[i].c, out[i].cut = cs[0], true
		}
	}
	return out
}

// stopsOf returns m's stop windows, in order of start: its crashes and
// pauses, and the windows that cut it off from the lease store.
func stopsOf(cuts []windowCut, m string) []stopWindow {
	var ws []stopWindow
	for _, wc := range cuts {
		w := &wc.w
		if (w.Kind == history.FaultPause && w.Node() == m) || (wc.cut && wc.c.cuts(m)) {
			ws = append(ws, stopWindow{start: w.Start, end: w.End, kind: w.Kind, all: wc.cut && wc.c.all})
		}
	}
	slices.SortStableFunc(ws, func(a, b stopWindow) int { return cmp.Compare(a.start, b.start) })
	return ws
}

// judgeStop judges one stop window w of member m: the detection time, or
// a negative one if the window ended before its deadline; judged is false
// if the window was not judged (violated, or undecided, recorded in v).
func judgeStop(v *verdict, dv *detectorView, m string, w stopWindow) (detection time.Duration, judged bool) {
	h := dv.h
	last, ok := dv.lastRenewal(m, w.end)
	if !ok {
		last = w.start // never renewed: count from the stop
	}
	deadline := last.Add(h.Lease.DetectBound)
	if dv.deadAt(m, max(last, w.start)) {
		return 0, true // declared dead already, and not declared alive since its last renewal
	}
	d, found := dv.firstDeath(m, last, min(deadline, w.end))
	switch {
	case found:
		return max(d.At.Sub(w.start), 0), true
	case h.End < deadline && w.end >= h.End:
		v.dontKnow(fmt.Sprintf("run too short: %s stopped at %s (%s) and the run ended at %s, before its bound %s",
			m, FormatTime(w.start), w.kind, FormatTime(h.End), FormatTime(deadline)))
		return 0, false
	case w.end < deadline:
		return -1, true
	case w.all:
		v.dontKnow(fmt.Sprintf("the lease store was cut off from %s to %s (%s): nobody could renew or be observed",
			FormatTime(w.start), FormatTime(w.end), w.kind))
		return 0, false
	}
	late := "never"
	if d, found := dv.firstDeath(m, deadline, history.Never); found {
		late = FormatTime(d.At) + fmt.Sprintf(", %v late", d.At.Sub(deadline))
	}
	v.violateInvolving([]string{m}, deadline, w.start, deadline,
		fmt.Sprintf("%s stopped at %s (%s, until %s) and was not declared dead by %s, %v after its last renewal "+
			"at %s; declared dead: %s", m, FormatTime(w.start), w.kind, FormatTime(w.end), FormatTime(deadline),
			h.Lease.DetectBound, FormatTime(last), late))
	return 0, false
}

// scanCompleteness judges every stop window of every member in dv,
// recording what it finds in v, and returns the detection times (sorted),
// the number of stops and of stops over before their bound: P8's verdict
// and the metrics' detection times (Metrics.DetectionSamples) come from
// this one scan.
func scanCompleteness(dv *detectorView, v *verdict) (detections []time.Duration, stops, recovered int) {
	cuts := windowCuts(dv.h)
	for _, m := range dv.members {
		for _, w := range stopsOf(cuts, m) {
			stops++
			switch d, judged := judgeStop(v, dv, m, w); {
			case !judged:
			case d < 0:
				recovered++
			default:
				detections = append(detections, d)
			}
		}
	}
	slices.Sort(detections)
	return detections, stops, recovered
}
