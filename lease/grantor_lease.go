package lease

import (
	"cmp"
	"slices"
	"time"
)

// leaseState is the grantor's volatile record of one lease.
type leaseState struct {
	resource  string
	client    Addr
	token     uint64
	ttl       time.Duration
	expiresAt time.Duration // grantor reading; never decreases
	revoked   bool          // holder's rights are gone; a new grant waits for expiresAt
	keys      []KV          // sorted
	ckptReqID uint64        // ReqID of the latest accepted checkpoint under token
	lastReqID uint64        // highest ReqID of the holder's acquires and renewals
	timer     Timer
	onExpiry  func() // the expiry timer's callback, bound once per lease
}

// live returns the lease on resource, expiring it first if its time is up.
// A revoked lease is returned until it expires: it still blocks new grants.
func (g *grantor) live(resource string) *leaseState {
	l := g.leases[resource]
	if l == nil {
		return nil
	}
	if g.env.now() >= l.expiresAt {
		g.expire(l)
		return nil
	}
	return l
}

// start records a new lease and arms its expiry timer.
func (g *grantor) start(l *leaseState) {
	prev, ok := g.issued[l.resource]
	if ok && l.token <= prev {
		violated("token-strictly-increases", "resource %q: issuing token %d after %d", l.resource, l.token, prev)
	}
	g.issued[l.resource] = l.token
	g.leases[l.resource] = l
	g.arm(l)
}

// arm sets a timer at the lease's expiry, so that its keys vanish and the
// observer sees Expired on time even if no request comes.
func (g *grantor) arm(l *leaseState) {
	if l.onExpiry == nil {
		l.onExpiry = func() { g.expiryFired(l) }
	}
	l.timer = g.env.afterFunc(l.expiresAt-g.env.now(), l.onExpiry)
}

// expiryFired expires l at its expiry, or re-arms if it was extended.
func (g *grantor) expiryFired(l *leaseState) {
	if g.leases[l.resource] != l {
		return // released, or expired by a request first
	}
	if g.env.now() < l.expiresAt {
		g.arm(l) // extended since the timer was set
		return
	}
	g.expire(l)
}

// extend moves the lease's expiry to now + hold(ttl), never backwards: the
// holder may still believe an earlier, longer grant.
func (g *grantor) extend(l *leaseState, ttl time.Duration) {
	l.ttl = ttl
	l.expiresAt = max(l.expiresAt, g.env.now()+g.cfg.GrantorHold(ttl))
}

// expire removes a lease whose time is up.
func (g *grantor) expire(l *leaseState) {
	g.remove(l)
	g.env.observe(Event{Kind: EventExpired, Resource: l.resource, Token: l.token})
}

// remove drops a lease and, with it, every attached key.
func (g *grantor) remove(l *leaseState) {
	if l.timer != nil {
		l.timer.Stop()
	}
	delete(g.leases, l.resource)
}

// remaining returns the lease's remaining time on the grantor's clock.
func (g *grantor) remaining(l *leaseState) time.Duration { return l.expiresAt - g.env.now() }

// cloneKVs returns a sorted deep copy of kvs.
func cloneKVs(kvs []KV) []KV {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]KV, len(kvs))
	for i, kv := range kvs {
		out[i] = KV{Key: kv.Key, Value: slices.Clone(kv.Value)}
	}
	slices.SortStableFunc(out, compareKV)
	return out
}

// compareKV orders key-value pairs by key, then value.
func compareKV(a, b KV) int {
	return cmp.Or(cmp.Compare(a.Key, b.Key), slices.Compare(a.Value, b.Value))
}
