package redislock

import "time"

// call is a command of a session awaiting its reply.
type call struct {
	s         *session
	op        Op
	sentAt    time.Duration // the holder's reading when it sent the command
	onReply   func(r Reply, sentAt time.Duration)
	onTimeout func()
}

// send sends cmd to the server with a fresh id and returns the id.
func (h *holder) send(cmd Command) uint64 {
	cmd.ID, cmd.Client = h.ids.Next(), string(h.env.Self)
	h.net.SendAny(h.server, cmd)
	return cmd.ID
}

// call sends cmd for session s and arranges for exactly one of onReply
// (with the send time) or onTimeout to run, after RequestTimeout at the
// latest, unless the session moves on first: a reply or a timeout that
// finds another request in flight, or none, is ignored.
func (h *holder) call(s *session, cmd Command, onReply func(Reply, time.Duration), onTimeout func()) {
	c := &call{s: s, op: cmd.Op, sentAt: h.env.Clock.Now(), onReply: onReply, onTimeout: onTimeout}
	id := h.send(cmd)
	s.inflight = id
	h.calls.Add(id, c)
}

// replied hands a server reply to the call that awaits it.
func (h *holder) replied(r Reply) {
	c, ok := h.calls.Get(r.ID)
	if !ok || c.op != r.Op {
		return // a duplicate, a late reply, or the reply to an unlock nobody awaits
	}
	h.calls.Take(r.ID)
	if c.s.released || c.s.inflight != r.ID {
		return
	}
	c.s.inflight = 0
	c.onReply(r, c.sentAt)
}

// timedOut gives up on the call c, sent as id, whose reply has not come.
func (h *holder) timedOut(id uint64, c *call) {
	if c.s.released || c.s.inflight != id {
		return
	}
	c.s.inflight = 0
	c.onTimeout()
}
