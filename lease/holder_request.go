package lease

import "time"

// reqPurpose says what a request is for, and so what its reply or its
// timeout does. A pending request carries its purpose and data instead of
// closures.
type reqPurpose uint8

const (
	forAcquire    reqPurpose = iota + 1 // reply: onAcquireReply; timeout: retry
	forRenew                            // reply: onRenewReply; timeout: onRenewTimeout
	forWrite                            // done gets the write's outcome
	forCheckpoint                       // done gets the checkpoint's outcome
	forRead                             // read gets the value and the token that wrote it
)

// pending is a request waiting for its reply.
type pending struct {
	reqContext               // what the reply or the timeout acts on
	kind       Kind          // the reply kind expected
	id         uint64        // the request's ReqID once it is sent
	deadline   time.Duration // when it times out, on the holder's clock
	timer      Timer
	to         Addr // where the request goes
}

// reqContext is what a reply or a timeout acts on.
type reqContext struct {
	h       *holder
	purpose reqPurpose

	s     *session // acquire, renew: the session and its epoch when sent
	epoch uint64

	act   action        // write, checkpoint, read; zero for acquire and renew
	start time.Duration // checkpoint: when it left
}

// action is what a write, a checkpoint or a read acts under, and who hears
// of its outcome. It is kept by value: by the holder's queue of actions
// waiting at their failpoints until it is sent (holder_held.go), then by
// its pending (the set keeps pendings by value), so a request allocates
// nothing of its own.
type action struct {
	resource string // what acts under token
	token    uint64
	key      string // write, read
	done     func(error)
	read     func([]byte, uint64, error) // a read's done
	body     []byte                      // the value or state, until it is sent (sendHeld)
}

// newPending returns a pending for purpose, acquire or renew, of session s
// in its current epoch: a value, which the set keeps once it is sent.
func (h *holder) newPending(purpose reqPurpose, s *session) pending {
	return pending{reqContext: reqContext{h: h, purpose: purpose, s: s, epoch: s.epoch}}
}

// request sends m to the node at to now. The reply or the timeout is
// handled according to p's purpose.
func (h *holder) request(to Addr, m Message, p *pending) {
	p.to = to
	p.sendMessage(m)
}

// sendHeld sends the write or checkpoint (purpose) that a failpoint may
// have held back, built from act and its body.
func (h *holder) sendHeld(purpose reqPurpose, act action) {
	p := pending{reqContext: reqContext{h: h, purpose: purpose, act: act}}
	m := Message{Resource: act.resource, Token: act.token}
	if purpose == forWrite {
		m.Kind, m.Key, m.Value = KindWrite, act.key, act.body
		p.to = h.resourceAddr
	} else {
		m.Kind, m.State = KindCheckpoint, act.body
		p.to = h.grantorAddr
	}
	p.act.body = nil // the message carries it; the pending need not keep it
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
	p.deadline = h.env.now() + h.cfg.RequestTimeout
	p.timer = h.env.afterFunc(h.cfg.RequestTimeout, h.onTimer)
	h.pending.add(*p)
	h.env.send(p.to, m)
}

// expireRequests runs when a request's timer fires: every request whose
// RequestTimeout has passed without a reply times out, oldest first. One
// callback, bound once per holder, serves every request's timer (a method
// value per request was most of what a run allocated). Requests are sent
// with one timeout, so the set, in send order, is in deadline order too; a
// request a timeout sends lies in the future.
func (h *holder) expireRequests() {
	now := h.env.now()
	for p, ok := h.pending.takeExpired(now); ok; p, ok = h.pending.takeExpired(now) {
		p.onTimeout()
	}
}

// replied hands the reply r to p's handler. Deliver has unregistered p.
func (h *holder) replied(p pending, r Message) {
	p.timer.Stop()
	p.onReply(r)
}

// onReply dispatches a reply by the request's purpose.
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
		q.act.done(h.outcome(writeRejected, q.act.resource, q.act.token, r))
	case forRead:
		h.onReadReply(&q.act, r)
	case forCheckpoint:
		if r.Err != CodeOK {
			q.act.done(h.outcome(checkpointRejected, q.act.resource, q.act.token, r))
			return
		}
		h.env.observe(Event{Kind: EventCheckpoint, Resource: q.act.resource, Token: q.act.token,
			Duration: h.env.now() - q.start})
		q.act.done(nil)
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
		q.act.done(&actionError{shape: writeTimedOut, key: q.act.key, resource: q.act.resource, token: q.act.token, err: ErrTimeout})
	case forRead:
		q.act.read(nil, 0, &actionError{shape: readTimedOut, key: q.act.key, resource: q.act.resource, token: q.act.token, err: ErrTimeout})
	case forCheckpoint:
		q.act.done(&actionError{shape: checkpointTimedOut, resource: q.act.resource, token: q.act.token, err: ErrTimeout})
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
