package lease

import (
	"fmt"
	"time"
)

// scheduleRenew sends the next renewal after d (at once if d <= 0).
func (h *holder) scheduleRenew(s *session, d time.Duration) {
	h.armNext(s, max(d, 0), true)
}

// renew sends one renewal. Only one is in flight at a time: the next is
// scheduled when this one's outcome is known.
func (h *holder) renew(s *session) {
	p := h.newPending(forRenew, s)
	h.request(h.grantorAddr, Message{Kind: KindRenew, Resource: s.resource, Token: s.grant.Token}, &p)
}

// deadlineFor returns the deadline that r, a reply granting or renewing a
// lease, gives: the holder's validity counted from when it sent the
// request, whose send time the grantor echoes. It asserts where the
// deadline is produced that it never exceeds send time plus the granted
// TTL, and that the echoed send time is not in the holder's future (it
// is a reading of this incarnation's clock: replies to an earlier one
// match no pending request).
func (h *holder) deadlineFor(r Message) time.Duration {
	if now := h.env.now(); r.SentAt > now {
		violated("echoed-send-time-not-future", "resource %q: reply echoes send time %v, now %v", r.Resource, r.SentAt, now)
	}
	deadline := r.SentAt + h.cfg.HolderValidity(r.TTL)
	if deadline > r.SentAt+r.TTL {
		violated("deadline-within-ttl", "resource %q: deadline %v after send time %v plus TTL %v", r.Resource, deadline, r.SentAt, r.TTL)
	}
	return deadline
}

// onRenewReply extends the deadline, loses the lease, or retries.
func (h *holder) onRenewReply(s *session, r Message) {
	now := h.env.now()
	switch r.Err {
	case CodeOK:
		if now >= s.grant.Deadline {
			return // too late: belief may not be resurrected; the deadline timer ends it
		}
		s.grant.Deadline = max(s.grant.Deadline, h.deadlineFor(r))
		s.jeopardy = false
		h.env.observe(Event{Kind: EventRenew, Resource: s.resource, Token: s.grant.Token, Deadline: s.grant.Deadline})
		h.scheduleRenew(s, r.SentAt+h.cfg.RenewInterval-now)
	case CodeLeaseExpired, CodeFenced, CodeNotHolder:
		err := fmt.Errorf("renew %q, token %d: %w", s.resource, s.grant.Token, r.Err.Err())
		h.env.observe(Event{Kind: EventRenewFailed, Resource: s.resource, Token: s.grant.Token, Err: err.Error()})
		h.lose(s, EventLost, err)
	default:
		h.env.observe(Event{Kind: EventRenewFailed, Resource: s.resource, Token: s.grant.Token, Err: r.Err.String()})
		h.scheduleRenew(s, h.jitter(h.cfg.BackoffMin))
	}
}

// onRenewTimeout reports jeopardy (once per episode) and retries soon.
func (h *holder) onRenewTimeout(s *session) {
	h.env.observe(Event{Kind: EventRenewFailed, Resource: s.resource, Token: s.grant.Token, Err: ErrTimeout.Error()})
	if !s.jeopardy && h.env.now() < s.grant.Deadline {
		s.jeopardy = true
		h.env.observe(Event{Kind: EventJeopardy, Resource: s.resource, Token: s.grant.Token, Deadline: s.grant.Deadline})
	}
	h.scheduleRenew(s, h.jitter(h.cfg.BackoffMin))
}
