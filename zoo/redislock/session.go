package redislock

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/holderkit"
)

// phase is where a session is in locking its resource.
type phase uint8

const (
	// phaseWaiting: backing off before the next attempt (someone else
	// holds the lock, or a request failed).
	phaseWaiting phase = iota
	// phaseIncr: INCR fence:R is in flight, drawing the next token.
	phaseIncr
	// phaseSet: SET lock:R value NX PX ttl is in flight.
	phaseSet
	// phaseHeld: the key is, or lately was, ours: the session renews it
	// with the touch script every renew interval. It believes only while
	// believing is set; a renewal that finds the key still ours (after a
	// lapse, or after a SET whose reply was lost) makes it believe again,
	// since values are never reused, so the key was ours all along.
	phaseHeld
)

// session is one resource's lock, from Acquire to Release.
type session struct {
	// Belief's Token is the token of the current attempt or hold; 0 while
	// waiting.
	holderkit.Belief

	phase    phase
	value    string        // lockValue(token) from the SET on; "" while waiting
	backoff  time.Duration // the last backoff; 0 after a grant
	wait     lease.Timer   // the next attempt or renewal
	inflight uint64        // id of the session's request in flight; 0 if none
	released bool
}

// stop cancels the session's timers and forgets its request in flight, so
// that a late reply or timer finds nothing to act on.
func (s *session) stop() {
	holderkit.StopTimer(s.wait)
	s.Drop()
	s.wait, s.inflight = nil, 0
}

// attempt draws a fresh token: INCR fence:R.
// SessionTokenMutant draws one session id instead, and reuses it.
func (h *holder) attempt(s *session) {
	s.phase, s.Token, s.value = phaseIncr, 0, ""
	key := fenceKey(s.Resource)
	if h.bugs.sessionToken {
		if h.sessionID != 0 {
			h.setNX(s, h.sessionID)
			return
		}
		key = sessionKey
	}
	h.call(s, Command{Op: OpIncr, Key: key}, func(r Reply, _ time.Duration) {
		if r.Err != ErrNone || r.N <= 0 {
			h.retry(s)
			return
		}
		if h.bugs.sessionToken {
			h.sessionID = uint64(r.N)
		}
		h.setNX(s, uint64(r.N))
	}, func() { h.retry(s) })
}

// setNX tries to take the lock under token: SET lock:R "<holder>/<token>"
// NX PX ttl. If the reply is lost the SET may have taken effect, so the
// session finds out with the touch script instead of giving up the key.
func (h *holder) setNX(s *session, token uint64) {
	s.phase, s.Token, s.value = phaseSet, token, h.lockValue(token)
	cmd := Command{Op: OpSetNXPX, Key: lockKey(s.Resource), Value: s.value, TTL: h.t.ttl}
	h.call(s, cmd, func(r Reply, sentAt time.Duration) {
		if r.Err != ErrNone || !r.OK {
			h.retry(s)
			return
		}
		s.phase, s.backoff = phaseHeld, 0
		h.scheduleRenew(s, sentAt)
		h.believeFrom(s, sentAt)
	}, func() {
		s.phase = phaseHeld
		h.renew(s)
	})
}

// renew extends the lock if it is still ours: the touch script, if GET
// lock:R == value then PEXPIRE lock:R ttl. A timeout tries again at once.
func (h *holder) renew(s *session) {
	cmd := Command{Op: OpPExpireIfEqual, Key: lockKey(s.Resource), Value: s.value, TTL: h.t.ttl}
	h.call(s, cmd, func(r Reply, sentAt time.Duration) {
		if r.Err != ErrNone || !(r.OK || h.bugs.extendIgnoresRefusal) {
			h.notOurs(s)
			return
		}
		h.scheduleRenew(s, sentAt)
		h.believeFrom(s, sentAt)
	}, func() { h.renew(s) })
}

// scheduleRenew arms the next renewal a renew interval after sentAt.
func (h *holder) scheduleRenew(s *session, sentAt time.Duration) {
	holderkit.StopTimer(s.wait)
	s.wait = h.after(sentAt+h.t.renewInterval-h.env.Clock.Now(), func() {
		if !s.released && s.phase == phaseHeld && s.inflight == 0 {
			h.renew(s)
		}
	})
}

// believeFrom extends belief to sentAt + validity: the key was ours when
// the server ran the command, which it did after sentAt, and it lives
// TTL from then on the server's clock. A session that did not believe
// (it lapsed, or lost a SET's reply) believes again: a new grant.
func (h *holder) believeFrom(s *session, sentAt time.Duration) {
	if s.Extend(h.env, sentAt+h.t.validity, func() { h.expire(s) }) && s.OnGrant != nil {
		s.OnGrant(s.Grant(h.t.ttl)) // last: the callback may release
	}
}

// expire ends belief when the holder's clock reaches its deadline. The
// session keeps renewing: if the key turns out to be still ours, it
// believes again; if not, it locks afresh.
func (h *holder) expire(s *session) {
	if s.released {
		return
	}
	s.Lapse(h.env, fmt.Errorf("lock %q, token %d: deadline passed without a renewal: %w",
		s.Resource, s.Token, lease.ErrLeaseExpired))
}

// notOurs handles a touch that found the key gone or someone else's: the
// lock expired at the server. Belief ends, if it had not yet, and the
// session locks afresh.
func (h *holder) notOurs(s *session) {
	believing, token := s.Believing, s.Token
	h.retry(s)
	if believing {
		h.observe(lease.Event{Kind: lease.EventLost, Resource: s.Resource, Token: token})
		s.Lost(token, fmt.Errorf("lock %q, token %d: the key is no longer ours: %w",
			s.Resource, token, lease.ErrLeaseExpired))
	}
}

// fenced handles a write refused under token: a newer token wrote, so the
// holder stops believing in that lock and locks afresh. The unlock script
// deletes the key in case it is still ours (it cannot be, unless the
// server forgot its counter).
func (h *holder) fenced(resource string, token uint64, err error) {
	s := h.sessions[resource]
	if s == nil || s.Token != token || s.phase != phaseHeld {
		h.observe(lease.Event{Kind: lease.EventFenced, Resource: resource, Token: token, Err: err.Error()})
		return
	}
	believing := s.Believing
	h.unlock(s)
	h.retry(s)
	h.observe(lease.Event{Kind: lease.EventFenced, Resource: resource, Token: token, Err: err.Error()})
	if believing {
		s.Lost(token, err)
	}
}

// retry backs off, then attempts again: an exponential backoff from
// BackoffMin to BackoffMax, jittered to [d/2, d].
func (h *holder) retry(s *session) {
	if s.released {
		return
	}
	s.stop()
	s.phase, s.Token, s.value = phaseWaiting, 0, ""
	s.backoff = min(max(2*s.backoff, h.t.backoffMin), h.t.backoffMax)
	half := s.backoff / 2
	d := half + time.Duration(h.env.Rand.Int64N(int64(s.backoff-half)+1))
	s.wait = h.after(d, func() {
		if !s.released && s.phase == phaseWaiting {
			h.attempt(s)
		}
	})
}

// unlock sends the unlock script for the session's value, without waiting
// for the reply.
func (h *holder) unlock(s *session) {
	h.send(Command{Op: OpDelIfEqual, Key: lockKey(s.Resource), Value: s.value})
}
