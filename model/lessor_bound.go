package model

import (
	"fmt"
	"math/bits"
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
)

// LessorBoundSlack is the time the bound allows an entry the leader
// proposes (a checkpoint, a revoke) to commit and every member to learn
// that it did, while no fault is in force: a round trip to a quorum (10 ms
// on leasesim's default links) and a heartbeat to the rest (one raft tick,
// 100 ms), more than doubled.
const LessorBoundSlack = 250 * time.Millisecond

// LessorBound is the latest true time by which a replicated lessor that
// works as etcd's does must have revoked a lease that nobody renewed: an
// upper bound on how long a lease outlives its last keepalive across
// leader changes, which LessorWindowSpec's window (a lower bound) does not
// give. It is computed from the history's leader terms (history.LeaderTerm:
// who led when, and what the store declared: the extension X a new leader
// adds, its checkpoint interval I and its expiry check period P) and its
// fault windows.
//
// The store it describes: only the leader expires leases, each at its
// deadline on the leader's clock, proposing a revoke at its next expiry
// check; every I the leader records each lease's remaining TTL through the
// log (a checkpoint), and a keepalive resets it to the full TTL; a new
// leader sets every deadline to its remaining TTL (checkpointed, or the
// full TTL) plus X. So with I > X the remaining TTL a new leader restores
// shrinks with every checkpoint that reached the members, and a lease no
// one renews is revoked even while leadership keeps moving.
//
// GoneBy follows a lease from its renewal through the terms, keeping an
// upper bound D on the leader's deadline in true time (a clock may run
// slow by rho, so d of a member's clock lasts at most d/(1−rho)) and an
// upper bound R on the remaining TTL the log holds (the full TTL after a
// renewal). It counts only what must have happened:
//
//   - a term's j-th checkpoint, taken between Start + j·I/(1+rho) and
//     Start + j·(I+P)/(1−rho), counts if it came after the renewal, before
//     D, while the leader had not been cut off since its term began (a
//     pause shifts its schedule), and if no member was faulted from then
//     until LessorBoundSlack after it: then every member, the next leader
//     too, applied it. R becomes what the leader's clock can have left
//     then, (D − its earliest time)×(1+rho). Later values in the log can
//     only be smaller (each new leader's first checkpoint is at least I
//     after it added X < I), so R stays an upper bound when a checkpoint
//     goes uncounted.
//   - a term revokes the lease if, from max(D, the end of any fault that
//     cut its leader off), its leader stays able to commit (not paused,
//     crashed or cut off, no network-wide fault, a quorum of members not
//     faulted) for one check period and LessorBoundSlack, within the term
//     (which ends when the member stops leading or the next leader takes
//     over); GoneBy is the end of that span.
//   - otherwise the next term's leader restores it: D = its Start +
//     (R + X)/(1−rho).
//
// Faults that only move clocks (drift, a wall-clock step) are accounted
// for by rho. A lease the last term does not revoke within the run has no
// bound (GoneBy's ok is false): no leader had the time to.
type LessorBound struct {
	terms  []boundTerm
	rhoPPB int64
	slack  time.Duration
}

// boundTerm is a leader term with its period (until the next leader took
// over) and when its leader, or some member, was faulted.
type boundTerm struct {
	history.LeaderTerm
	until time.Duration
	// cut are the spans in which the leader could not commit; faulted
	// those in which some member (or the whole network) was faulted.
	cut, faulted []span
}

// span is an interval of true time, both ends included.
type span struct{ from, to time.Duration }

// NewLessorBound returns the bound for a history's leader terms and fault
// windows, with clocks within rhoPPB of true time. A history without
// leader terms gives a bound that bounds nothing.
func NewLessorBound(terms []history.LeaderTerm, faults []history.FaultWindow, rhoPPB int64) LessorBound {
	b := LessorBound{rhoPPB: rhoPPB, slack: LessorBoundSlack}
	sorted := slices.Clone(terms)
	slices.SortStableFunc(sorted, func(x, y history.LeaderTerm) int { return compareInt(int64(x.Start), int64(y.Start)) })
	for i, t := range sorted {
		bt := boundTerm{LeaderTerm: t, until: time.Duration(t.End)}
		if i+1 < len(sorted) {
			bt.until = min(bt.until, time.Duration(sorted[i+1].Start))
		}
		bt.cut, bt.faulted = faultSpans(t, faults)
		b.terms = append(b.terms, bt)
	}
	return b
}

// GoneBy returns the latest true time by which the lease, last renewed
// (a keepalive answered, a grant applied) at true time renewedAt with ttl,
// must be revoked, and whether the run's terms give one.
func (b LessorBound) GoneBy(renewedAt, ttl time.Duration) (time.Duration, bool) {
	at, _, ok := b.follow(renewedAt, ttl)
	return at, ok
}

// LeaderChanges returns how many terms began after from and at or before
// to: the leader changes a lease renewed at from went through until to.
func (b LessorBound) LeaderChanges(from, to time.Duration) int {
	n := 0
	for _, t := range b.terms {
		if s := time.Duration(t.Start); s > from && s <= to {
			n++
		}
	}
	return n
}

// Terms returns how many leader terms the bound knows.
func (b LessorBound) Terms() int { return len(b.terms) }

// follow is GoneBy, with the index of the term that revokes.
func (b LessorBound) follow(t, ttl time.Duration) (time.Duration, int, bool) {
	k := -1
	for i, term := range b.terms {
		if time.Duration(term.Start) <= t {
			k = i
		}
	}
	if k < 0 || ttl <= 0 {
		return 0, -1, false
	}
	first := b.terms[k]
	// A renewal the leader answered sets its deadline at t + TTL; a grant
	// another member answered may have reached the leader before it took
	// over, which then gave it the full TTL and X from its Start.
	d := max(t+b.slow(ttl), time.Duration(first.Start)+b.slow(ttl+first.Extension))
	r := ttl
	from := t
	for ; k < len(b.terms); k++ {
		term := b.terms[k]
		if time.Duration(term.Start) > t {
			d, from = time.Duration(term.Start)+b.slow(r+term.Extension), time.Duration(term.Start)
		}
		r = b.checkpoints(term, from, d, r)
		if gone, ok := b.revokes(term, d); ok {
			return gone, k, true
		}
	}
	return 0, -1, false
}

// checkpoints returns the remaining TTL the log holds after term's
// checkpoints that must have reached every member, from r, for a lease
// renewed (or restored) at from whose deadline is d.
func (b LessorBound) checkpoints(term boundTerm, from, d, r time.Duration) time.Duration {
	every, check := term.CheckpointInterval, term.CheckPeriod
	if every <= 0 || every <= term.Extension {
		return r // without I > X a restored lease need not shrink
	}
	start := time.Duration(term.Start)
	for j := time.Duration(1); ; j++ {
		lo, hi := start+b.fast(j*every), start+b.slow(j*(every+check))
		if hi+b.slack > term.until || lo >= d || overlaps(term.cut, start, hi+b.slack) {
			return r
		}
		if lo <= from || overlaps(term.faulted, lo, hi+b.slack) {
			continue
		}
		r = min(r, b.onClock(d-lo))
	}
}

// revokes returns when term's leader must have revoked a lease whose
// deadline is d, if it led long enough to: at the first instant from d on
// after which it could commit for a check period and the slack.
func (b LessorBound) revokes(term boundTerm, d time.Duration) (time.Duration, bool) {
	need := b.slow(term.CheckPeriod) + b.slack
	first := max(d, time.Duration(term.Start))
	candidates := []time.Duration{first}
	for _, c := range term.cut {
		if c.to >= first {
			candidates = append(candidates, c.to+1) // spans include their ends
		}
	}
	slices.Sort(candidates)
	for _, at := range candidates {
		if at+need > term.until {
			return 0, false
		}
		if !overlaps(term.cut, at, at+need) {
			return at + need, true
		}
	}
	return 0, false
}

// slow is the longest true time d of a member's clock can take.
func (b LessorBound) slow(d time.Duration) time.Duration {
	return mulDivUp(d, 1_000_000_000, 1_000_000_000-b.rhoPPB)
}

// fast is the shortest true time d of a member's clock can take.
func (b LessorBound) fast(d time.Duration) time.Duration {
	return mulDiv(d, 1_000_000_000, 1_000_000_000+b.rhoPPB)
}

// onClock is the most a member's clock can advance in true time d.
func (b LessorBound) onClock(d time.Duration) time.Duration {
	return mulDivUp(d, 1_000_000_000+b.rhoPPB, 1_000_000_000)
}

func mulDiv(d time.Duration, num, den int64) time.Duration {
	if d <= 0 {
		return d
	}
	hi, lo := bits.Mul64(uint64(d), uint64(num))
	q, _ := bits.Div64(hi, lo, uint64(den))
	return time.Duration(q)
}

func mulDivUp(d time.Duration, num, den int64) time.Duration {
	if d <= 0 {
		return d
	}
	hi, lo := bits.Mul64(uint64(d), uint64(num))
	q, r := bits.Div64(hi, lo, uint64(den))
	if r != 0 {
		q++
	}
	return time.Duration(q)
}

// overlaps reports whether some span meets [from, to].
func overlaps(spans []span, from, to time.Duration) bool {
	for _, s := range spans {
		if s.from <= to && s.to >= from {
			return true
		}
	}
	return false
}

// clockOnly are the fault kinds that only move clocks: rho accounts for
// them. Arming a failpoint does nothing yet.
var clockOnly = []string{history.FaultDrift, history.FaultStep, history.FaultFailpointArm}

// networkWide are the fault kinds whose nodes do not say whom they cut
// off: they count as faulting every member.
var networkWide = []string{history.FaultPartition, history.FaultSplit, history.FaultBridge}

// faultSpans returns the spans in which term's leader could not commit
// (a fault on it, a network-wide one, or fewer than a quorum of members
// free of faults) and those in which some member was faulted.
func faultSpans(term history.LeaderTerm, faults []history.FaultWindow) (cut, faulted []span) {
	members := term.Members
	if len(members) == 0 {
		members = []string{term.Server}
	}
	quorum := len(members)/2 + 1
	var others []history.FaultWindow
	for _, w := range faults {
		if slices.Contains(clockOnly, w.Kind) {
			continue
		}
		s := span{time.Duration(w.Start), time.Duration(w.End)}
		wide := len(w.Nodes) == 0 || slices.Contains(networkWide, w.Kind)
		onMember := slices.ContainsFunc(w.Nodes, func(n string) bool { return slices.Contains(members, n) })
		switch {
		case wide || slices.Contains(w.Nodes, term.Server):
			cut = append(cut, s)
			faulted = append(faulted, s)
		case onMember:
			faulted = append(faulted, s)
			others = append(others, w)
		}
	}
	return append(cut, quorumLost(others, members, term.Server, len(members)-quorum)...), faulted
}

// quorumLost returns the spans in which more than spare members other
// than leader were faulted at once.
func quorumLost(ws []history.FaultWindow, members []string, leader string, spare int) []span {
	var points []time.Duration
	for _, w := range ws {
		points = append(points, time.Duration(w.Start), time.Duration(w.End))
	}
	slices.Sort(points)
	points = slices.Compact(points)
	var out []span
	for _, p := range points {
		down := 0
		for _, m := range members {
			if m == leader {
				continue
			}
			if slices.ContainsFunc(ws, func(w history.FaultWindow) bool {
				return slices.Contains(w.Nodes, m) && time.Duration(w.Start) <= p && time.Duration(w.End) >= p
			}) {
				down++
			}
		}
		if down > spare {
			// From this point to the next window's end: conservatively, the
			// whole of every window in force here.
			lo, hi := p, p
			for _, w := range ws {
				if time.Duration(w.Start) <= p && time.Duration(w.End) >= p {
					lo, hi = min(lo, time.Duration(w.Start)), max(hi, time.Duration(w.End))
				}
			}
			out = append(out, span{lo, hi})
		}
	}
	return out
}

// String describes the bound's terms, for a violation's evidence.
func (b LessorBound) String() string {
	return fmt.Sprintf("%d leader terms, rho %d ppb, slack %v", len(b.terms), b.rhoPPB, b.slack)
}
