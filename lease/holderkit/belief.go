package holderkit

import (
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Belief is a holder's belief in its grant on one resource, with the
// owner's callbacks from lease.AcquireOptions: what lease.Holder's Valid,
// OnGrant and OnLost and the grant, renew and lost events report. The
// protocol decides when belief starts, extends and ends; Belief keeps the
// deadline, its timer and the events.
type Belief struct {
	Resource string
	OnGrant  func(lease.Grant)
	OnLost   func(resource string, token uint64, err error)
	// Token is the fencing token of the grant believed in, or sought.
	Token uint64
	// Believing: the holder believes it holds Resource until its clock
	// reads Until.
	Believing bool
	Until     time.Duration
	expiry    lease.Timer // the end of belief
}

// Grant is the belief as a lease.Grant of ttl.
func (b *Belief) Grant(ttl time.Duration) lease.Grant {
	return lease.Grant{Resource: b.Resource, Token: b.Token, TTL: ttl, Deadline: b.Until}
}

// Valid returns the grant of ttl while the holder believes and its clock,
// now, has not reached the deadline.
func (b *Belief) Valid(now, ttl time.Duration) (lease.Grant, bool) {
	if !b.Believing || now >= b.Until {
		return lease.Grant{}, false
	}
	return b.Grant(ttl), true
}

// Extend believes until until on env's node, if that is later than now and
// than the deadline believed so far: it reports a renewal, or, if the
// holder did not believe, a grant and returns true (the caller then tells
// the owner, OnGrant, as its protocol says). At the deadline, expire runs.
//
// If the deadline has passed but its timer has not run yet (both come due
// at the same instant, as when a pause ends), belief has already ended:
// the owner may have seen Valid fail and dropped its work. expire runs
// first, and believing again is a new grant, never a silent renewal (the
// gap zoo/etcdraft's swarm seed 986 showed).
func (b *Belief) Extend(env lease.Env, until time.Duration, expire func()) (granted bool) {
	now := env.Clock.Now()
	if b.Believing && now >= b.Until {
		StopTimer(b.expiry)
		expire()
		if b.Believing {
			return false // expire kept it (the owner let it go): nothing to extend
		}
	}
	if until <= now || (b.Believing && until <= b.Until) {
		return false // the news came too late to believe anything more
	}
	StopTimer(b.expiry)
	b.expiry = env.Clock.AfterFunc(until-now, expire)
	if b.Believing {
		b.Until = until
		Observe(env, lease.Event{Kind: lease.EventRenew, Resource: b.Resource, Token: b.Token, Deadline: until})
		return false
	}
	b.Believing, b.Until = true, until
	Observe(env, lease.Event{Kind: lease.EventGrant, Resource: b.Resource, Token: b.Token, Deadline: until})
	return true
}

// Lapse ends belief if env's clock has reached the deadline: it reports
// the loss and tells the owner, with err.
func (b *Belief) Lapse(env lease.Env, err error) {
	if !b.Believing || env.Clock.Now() < b.Until {
		return
	}
	b.Believing = false
	Observe(env, lease.Event{Kind: lease.EventLost, Resource: b.Resource, Token: b.Token})
	b.Lost(b.Token, err)
}

// Drop stops believing at once, silently: the caller reports the end.
func (b *Belief) Drop() {
	StopTimer(b.expiry)
	b.expiry, b.Believing = nil, false
}

// Lost tells the owner that belief under token ended, with err.
func (b *Belief) Lost(token uint64, err error) {
	if b.OnLost != nil {
		b.OnLost(b.Resource, token, err)
	}
}
