package etcdraft

import "time"

// maxRedirects bounds how many times one call follows a redirect at once.
const maxRedirects = 2

// call is a request of a session awaiting its reply.
type call struct {
	s         *session
	req       Request
	sentAt    time.Duration // the holder's reading when it sent the request (last)
	redirects int
	onReply   func(r Reply, sentAt time.Duration)
	onTimeout func()
}

// send sends req to the member believed to lead, with a fresh id, and
// returns the id.
func (h *holder) send(req Request) uint64 {
	req.ID, req.Client = h.ids.Next(), string(h.env.Self)
	h.net.SendAny(h.members[h.target], req)
	return req.ID
}

// call sends req for session s and arranges for exactly one of onReply
// (with the send time) or onTimeout to run, unless the session moves on
// first. A redirect to a known leader is followed at once (up to
// maxRedirects); a member that knows no leader, or a timeout, moves the
// holder on to the next member.
func (h *holder) call(s *session, req Request, onReply func(Reply, time.Duration), onTimeout func()) {
	h.issue(&call{s: s, req: req, onReply: onReply, onTimeout: onTimeout})
}

func (h *holder) issue(c *call) {
	c.sentAt = h.env.Clock.Now()
	id := h.send(c.req)
	c.s.inflight = id
	h.calls.Add(id, c)
}

// replied hands a member's reply to the call that awaits it.
func (h *holder) replied(r Reply) {
	c, ok := h.calls.Get(r.ID)
	if !ok || c.req.Op != r.Op {
		return // a duplicate or a late reply
	}
	h.calls.Take(r.ID)
	if c.s.released || c.s.inflight != r.ID {
		return
	}
	c.s.inflight = 0
	if r.Err == ErrNotLeader && h.followLeader(r.Leader, &c.redirects) {
		h.issue(c)
		return
	}
	c.onReply(r, c.sentAt)
	h.keepAliveIfDue(c.s)
}

// timedOut gives up on the call c, sent as id, whose reply has not come,
// and moves on to the next member.
func (h *holder) timedOut(id uint64, c *call) {
	if c.s.released || c.s.inflight != id {
		return
	}
	c.s.inflight = 0
	h.nextMember()
	c.onTimeout()
	h.keepAliveIfDue(c.s)
}

// keepAliveIfDue sends a keepalive deferred while another request was in
// flight.
func (h *holder) keepAliveIfDue(s *session) {
	if s.kaDue && s.inflight == 0 && s.lease != 0 && !s.released {
		h.keepAlive(s)
	}
}

// followLeader takes a member's "not leader" answer naming leader: it
// aims the holder at that member and reports true, counting the redirect
// in *redirects (nil: no limit) while they stay under maxRedirects; when the
// answer names no member it moves on to the next one, and reports false.
func (h *holder) followLeader(leader string, redirects *int) bool {
	i := h.memberIndex(leader)
	if i < 0 {
		h.nextMember()
		return false
	}
	if redirects != nil {
		if *redirects >= maxRedirects {
			return false
		}
		*redirects++
	}
	h.target = i
	return true
}

// nextMember aims the holder at the next member.
func (h *holder) nextMember() { h.target = (h.target + 1) % len(h.members) }

// memberIndex returns the index of the member at addr, or -1.
func (h *holder) memberIndex(addr string) int {
	for i, m := range h.members {
		if string(m) == addr {
			return i
		}
	}
	return -1
}

// revokeCall is a revoke the holder sends again, as the same request,
// until a member answers it or the lease would have expired anyway.
type revokeCall struct {
	req   Request
	until time.Duration // the holder's reading after which it stops trying
}

// revoke revokes lease id, which deletes the keys attached to it. The
// request is sent again (with the same id) to the next member when no
// member answers it, or to the leader a member names: a revoke whose
// proposer crashed after it committed is then answered by the next leader
// (not found), so the history shows it, not only its effect (a key gone
// inside its lease's window). The holder does not wait for it.
func (h *holder) revoke(id int64) {
	req := Request{Op: OpRevoke, Lease: id, Client: string(h.env.Self), ID: h.ids.Next()}
	h.sendRevoke(&revokeCall{req: req, until: h.env.Clock.Now() + h.cfg.TTL})
}

func (h *holder) sendRevoke(c *revokeCall) {
	h.revokes.Add(c.req.ID, c)
	h.net.SendAny(h.members[h.target], c.req)
}

// revokeReplied takes a member's answer to a revoke: a redirect sends it
// again, to the leader named or (after a backoff) to the next member.
func (h *holder) revokeReplied(r Reply) {
	c, ok := h.revokes.Take(r.ID)
	if !ok || r.Err != ErrNotLeader || h.env.Clock.Now() >= c.until {
		return
	}
	if h.followLeader(r.Leader, nil) {
		h.sendRevoke(c)
		return
	}
	h.after(h.cfg.BackoffMin, func() { h.sendRevoke(c) })
}

// revokeTimedOut sends a revoke no member answered to the next member.
func (h *holder) revokeTimedOut(_ uint64, c *revokeCall) {
	h.nextMember()
	if h.env.Clock.Now() < c.until {
		h.sendRevoke(c)
	}
}
