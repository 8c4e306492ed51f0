package checker

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
)

// What P7 (accuracy.go) and P8 (completeness.go) share: a failure
// detector's history is one whose lease configuration declares a
// detection bound (history.Lease.DetectBound); its members prove they are
// alive by renewals the lease store accepted, and its detectors declare
// them dead or alive again (history.Declaration).

// renewalKinds are the request kinds that renew (or take) a lease, in
// every specification's names: leasesim's lease store (acquire, renew),
// a compare-and-swap record such as a Kubernetes Lease (create, update),
// an etcd-style lessor (grant, keepalive) and an expiring key (set_nx_px,
// pexpire_if_equal). Reads, releases, revocations and checkpoints prove
// nothing about a member being alive in the detector's sense.
var renewalKinds = []string{"acquire", "renew", "create", "update", "grant", "keepalive", "set_nx_px",
	"pexpire_if_equal"}

// notADetector is the reason P7 and P8 do not apply to a history that
// declares no detection bound.
const notADetector = "not a failure detector's history: its lease configuration declares no detection bound " +
	"(detect_bound_ns)"

// detectorView is what P7 and P8 read of a history: each member's
// accepted renewals in time order, and each member's declarations in time
// order.
type detectorView struct {
	h            *history.History
	renewals     map[string][]history.Time        // looked up by member, never iterated
	declarations map[string][]history.Declaration // looked up by member, never iterated
	members      []string                         // every member, sorted
}

// newDetectorView gathers the renewals and declarations of h's members. A
// renewal is an operation of a renewal kind that the lease store
// (History.Grantor) processed without an error, at the time it was
// processed; an operation whose processing the producer could not see
// counts at its call, the earliest it can have taken effect, if its
// reply came back to say it succeeded.
func newDetectorView(h *history.History) *detectorView {
	v := &detectorView{h: h, renewals: map[string][]history.Time{}, declarations: map[string][]history.Declaration{}}
	for _, op := range h.AllOps() {
		if op.Server != h.Grantor || op.Output.Err != "" || !slices.Contains(renewalKinds, op.Input.Kind) {
			continue
		}
		at := op.Processed
		if at == history.Unknown {
			if !op.Returned() {
				continue
			}
			at = op.Call
		}
		v.add(op.Client)
		v.renewals[op.Client] = append(v.renewals[op.Client], at)
	}
	for _, d := range h.Declarations {
		v.add(d.Member)
		v.declarations[d.Member] = append(v.declarations[d.Member], d)
	}
	for _, m := range v.members {
		slices.Sort(v.renewals[m])
		slices.SortStableFunc(v.declarations[m], func(a, b history.Declaration) int { return cmp.Compare(a.At, b.At) })
	}
	return v
}

// add notes member m.
func (v *detectorView) add(m string) {
	if i, found := slices.BinarySearch(v.members, m); !found {
		v.members = slices.Insert(v.members, i, m)
	}
}

// lastRenewal returns m's latest accepted renewal at or before t.
func (v *detectorView) lastRenewal(m string, t history.Time) (history.Time, bool) {
	rs := v.renewals[m]
	i, found := slices.BinarySearch(rs, t)
	if found {
		for i+1 < len(rs) && rs[i+1] == t {
			i++
		}
		return rs[i], true
	}
	if i == 0 {
		return 0, false
	}
	return rs[i-1], true
}

// nextRenewal returns m's earliest accepted renewal after t.
func (v *detectorView) nextRenewal(m string, t history.Time) (history.Time, bool) {
	rs := v.renewals[m]
	i, found := slices.BinarySearch(rs, t)
	for found && i < len(rs) && rs[i] == t {
		i++
	}
	if i == len(rs) {
		return 0, false
	}
	return rs[i], true
}

// deadAt reports whether m stands declared dead at t: the latest
// declaration about it at or before t, by any detector, is a death.
func (v *detectorView) deadAt(m string, t history.Time) bool {
	dead := false
	for _, d := range v.declarations[m] {
		if d.At > t {
			break
		}
		dead = d.Dead
	}
	return dead
}

// firstDeath returns the first declaration of m's death after from and at
// or before to.
func (v *detectorView) firstDeath(m string, from, to history.Time) (history.Declaration, bool) {
	for _, d := range v.declarations[m] {
		if d.Dead && d.At > from && d.At <= to {
			return d, true
		}
	}
	return history.Declaration{}, false
}

// revival returns when detector declared m alive again after t, or
// Never.
func (v *detectorView) revival(detector, m string, t history.Time) history.Time {
	for _, d := range v.declarations[m] {
		if d.At > t && !d.Dead && d.Detector == detector {
			return d.At
		}
	}
	return history.Never
}

// onFastClock returns how much true time at least d on a clock whose rate is
// within rho of true time takes: d/(1+rho), rounded down.
func onFastClock(d time.Duration, rhoPPB int64) time.Duration {
	return time.Duration(float64(d) / (1 + float64(rhoPPB)/1e9))
}

// onSlowClock returns how much true time at most d on a clock whose rate
// is within rho of true time takes: d/(1−rho), rounded up.
func onSlowClock(d time.Duration, rhoPPB int64) time.Duration {
	return time.Duration(float64(d)/(1-float64(rhoPPB)/1e9)) + 1
}

// describeDeclaration names a declaration in evidence.
func describeDeclaration(d history.Declaration) string {
	what := "alive"
	if d.Dead {
		what = "dead"
	}
	s := fmt.Sprintf("%s declared %s %s at %s", d.Detector, d.Member, what, FormatTime(d.At))
	if d.Grace > 0 {
		s += fmt.Sprintf(" (grace %v)", d.Grace)
	}
	return s
}
