package checker

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/history"
)

// Accuracy checks P7, failure-detector accuracy: a member that renews
// within its rules is never declared dead. A detector's declaration that
// member m is dead at t (one that turns m from alive to dead in that
// detector's eyes) is a false suspicion if m's accepted renewals show it
// alive at t:
//
//   - (a) m's latest accepted renewal r <= t is younger than the grace
//     period the detector declared (Declaration.Grace), counted in true
//     time for a detector clock that may run fast by rho: t − r <
//     grace/(1+rho). A detector that honours its grace period on its own
//     clock never declares this, whenever it notices the renewal;
//   - (b) m renewed again at r' > t, with r' − r within its renew
//     interval plus its request timeout (Lease.RenewInterval +
//     Lease.RequestTimeout, on a member clock that may run slow by rho):
//     m kept its own schedule across t, so the detector's bound is tighter
//     than the schedule it was configured with (a renew interval close to
//     the grace period flaps).
//
// Each false suspicion lasts until the same detector declares m alive
// again, or to the end of the run; the count and the time spent falsely
// suspected are reported. A history whose lease configuration declares no
// detection bound is not a detector's (not applicable); one in which no
// member renewed has nothing to judge (unknown).
func Accuracy(h *history.History) Result { return checkAccuracy(newAnalysis(h)) }

// checkAccuracy is Accuracy on an analysis that other checkers may share
// (Judge).
func checkAccuracy(a *analysis) Result {
	h := a.h
	if h.Lease.DetectBound <= 0 {
		return notApplicable("P7", "accuracy", notADetector)
	}
	v := newVerdict(h, "P7")
	sc := scanAccuracy(newDetectorView(h), v)
	renewing, deaths, falseCount, falseTime := sc.renewing, sc.deaths, sc.falseCount, sc.falseTime
	if renewing == 0 {
		v.dontKnow(fmt.Sprintf("nothing to judge: no member renewed (%d declarations)", len(h.Declarations)))
	}
	r := v.result("accuracy", fmt.Sprintf("%d members renewed; none of the %d declarations of death came while "+
		"the member renewed within its rules", renewing, deaths))
	r.Bound = "a member is alive while its last accepted renewal is younger than the detector's grace period, " +
		"and while it renews within its renew interval plus its request timeout"
	if falseCount > 0 {
		r.Summary += fmt.Sprintf(" (%d false suspicions of %d declarations of death, %v suspected in all)",
			falseCount, deaths, falseTime)
	}
	return r
}

// falseSuspicion reports whether declaring d.Member dead at d.At was
// false by (a) or (b), and why in words.
func falseSuspicion(dv *detectorView, d history.Declaration) (string, bool) {
	l := &dv.h.Lease
	last, ok := dv.lastRenewal(d.Member, d.At)
	if !ok {
		return "", false
	}
	if grace := onFastClock(d.Grace, l.RhoPPB); d.Grace > 0 && d.At.Sub(last) < grace {
		return fmt.Sprintf("its renewal at %s was accepted %v before, within the grace period %v",
			FormatTime(last), d.At.Sub(last), d.Grace), true
	}
	if l.RenewInterval <= 0 {
		return "", false
	}
	next, ok := dv.nextRenewal(d.Member, d.At)
	schedule := onSlowClock(l.RenewInterval+l.RequestTimeout, l.RhoPPB)
	if !ok || next.Sub(last) > schedule {
		return "", false
	}
	return fmt.Sprintf("it renewed at %s and again at %s, within its renew interval %v plus request timeout %v",
		FormatTime(last), FormatTime(next), l.RenewInterval, l.RequestTimeout), true
}

// accuracyScan is what scanAccuracy counts.
type accuracyScan struct {
	renewing, deaths, falseCount int
	falseTime                    time.Duration // time spent falsely suspected, summed
}

// scanAccuracy judges every declaration of death in dv, recording each
// false suspicion in v, and counts them: P7's verdict and the metrics'
// false suspicions (Metrics.FalseSuspicions) come from this one scan.
func scanAccuracy(dv *detectorView, v *verdict) accuracyScan {
	h := dv.h
	var sc accuracyScan
	for _, m := range dv.members {
		if len(dv.renewals[m]) > 0 {
			sc.renewing++
		}
		dead := map[string]bool{} // m's state in each detector's eyes; looked up, never iterated
		for _, d := range dv.declarations[m] {
			wasDead := dead[d.Detector]
			dead[d.Detector] = d.Dead
			if !d.Dead || wasDead { // a repeated declaration is not a new suspicion
				continue
			}
			sc.deaths++
			why, ok := falseSuspicion(dv, d)
			if !ok {
				continue
			}
			sc.falseCount++
			until := dv.revival(d.Detector, m, d.At)
			lasted, still := min(until, h.End).Sub(d.At), ""
			if until == history.Never {
				still = ", still suspected when the run ended"
			}
			sc.falseTime += lasted
			v.violateInvolving([]string{m, d.Detector}, d.At, d.At, min(until, h.End),
				fmt.Sprintf("%s declared %s dead at %s although %s; suspected for %v%s",
					d.Detector, m, FormatTime(d.At), why, lasted, still), describeDeclaration(d))
		}
	}
	return sc
}
