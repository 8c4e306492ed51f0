package k8slease

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// noLocalDeadline is how far ahead the mutant's renew loop reports its
// deadline: its belief has no local end, only the loop's verdict.
const noLocalDeadline = 24 * time.Hour

// elector is client-go's LeaderElector for one Lease, as callbacks: every
// RetryPeriod (jittered while it does not lead) it runs tryAcquireOrRenew,
// which gets the record, judges its expiry on this node's own clock from
// when it last saw the record change (observedTime), and updates it under
// the resourceVersion it read.
type elector struct {
	h    *holder
	res  string
	opts lease.AcquireOptions
	// active is true between Acquire and Release. gen counts starts and
	// stops: a retry timer of an earlier generation does nothing.
	active bool
	gen    uint64
	busy   bool // an attempt is in flight
	loop   lease.Timer
	// releasing: Release came while an attempt was in flight; the record
	// is written free once it ends, as client-go releases only after its
	// renew loop has returned.
	releasing bool
	// The record as last seen, its resourceVersion, and this node's
	// reading when its contents last changed.
	observed        record
	observedVersion string
	observedTime    time.Duration
	haveObserved    bool
	// While it leads: the token (leaseTransitions it wrote) and the local
	// deadline of its belief, RenewDeadline after it sent its last
	// successful renewal. roundStart is the mutant's: when its renew
	// loop's current round began.
	leading       bool
	token         uint64
	deadline      time.Duration
	deadlineTimer lease.Timer
	roundStart    time.Duration
}

// start begins contending, unless the elector already runs.
func (e *elector) start(opts lease.AcquireOptions) {
	if e.active {
		return
	}
	e.active, e.opts, e.releasing = true, opts, false
	e.gen++
	e.attempt() // unless one is still in flight: its end schedules the next
}

// attempt runs tryAcquireOrRenew once. The leader first tries the fast
// path: an update on the record it last wrote, without reading it.
func (e *elector) attempt() {
	if !e.active || e.busy {
		return
	}
	e.busy = true
	now := e.h.env.Clock.Now()
	if e.leading && e.observedValid(now) {
		e.update(e.claim(e.observed, now), e.observedVersion, true)
		return
	}
	e.get()
}

// observedValid reports whether the lease as last observed has not
// expired on this node's clock.
func (e *elector) observedValid(now time.Duration) bool {
	return e.haveObserved && e.observedTime+e.observed.LeaseDuration > now
}

// get reads the record, then creates it, waits, or updates it. Once
// released, the attempt goes no further.
func (e *elector) get() {
	e.h.call(&request{Op: opGet, Name: e.res}, func(r *response, err error) {
		if err == nil && r.Err == "" {
			e.observe(r.Record, r.Version)
		}
		switch {
		case !e.active || err != nil || (r.Err != "" && r.Err != errNotFound):
			e.finish(false)
		case r.Err == errNotFound:
			e.create()
		default:
			e.decide(r.Record, r.Version)
		}
	})
}

// decide acts on a record just read: take it if it is free, expired on
// this node's clock, or already this holder's; otherwise wait.
func (e *elector) decide(rec record, version string) {
	now := e.h.env.Clock.Now()
	if e.leading && !e.mine(rec) {
		e.lose(lease.EventLost, fmt.Errorf("k8slease: %q is now held by %q (incarnation %d): %w",
			e.res, rec.HolderIdentity, rec.HolderIncarnation, lease.ErrLeaseExpired))
	}
	if rec.HolderIdentity != "" && !e.mine(rec) && e.observedValid(now) {
		e.finish(false)
		return
	}
	e.update(e.claim(rec, now), version, false)
}

// claim returns the record this holder writes over cur at now: a renewal
// of its own lease keeps acquireTime and leaseTransitions; taking it from
// another (or a free one) counts a transition.
func (e *elector) claim(cur record, now time.Duration) record {
	next := record{HolderIdentity: string(e.h.env.Self), HolderIncarnation: e.h.incarnation,
		LeaseDuration: e.h.t.LeaseDuration, AcquireTime: now, RenewTime: now,
		LeaseTransitions: cur.LeaseTransitions + 1}
	if e.mine(cur) {
		next.AcquireTime, next.LeaseTransitions = cur.AcquireTime, cur.LeaseTransitions
	}
	if next.LeaseTransitions == 0 {
		panic(fmt.Sprintf("k8slease: invariant token-positive: %q: leaseTransitions wrapped", e.res))
	}
	return next
}

// mine reports whether rec names this holder (this incarnation).
func (e *elector) mine(rec record) bool {
	return rec.heldBy(string(e.h.env.Self), e.h.incarnation)
}

// create makes the record, this holder its first holder. Unlike client-go,
// which creates it with leaseTransitions 0, the creation counts as the
// first transition: the harness reserves token 0 for "no token".
func (e *elector) create() {
	now := e.h.env.Clock.Now()
	rec := e.claim(record{}, now)
	e.h.call(&request{Op: opCreate, Name: e.res, Record: rec}, func(r *response, err error) {
		if err == nil && r.Err == "" {
			e.wrote(rec, r.Version, now)
		}
		e.finish(err == nil && r.Err == "")
	})
}

// update writes rec at version. A failed fast path falls back to reading
// the record, as client-go does.
func (e *elector) update(rec record, version string, fast bool) {
	sentAt := e.h.env.Clock.Now()
	e.h.call(&request{Op: opUpdate, Name: e.res, Record: rec, Version: version}, func(r *response, err error) {
		switch {
		case err == nil && r.Err == "":
			e.wrote(rec, r.Version, sentAt)
			e.finish(true)
		case fast && e.active:
			e.get()
		default:
			e.finish(false)
		}
	})
}

// observe records rec as seen now; observedTime moves only when its
// contents changed.
func (e *elector) observe(rec record, version string) {
	if !e.haveObserved || rec != e.observed {
		e.observed, e.observedTime, e.haveObserved = rec, e.h.env.Clock.Now(), true
	}
	e.observedVersion = version
}

// wrote takes in this holder's successful write of rec, sent at sentAt:
// it leads, until RenewDeadline after sentAt, unless it was released
// meanwhile.
func (e *elector) wrote(rec record, version string, sentAt time.Duration) {
	e.observe(rec, version)
	if !e.active {
		return
	}
	now := e.h.env.Clock.Now()
	deadline := sentAt + e.h.t.RenewDeadline
	if e.h.noRenewTimeout {
		deadline, e.roundStart = now+noLocalDeadline, now
	}
	if now >= deadline || !e.mine(rec) {
		return // too late to believe anything; the next attempt renews
	}
	if e.leading && e.token == rec.LeaseTransitions {
		e.deadline = max(e.deadline, deadline)
		e.h.observe(lease.Event{Kind: lease.EventRenew, Resource: e.res, Token: e.token, Deadline: e.deadline})
		return
	}
	if e.leading {
		e.lose(lease.EventLost, fmt.Errorf("k8slease: %q: token %d replaced by %d: %w",
			e.res, e.token, rec.LeaseTransitions, lease.ErrLeaseExpired))
	}
	e.leading, e.token, e.deadline = true, rec.LeaseTransitions, deadline
	e.armDeadline()
	e.h.observe(lease.Event{Kind: lease.EventGrant, Resource: e.res, Token: e.token, Deadline: e.deadline})
	if e.opts.OnGrant != nil {
		e.opts.OnGrant(lease.Grant{Resource: e.res, Token: e.token, TTL: e.h.t.LeaseDuration, Deadline: e.deadline})
	}
}

// armDeadline ends the belief at its deadline, unless renewals moved it.
// The mutant has no such timer: only its renew loop ends its belief.
func (e *elector) armDeadline() {
	if e.h.noRenewTimeout || e.deadlineTimer != nil {
		return
	}
	wait := e.deadline - e.h.env.Clock.Now()
	e.deadlineTimer = e.h.env.Clock.AfterFunc(wait, func() {
		e.deadlineTimer = nil
		switch {
		case !e.leading:
		case e.h.env.Clock.Now() >= e.deadline:
			e.lose(lease.EventLost, fmt.Errorf("k8slease: %q: no renewal within the renew deadline %v: %w",
				e.res, e.h.t.RenewDeadline, lease.ErrLeaseExpired))
		default:
			e.armDeadline()
		}
	})
}

// finish ends an attempt and schedules the next: RetryPeriod later while
// leading, with client-go's jitter otherwise.
func (e *elector) finish(ok bool) {
	e.busy = false
	if !e.active {
		if e.releasing {
			e.releasing = false
			e.writeFree()
		}
		return
	}
	now := e.h.env.Clock.Now()
	if !ok && e.leading {
		e.h.observe(lease.Event{Kind: lease.EventRenewFailed, Resource: e.res, Token: e.token})
		if e.h.noRenewTimeout && now-e.roundStart >= e.h.t.RenewDeadline {
			e.lose(lease.EventLost, fmt.Errorf("k8slease: %q: renew loop timed out: %w", e.res, lease.ErrLeaseExpired))
		}
	}
	wait := e.h.t.RetryPeriod
	if !e.leading {
		wait += time.Duration(e.h.env.Rand.Int64N(int64(wait)*jitterTenths/10 + 1))
	}
	gen := e.gen
	e.loop = e.h.env.Clock.AfterFunc(wait, func() {
		if gen == e.gen {
			e.attempt()
		}
	})
}

// lose ends the belief (kind: lost or fenced) and tells the caller; the
// elector goes on as a candidate.
func (e *elector) lose(kind lease.EventKind, err error) {
	if !e.leading {
		panic(fmt.Sprintf("k8slease: invariant lose-while-leading: %q lost while not leading", e.res))
	}
	token := e.token
	e.leading, e.token, e.deadline = false, 0, 0
	e.h.observe(lease.Event{Kind: kind, Resource: e.res, Token: token, Err: err.Error()})
	if e.opts.OnLost != nil {
		e.opts.OnLost(e.res, token, err)
	}
}

// release stops the elector: belief ends at once, then the record is
// written free (client-go's ReleaseOnCancel), once the attempt in flight,
// if any, has ended.
func (e *elector) release() {
	if !e.active {
		return
	}
	e.active = false
	e.gen++
	if e.loop != nil {
		e.loop.Stop()
	}
	if e.leading {
		token := e.token
		e.leading, e.token, e.deadline = false, 0, 0
		e.h.observe(lease.Event{Kind: lease.EventRelease, Resource: e.res, Token: token})
	}
	if e.busy {
		e.releasing = true
		return
	}
	e.writeFree()
}

// writeFree writes the record with no holder under the version last seen,
// if that record names this holder; best effort, as client-go's release.
func (e *elector) writeFree() {
	if !e.haveObserved || !e.mine(e.observed) {
		return
	}
	now := e.h.env.Clock.Now()
	free := record{LeaseDuration: e.h.t.ReleaseDuration, AcquireTime: now, RenewTime: now,
		LeaseTransitions: e.observed.LeaseTransitions}
	e.h.call(&request{Op: opUpdate, Name: e.res, Record: free, Version: e.observedVersion}, func(r *response, err error) {
		if err == nil && r.Err == "" {
			e.observe(free, r.Version)
		}
	})
}
