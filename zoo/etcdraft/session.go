package etcdraft

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/holderkit"
)

// phase is where a session is in holding its resource.
type phase uint8

const (
	// phaseWaiting: backing off before granting a lease.
	phaseWaiting phase = iota
	// phaseGrant: LeaseGrant is in flight.
	phaseGrant
	// phaseCreate: the lease is alive; the create of the resource's key
	// attached to it is in flight, or waits for the key to be free.
	phaseCreate
	// phaseRestore: the key is ours under token; the read of the
	// resource's checkpoint is in flight (or waits to be tried again).
	phaseRestore
	// phaseHeld: the key is ours under token; the lease is kept alive.
	phaseHeld
	// phaseAck: as phaseHeld, but belief waits for the store to
	// acknowledge a checkpoint of ours read back without its answer
	// (holder.acknowledge).
	phaseAck
)

// session is one resource's lease and key, from Acquire to Release.
type session struct {
	// Belief's Token is the key's create revision; 0 until the key is
	// ours.
	holderkit.Belief

	phase phase
	lease int64 // the lease granted; 0 while waiting or granting
	// aliveAt is the send time of the last grant or keepalive the primary
	// answered: the lease lives at least TTL after it on the primary's
	// clock, so the holder may believe until aliveAt + validity.
	aliveAt  time.Duration
	backoff  time.Duration
	wait     lease.Timer // the next step (a grant, a create)
	renew    lease.Timer // the next keepalive
	inflight uint64      // the session's request in flight; 0 if none
	kaDue    bool        // a keepalive is due once the request in flight is answered
	released bool
	// state and stateToken are the resource's latest checkpoint, read
	// when the key became ours (nil and 0 if none).
	state      []byte
	stateToken uint64
	// acked is the greatest checkpoint value under Token the store
	// acknowledged ("" if none): a greater one read back was stored
	// without an answer (holder.acknowledge).
	acked string
}

// stop cancels the session's timers and forgets its request in flight.
func (s *session) stop() {
	holderkit.StopTimer(s.wait)
	holderkit.StopTimer(s.renew)
	s.Drop()
	s.wait, s.renew, s.inflight, s.kaDue = nil, nil, 0, false
}

// grant asks for a lease of the configured TTL.
func (h *holder) grant(s *session) {
	s.phase, s.lease, s.Token, s.state, s.stateToken, s.acked = phaseGrant, 0, 0, nil, 0, ""
	h.call(s, Request{Op: OpGrant, TTL: h.cfg.TTL}, func(r Reply, sentAt time.Duration) {
		if r.Err != ErrNone || r.Lease <= 0 {
			h.retry(s)
			return
		}
		s.lease, s.aliveAt, s.phase = r.Lease, sentAt, phaseCreate
		h.scheduleKeepAlive(s)
		h.create(s)
	}, func() { h.grant(s) })
}

// create puts the resource's key attached to the lease if it does not
// exist. A key already attached to our lease is ours (a retried create
// whose first reply was lost); a key of another lease means wait and try
// again, keeping the lease alive.
func (h *holder) create(s *session) {
	req := Request{Op: OpCreate, Key: s.Resource, Value: string(h.env.Self), Lease: s.lease}
	h.call(s, req, func(r Reply, _ time.Duration) {
		switch {
		case r.Err == ErrLeaseNotFound:
			h.retry(s)
		case r.Err != ErrNone:
			h.later(s, func() { h.create(s) })
		case r.KeyLease == s.lease && r.CreateRevision > 0:
			s.Token, s.backoff = uint64(r.CreateRevision), 0
			h.restore(s)
		default:
			h.later(s, func() { h.waitFree(s) })
		}
	}, func() { h.create(s) })
}

// waitFree reads the key (a linearizable read) after each backoff until
// it is gone, then creates it, as etcd's election waits for its
// predecessor's deletion (with a watch; reads polled with a growing
// backoff keep the history small enough for P3).
func (h *holder) waitFree(s *session) {
	h.call(s, Request{Op: OpGet, Key: s.Resource}, func(r Reply, _ time.Duration) {
		if r.Err == ErrNone && (!r.OK || r.KeyLease == s.lease) {
			h.create(s)
			return
		}
		h.later(s, func() { h.waitFree(s) })
	}, func() { h.waitFree(s) })
}

// scheduleKeepAlive arms the next keepalive a renew interval after the
// lease was last known alive.
func (h *holder) scheduleKeepAlive(s *session) {
	holderkit.StopTimer(s.renew)
	s.renew = h.after(s.aliveAt+h.cfg.RenewInterval-h.env.Clock.Now(), func() {
		if s.released || s.lease == 0 {
			return
		}
		if s.inflight != 0 {
			s.kaDue = true
			return
		}
		h.keepAlive(s)
	})
}

// keepAlive renews the lease at the primary.
func (h *holder) keepAlive(s *session) {
	s.kaDue = false
	id := s.lease
	h.call(s, Request{Op: OpKeepAlive, Lease: id}, func(r Reply, sentAt time.Duration) {
		if s.lease != id {
			return
		}
		switch {
		case r.Err == ErrLeaseNotFound:
			h.leaseGone(s)
		case r.Err != ErrNone || r.TTL <= 0:
			h.later(s, func() { h.keepAlive(s) })
		default:
			s.aliveAt = max(s.aliveAt, sentAt)
			h.scheduleKeepAlive(s)
			if s.Believing && h.env.Clock.Now() >= s.Until {
				// The deadline passed but its timer has not run yet (it
				// is due at this instant, after a pause): belief ended
				// (the owner may have seen Valid fail and dropped its
				// work), so it lapses now and the key is granted again
				// below rather than silently renewed (swarm seed 986).
				h.expire(s)
			}
			switch {
			case s.phase == phaseHeld && s.Believing:
				h.believe(s)
			case s.phase == phaseHeld:
				// Belief lapsed and the key is still ours: a grant again,
				// which must carry the latest checkpoint, not the one read
				// when the key became ours.
				h.restore(s)
			}
			h.resume(s)
		}
	}, func() { h.keepAlive(s) })
}

// resume runs a step deferred while the keepalive was in flight.
func (h *holder) resume(s *session) {
	if s.inflight != 0 || s.wait != nil {
		return
	}
	switch s.phase {
	case phaseCreate:
		h.waitFree(s)
	case phaseRestore:
		h.restore(s)
	}
}

// believe extends belief to aliveAt + validity; a session that did not
// believe starts believing (a new grant).
func (h *holder) believe(s *session) {
	if !s.Extend(h.env, s.aliveAt+h.validity, func() { h.expire(s) }) || s.OnGrant == nil {
		return
	}
	// The owner hears of the grant in a step of its own, at the same
	// instant: its callback may write, reach a failpoint and crash the
	// node, and the handler that got here may still have a request to send.
	token := s.Token
	h.after(0, func() {
		if !s.released && s.Believing && s.Token == token && h.env.Clock.Now() < s.Until {
			s.OnGrant(s.grantOf(s.Grant(h.cfg.TTL)))
		}
	})
}

// expire ends belief when the holder's clock reaches its deadline. The
// session keeps its lease alive: a keepalive that succeeds believes again
// (the key is attached to the lease, so it is still ours).
func (h *holder) expire(s *session) {
	if s.released {
		return
	}
	s.Lapse(h.env, fmt.Errorf("lease %d on %q, token %d: deadline passed without a keepalive: %w",
		s.lease, s.Resource, s.Token, lease.ErrLeaseExpired))
}

// leaseGone handles a keepalive that found the lease gone: the key went
// with it. Belief ends, if it had not, and the session starts afresh.
func (h *holder) leaseGone(s *session) {
	believing, token, id := s.Believing, s.Token, s.lease
	h.retry(s)
	if believing {
		h.observe(lease.Event{Kind: lease.EventLost, Resource: s.Resource, Token: token})
		s.Lost(token, fmt.Errorf("lease %d on %q, token %d: not found: %w", id, s.Resource, token,
			lease.ErrLeaseExpired))
	}
}

// fenced handles a write refused under token: a newer token wrote, so the
// holder stops believing, revokes its lease and starts afresh.
func (h *holder) fenced(resource string, token uint64, err error) {
	s := h.sessions[resource]
	h.observe(lease.Event{Kind: lease.EventFenced, Resource: resource, Token: token, Err: err.Error()})
	if s == nil || s.Token != token || (s.phase != phaseHeld && s.phase != phaseAck) {
		return
	}
	believing := s.Believing
	if s.lease != 0 {
		h.revoke(s.lease)
	}
	h.retry(s)
	if believing {
		s.Lost(token, err)
	}
}

// retry drops the session's lease and grants a new one after a jittered
// exponential backoff from BackoffMin to BackoffMax.
func (h *holder) retry(s *session) {
	if s.released {
		return
	}
	s.stop()
	s.phase, s.lease, s.Token, s.state, s.stateToken, s.acked = phaseWaiting, 0, 0, nil, 0, ""
	h.later(s, func() {
		if s.phase == phaseWaiting {
			h.grant(s)
		}
	})
}

// later runs step after the session's next backoff, unless released.
func (h *holder) later(s *session, step func()) {
	s.backoff = min(max(2*s.backoff, h.cfg.BackoffMin), h.cfg.BackoffMax)
	half := s.backoff / 2
	d := half + time.Duration(h.env.Rand.Int64N(int64(s.backoff-half)+1))
	holderkit.StopTimer(s.wait)
	s.wait = h.after(d, func() {
		s.wait = nil
		if !s.released && s.inflight == 0 {
			step()
		}
	})
}
