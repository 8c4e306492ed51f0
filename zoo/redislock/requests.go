package redislock

import (
	"fmt"
	"math"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// call is a command of a session awaiting its reply.
type call struct {
	s         *session
	op        Op
	sentAt    time.Duration // the holder's reading when it sent the command
	timer     lease.Timer
	onReply   func(r Reply, sentAt time.Duration)
	onTimeout func()
}

// nextID returns a request id never used before by this node: the boot in
// the high 32 bits, a counter in the low 32.
func (h *holder) nextID() uint64 {
	if h.seq == math.MaxUint32 {
		panic(fmt.Sprintf("redislock: invariant request-ids-left: boot %d used every id", h.boot))
	}
	h.seq++
	return h.boot<<32 | uint64(h.seq)
}

// send sends cmd to the server with a fresh id and returns the id.
func (h *holder) send(cmd Command) uint64 {
	cmd.ID, cmd.Client = h.nextID(), string(h.env.Self)
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
	h.calls[id] = c
	c.timer = h.after(h.t.requestTimeout, func() { h.timedOut(id) })
}

// replied hands a server reply to the call that awaits it.
func (h *holder) replied(r Reply) {
	c := h.calls[r.ID]
	if c == nil || c.op != r.Op {
		return // a duplicate, a late reply, or the reply to an unlock nobody awaits
	}
	delete(h.calls, r.ID)
	c.timer.Stop()
	if c.s.released || c.s.inflight != r.ID {
		return
	}
	c.s.inflight = 0
	c.onReply(r, c.sentAt)
}

// timedOut gives up on the call id if its reply has not come.
func (h *holder) timedOut(id uint64) {
	c := h.calls[id]
	if c == nil {
		return
	}
	delete(h.calls, id)
	if c.s.released || c.s.inflight != id {
		return
	}
	c.s.inflight = 0
	c.onTimeout()
}
