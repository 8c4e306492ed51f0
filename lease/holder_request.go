package lease

import "time"

// reqPurpose says what a request is for, and so what its reply or its
// timeout does. A pending request carries its purpose and data instead of
// closures, so that a request costs no allocation in the steady state.
type reqPurpose uint8

const (
	forAcquire    reqPurpose = iota + 1 // reply: onAcquireReply; timeout: retry
	forRenew                            // reply: onRenewReply; timeout: onRenewTimeout
	forWrite                            // done gets the write's outcome
	forCheckpoint                       // done gets the checkpoint's outcome
)

// pending is a request waiting for its reply. Pendings are recycled
// through holder.free once their timer can no longer fire.
type pending struct {
	reqContext        // what the reply or the timeout acts on
	kind       Kind   // the reply kind expected
	id         uint64 // the request's ReqID once it is sent
	timer      Timer

	// Where the request goes, and the request itself while a failpoint
	// may delay its send (write and checkpoint).
	to Addr
	m  Message

	// Bound once per pending, so that arming a timer or passing the send
	// to a failpoint allocates nothing.
	onTimer func()
	onSend  func()
}

// reqContext is what a reply or a timeout acts on. The handler gets a copy
// of it, because the pending may be reused by what the handler sends.
type reqContext struct {
	h       *holder
	purpose reqPurpose

	s     *session // acquire, renew: the session and its epoch when sent
	epoch uint64

	resource string        // write, checkpoint: what acts under token
	token    uint64        // write, checkpoint
	key      string        // write
	start    time.Duration // checkpoint: when it left
	done     func(error)   // write, checkpoint
}

// newPending returns a cleared pending for purpose, recycled if one is free.
func (h *holder) newPending(purpose reqPurpose) *pending {
	var p *pending
	if n := len(h.free); n > 0 {
		p = h.free[n-1]
		h.free[n-1] = nil
		h.free = h.free[:n-1]
	} else {
		p = &pending{reqContext: reqContext{h: h}}
		p.onTimer = p.timedOut
		p.onSend = p.send
	}
	p.purpose = purpose
	return p
}

// recycle clears p and keeps it for a later request. Only a pending whose
// timer can no longer fire may be recycled: its callback would otherwise
// find p registered under a newer request. The spent timer stays, for the
// clock to arm again (TimerRecycler), and so do the bound callbacks; the
// request itself was cleared when it was sent.
func (h *holder) recycle(p *pending) {
	p.reqContext = reqContext{h: h}
	p.kind, p.id, p.to = KindNone, 0, ""
	h.free = append(h.free, p)
}

// maxFreePendings bounds the free list beyond one pending per session (a
// session has one acquire or renewal in flight at a time): a worker that
// contends for every task of a backlog of hundreds keeps as many requests
// in flight, and with a fixed bound of 64 it dropped most of its pendings
// (and their timers) after each round, to allocate them again for the
// next: a quarter of a backlogged 6-hour run's allocations.
const maxFreePendings = 64

// request sends m to the node at to now. The reply or the timeout is
// handled according to p's purpose.
func (h *holder) request(to Addr, m Message, p *pending) {
	p.to = to
	p.sendMessage(m)
}

// send sends the request a failpoint held back (p.m) to p.to.
func (p *pending) send() {
	m := p.m
	p.m = Message{}
	p.sendMessage(m)
}

// sendMessage stamps m with a fresh ReqID, the client's address and the
// send time, registers it, arms its timeout (RequestTimeout) and sends it.
// Exactly one of the reply handler or the timeout handler runs later.
func (p *pending) sendMessage(m Message) {
	h := p.h
	if p.purpose == forCheckpoint {
		p.start = h.env.now()
	}
	m = h.stamp(m)
	if p.id != 0 { // the set orders by p.id: a registered id must never change
		violated("pending-sent-once", "request %#x re-sent as %#x", p.id, m.ReqID)
	}
	p.kind = m.Kind.Reply()
	p.id = m.ReqID
	h.pending.add(p)
	p.timer = h.env.afterFunc(p.timer, h.cfg.RequestTimeout, p.onTimer)
	h.env.send(p.to, m)
}

// timedOut runs when no reply came within RequestTimeout.
func (p *pending) timedOut() {
	h := p.h
	if !h.pending.remove(p) {
		return
	}
	q := p.reqContext // the timer has fired: p may be reused by what the handler sends
	h.release(p)
	q.onTimeout()
}

// replied hands the reply r to p's handler. Deliver has unregistered p.
func (h *holder) replied(p *pending, r Message) {
	q := p.reqContext
	if p.timer.Stop() {
		h.release(p) // the timer will never fire: p may be reused
	}
	q.onReply(r)
}

// release recycles p unless the free list is full.
func (h *holder) release(p *pending) {
	if len(h.free) < maxFreePendings+len(h.sessions) {
		h.recycle(p)
	}
}

// onReply dispatches a reply by the request's purpose. q is a copy of the
// pending's context: the pending may already be reused.
func (q *reqContext) onReply(r Message) {
	h := q.h
	switch q.purpose {
	case forAcquire:
		h.onAcquireReply(q.s, q.epoch, r)
	case forRenew:
		if h.current(q.s, q.epoch) {
			h.onRenewReply(q.s, r)
		}
	case forWrite:
		q.done(h.outcome(writeRejected, q.resource, q.token, r))
	case forCheckpoint:
		if r.Err != CodeOK {
			q.done(h.outcome(checkpointRejected, q.resource, q.token, r))
			return
		}
		h.env.observe(Event{Kind: EventCheckpoint, Resource: q.resource, Token: q.token,
			Duration: h.env.now() - q.start})
		q.done(nil)
	}
}

// onTimeout dispatches a timeout by the request's purpose.
func (q *reqContext) onTimeout() {
	h := q.h
	switch q.purpose {
	case forAcquire:
		if h.current(q.s, q.epoch) {
			h.retryAcquire(q.s)
		}
	case forRenew:
		if h.current(q.s, q.epoch) {
			h.onRenewTimeout(q.s)
		}
	case forWrite:
		q.done(&actionError{shape: writeTimedOut, key: q.key, resource: q.resource, token: q.token, err: ErrTimeout})
	case forCheckpoint:
		q.done(&actionError{shape: checkpointTimedOut, resource: q.resource, token: q.token, err: ErrTimeout})
	}
}

// stamp sets the ReqID, Client and SentAt of an outgoing request.
func (h *holder) stamp(m Message) Message {
	m.ReqID = h.nextReqID()
	m.Client = h.env.Self
	m.SentAt = h.env.now()
	return m
}

// nextReqID returns a request id that is larger than every earlier one of
// this holder, across restarts: epoch in the high half, a counter below.
func (h *holder) nextReqID() uint64 {
	h.seq++
	if h.seq == 0 {
		// 2^32 requests in one incarnation: start a new one. If it cannot
		// be persisted, ids would repeat, which breaks checkpoint order.
		if err := h.nextEpoch(); err != nil {
			violated("request-ids-increase", "%v", err)
		}
		h.seq = 1
	}
	return requestID(h.epoch, h.seq)
}

// sendRelease tells the grantor to release token, without waiting.
func (h *holder) sendRelease(resource string, token uint64) {
	h.env.send(h.grantorAddr, h.stamp(Message{Kind: KindRelease, Resource: resource, Token: token}))
}
