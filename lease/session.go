package lease

import (
	"fmt"
	"slices"
	"time"
)

// sessionState is where a session is in its lifecycle.
type sessionState uint8

const (
	stateAcquiring sessionState = iota // trying to acquire, with backoff
	stateHeld                          // holding; renewing every RenewInterval
)

// session keeps one resource's lease for one holder until Release.
type session struct {
	resource string
	opts     AcquireOptions
	state    sessionState
	// epoch changes on every state transition. Each timer and reply
	// callback captures it and does nothing if it changed, so a stale
	// callback can never act on a newer state.
	epoch    uint64
	grant    Grant // valid in stateHeld
	deadline Timer // fires at grant.Deadline
	next     Timer // next acquire attempt or next renewal
	attempts int   // consecutive failed acquire attempts, for backoff
	jeopardy bool  // a renewal timed out in this episode
	ended    bool  // removed from holder.sessions (Release, giving up)

	// A session has at most one next and one deadline timer pending: each
	// is armed only by the previous one's outcome, and a transition stops
	// both. So their callbacks are bound once per session (onNext,
	// onDeadline) and read the epoch they were armed in from the session,
	// rather than being a closure per timer.
	nextRenew     bool   // the next timer renews (else it acquires)
	nextEpoch     uint64 // the epoch the next timer was armed in
	deadlineEpoch uint64 // the epoch the deadline timer was armed in
	onNext        func()
	onDeadline    func()
}

// newSession returns a session for resource with its timer callbacks bound.
func (h *holder) newSession(resource string, opts AcquireOptions) *session {
	s := &session{resource: resource, opts: opts}
	s.onNext = func() { h.nextFired(s) }
	s.onDeadline = func() { h.deadlineFired(s) }
	return s
}

// armNext arms the next timer: a renewal if renew, else an acquire attempt.
func (h *holder) armNext(s *session, d time.Duration, renew bool) {
	s.nextRenew, s.nextEpoch = renew, s.epoch
	s.next = h.env.afterFunc(d, s.onNext)
}

// nextFired runs the next timer's action unless the session moved on.
func (h *holder) nextFired(s *session) {
	if !h.current(s, s.nextEpoch) {
		return
	}
	if s.nextRenew {
		h.renew(s)
		return
	}
	h.tryAcquire(s)
}

// current reports whether a callback captured at epoch may still act on s:
// s is still the session of its resource (a session is in h.sessions from
// Acquire until end, so ended says it without hashing the resource) and
// has not moved on since.
func (h *holder) current(s *session, epoch uint64) bool {
	return !s.ended && s.epoch == epoch
}

// transition moves s to state, invalidating every pending callback.
func (s *session) transition(state sessionState) {
	s.state = state
	s.epoch++
	s.jeopardy = false
	stopTimer(s.deadline)
	stopTimer(s.next)
}

// end removes s; every pending callback becomes stale.
func (h *holder) end(s *session) {
	s.transition(stateAcquiring)
	s.ended = true
	delete(h.sessions, s.resource)
}

// tryAcquire sends one acquire attempt.
func (h *holder) tryAcquire(s *session) {
	p := h.newPending(forAcquire, s)
	h.request(h.grantorAddr, Message{Kind: KindAcquire, Resource: s.resource, TTL: h.cfg.TTL, Keys: s.opts.Keys}, &p)
}

// onAcquireReply holds the lease, retries, or gives up.
func (h *holder) onAcquireReply(s *session, epoch uint64, r Message) {
	if !h.current(s, epoch) {
		if r.Err == CodeOK && h.sessions[s.resource] == nil {
			h.sendRelease(s.resource, r.Token) // released while acquiring
		}
		return
	}
	switch r.Err {
	case CodeOK:
		deadline := h.deadlineFor(r)
		if h.env.now() >= deadline {
			h.retryAcquire(s) // a grant that arrived too late to believe
			return
		}
		h.hold(s, r, deadline)
	case CodeTTLOutOfRange, CodeBadRequest, CodeTokenExhausted, CodeInvalidConfig:
		h.giveUp(s, fmt.Errorf("acquire %q: %w", s.resource, r.Err.Err()))
	case CodeHeld, CodeGrace:
		h.retryAcquireWithin(s, r.Remaining)
	default:
		h.retryAcquire(s)
	}
}

// retryAcquire schedules the next acquire attempt after a jittered backoff.
func (h *holder) retryAcquire(s *session) { h.retryAcquireWithin(s, 0) }

// retryAcquireWithin schedules the next acquire attempt after a jittered
// backoff, or sooner: just after remaining (the time the grantor said the
// current lease or its grace period has left, if positive), plus a jitter of
// up to BackoffMin so that waiting holders do not all arrive at once. A
// holder thus takes over an expired lease promptly without polling faster.
func (h *holder) retryAcquireWithin(s *session, remaining time.Duration) {
	d := h.jitter(backoff(h.cfg.BackoffMin, h.cfg.BackoffMax, s.attempts))
	if remaining > 0 {
		d = min(d, remaining+time.Duration(h.env.Rand.Int64N(int64(h.cfg.BackoffMin)+1)))
	}
	s.attempts++
	h.armNext(s, d, false)
}

// giveUp ends a session whose acquire can never succeed.
func (h *holder) giveUp(s *session, err error) {
	h.end(s)
	if s.opts.OnLost != nil {
		s.opts.OnLost(s.resource, 0, err)
	}
}

// hold starts believing: it arms the deadline and the first renewal.
func (h *holder) hold(s *session, r Message, deadline time.Duration) {
	s.transition(stateHeld)
	s.attempts = 0
	s.grant = Grant{
		Resource:        s.resource,
		Token:           r.Token,
		TTL:             r.TTL,
		Deadline:        deadline,
		State:           r.State, // a message's slices are never modified; Valid and OnGrant hand out copies
		CheckpointToken: r.CheckpointToken,
	}
	h.armDeadline(s)
	h.scheduleRenew(s, r.SentAt+h.cfg.RenewInterval-h.env.now())
	h.env.observe(Event{Kind: EventGrant, Resource: s.resource, Token: r.Token, Deadline: deadline})
	if s.opts.OnGrant != nil {
		g := s.grant
		g.State = slices.Clone(g.State)
		s.opts.OnGrant(g) // last: the callback may release
	}
}

// armDeadline sets a timer at the grant's deadline. Renewals move the
// deadline later without touching the timer; it re-arms when it fires early.
func (h *holder) armDeadline(s *session) {
	s.deadlineEpoch = s.epoch
	s.deadline = h.env.afterFunc(s.grant.Deadline-h.env.now(), s.onDeadline)
}

// deadlineFired ends belief at the deadline, or re-arms if renewals moved it.
func (h *holder) deadlineFired(s *session) {
	if !h.current(s, s.deadlineEpoch) {
		return
	}
	if h.env.now() < s.grant.Deadline {
		h.armDeadline(s)
		return
	}
	h.lose(s, EventLost, fmt.Errorf("lease on %q, token %d: deadline passed: %w",
		s.resource, s.grant.Token, ErrLeaseExpired))
}

// lose stops believing, reports kind (EventLost or EventFenced), and goes
// back to acquiring.
func (h *holder) lose(s *session, kind EventKind, err error) {
	token, deadline := s.grant.Token, s.grant.Deadline
	s.transition(stateAcquiring)
	h.env.observe(Event{Kind: kind, Resource: s.resource, Token: token, Deadline: deadline, Err: err.Error()})
	h.retryAcquire(s)
	if s.opts.OnLost != nil {
		s.opts.OnLost(s.resource, token, err) // last: the callback may release
	}
}

// stopTimer stops t if there is one.
func stopTimer(t Timer) {
	if t != nil {
		t.Stop()
	}
}
