package checker

import (
	"fmt"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
)

// livenessSlack covers what the bound does not model: message latency on
// healthy links, messages still in flight from the fault phase, and the
// workload's own timers.
const livenessSlack = time.Second

// LivenessBound is P4's bound B: how long after the heal phase begins a
// contended lease must be held again by a live holder. It is the sum of the
// worst cases that can follow one another after the heal:
//
//   - the restart grace: a grantor restarted by the heal grants nothing
//     until every lease it may have granted before has expired, the hold
//     of TTLMax (TTLMax×(1+rho) for leasesim's grantor);
//   - the hold of TTL: a lease granted before the heal to a holder that is
//     gone, or cut off until the heal, blocks its resource for up to
//     TTL×(1+rho) on leasesim's grantor's clock (Lease.HoldPPB);
//   - the lock-delay (Lease.LockDelay): a lock whose holder's session was
//     invalidated is refused to everyone for this long;
//   - BackoffMax: a contender waits up to this long before its next attempt;
//   - 2×RequestTimeout: that attempt may time out once on a message still
//     queued from the fault phase, and the retry takes up to another;
//   - one second of slack for latency and the workload's timers.
//
// A setting l leaves zero (not applicable) adds nothing.
func LivenessBound(l history.Lease) time.Duration {
	return restartGrace(l) + grantorHold(l, l.TTL) + l.LockDelay + l.BackoffMax + 2*l.RequestTimeout + livenessSlack
}

// Liveness checks P4, liveness after the heal phase, against the bound B of
// LivenessBound, stated in Result.Bound:
//
//   - (a) every resource in h.Contended is believed by a holder that is not
//     crashed at some time within [HealAt, HealAt+B];
//   - (b) every task that arrived completes by max(Arrival, HealAt) + B +
//     Units×UnitTime + 1s (TaskRecord.Done); if a done checkpoint asked
//     by then got no answer (TaskRecord.DoneUnanswered), it may have
//     completed the task in time, unseen, and a later completion is
//     Unknown, never a violation;
//   - (c) the service registry: every registrant's key is seen by a reader
//     within [HealAt, HealAt+B] (if there are readers), and no reader sees
//     a registration after its lease must have expired (see registry.go).
//
// A requirement with a witness (a belief, a completion, a sighting) holds
// even if the run ended early. One without a witness whose deadline lies
// beyond the end of the run is Unknown (the run was too short), never OK.
func Liveness(h *history.History) Result { return checkLiveness(newAnalysis(h)) }

// checkLiveness is Liveness on an analysis that other checkers may share
// (Judge).
func checkLiveness(a *analysis) Result {
	h := a.h
	if len(h.Contended) == 0 && len(h.Tasks) == 0 && len(h.Sightings) == 0 && len(registrantKeys(a)) == 0 {
		return notApplicable("P4", "liveness", "no contended resource, task or registration was recorded, so nothing had to make progress")
	}
	v := newVerdict(h, "P4")
	bound := LivenessBound(h.Lease)
	deadline := h.HealAt.Add(bound)
	var parts []string
	parts = append(parts, checkContended(v, h, deadline))
	parts = append(parts, checkTasks(v, h, bound))
	parts = append(parts, checkRegistry(v, a, deadline))
	r := v.result("liveness", strings.Join(parts, "; "))
	r.Bound = boundText(h.Lease, bound)
	return r
}

// boundText states P4's bound in words.
func boundText(l history.Lease, bound time.Duration) string {
	return fmt.Sprintf("B = %v after the heal: restart grace %v + grantor hold %v + %sbackoff max %v + "+
		"2 × request timeout %v + slack %v; a task is due by max(arrival, heal) + B + units × unit time + %v; "+
		"a registration may be seen until %v (grantor hold / (1−rho)) after its lease's last grant or renewal",
		bound, restartGrace(l), grantorHold(l, l.TTL), lockDelayText(l), l.BackoffMax, l.RequestTimeout, livenessSlack,
		livenessSlack, holdTrue(l, l.TTL))
}

// lockDelayText names the lock-delay in the bound's words, where there is
// one.
func lockDelayText(l history.Lease) string {
	if l.LockDelay == 0 {
		return ""
	}
	return fmt.Sprintf("lock-delay %v + ", l.LockDelay)
}

// checkContended checks (a): each contended resource is believed by a live
// holder within [HealAt, deadline].
func checkContended(v *verdict, h *history.History, deadline history.Time) string {
	if len(h.Contended) == 0 {
		return "no contended resources recorded"
	}
	held := 0
	for _, res := range h.Contended {
		if heldBetween(h, res, h.HealAt, deadline) {
			held++
			continue
		}
		if h.End < deadline {
			v.dontKnow(fmt.Sprintf("run too short: it ended at %v, before %q had to be held again by %v",
				h.End, res, deadline))
			continue
		}
		detail := fmt.Sprintf("no live holder believed %q between the heal at %v and the bound %v", res, h.HealAt, deadline)
		if b := zkBlocker(h, res, deadline); b != "" {
			detail += ": " + b
		}
		v.violateDuring(deadline, h.HealAt, deadline, detail, lastBeliefOn(h, res))
	}
	return fmt.Sprintf("%d/%d contended resources held again", held, len(h.Contended))
}

// heldBetween reports whether some holder that was not crashed believed it
// held res at some instant of [from, to].
func heldBetween(h *history.History, res string, from, to history.Time) bool {
	for i := range h.Beliefs {
		b := &h.Beliefs[i]
		if b.Resource != res {
			continue
		}
		t := max(b.Start, from)
		covered := t < b.End || (b.Start == b.End && t == b.Start)
		if covered && t <= to && !crashedAt(h, b.Holder, t) {
			return true
		}
	}
	return false
}

// crashedAt reports whether node was crashed at true time t.
func crashedAt(h *history.History, node string, t history.Time) bool {
	for _, w := range h.Faults {
		if w.Kind == history.FaultCrash && w.Node() == node && w.Start <= t && t < w.End {
			return true
		}
	}
	return false
}

// lastBeliefOn describes the last belief on res, as evidence.
func lastBeliefOn(h *history.History, res string) string {
	var last *history.BeliefInterval
	for i := range h.Beliefs {
		if b := &h.Beliefs[i]; b.Resource == res && (last == nil || b.End >= last.End) {
			last = b
		}
	}
	if last == nil {
		return fmt.Sprintf("nobody ever believed %q", res)
	}
	return "last belief: " + describeBelief(last)
}

// checkTasks checks (b): every task that arrived completes in time.
func checkTasks(v *verdict, h *history.History, bound time.Duration) string {
	arrived, done := 0, 0
	for i := range h.Tasks {
		t := &h.Tasks[i]
		if t.Arrival > h.End {
			continue // it never arrived
		}
		arrived++
		due := max(t.Arrival, h.HealAt).Add(bound + time.Duration(t.Units)*t.UnitTime + livenessSlack)
		switch {
		case t.Done <= due:
			done++
		case t.DoneUnanswered <= due:
			// The request may have completed it at any time after it was
			// asked: a completion first known later proves nothing late.
			known := "was never known complete"
			if t.Done != history.Never {
				known = fmt.Sprintf("was first known complete at %v", t.Done)
			}
			v.dontKnow(fmt.Sprintf("task %q was due by %v and %s, but a worker asked at %v to checkpoint it done "+
				"and got no answer: that request may have completed it in time", t.ID, due, known, t.DoneUnanswered))
		case t.Done == history.Never && h.End < due:
			v.dontKnow(fmt.Sprintf("run too short: it ended at %v, before task %q was due at %v", h.End, t.ID, due))
		default:
			when := "never completed"
			if t.Done != history.Never {
				when = fmt.Sprintf("completed only at %v", t.Done)
			}
			v.violateDuring(due, max(t.Arrival, h.HealAt), due,
				fmt.Sprintf("task %q (%d units of %v, arrived %v) was due by %v but %s", t.ID, t.Units,
					t.UnitTime, t.Arrival, due, when),
				lastBeliefOn(h, t.ID))
		}
	}
	if arrived == 0 {
		return "no tasks"
	}
	return fmt.Sprintf("%d/%d tasks completed in time", done, arrived)
}
