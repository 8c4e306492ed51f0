package lease

// pending is a request waiting for its reply.
type pending struct {
	kind      Kind // the reply kind expected
	timer     Timer
	onReply   func(Message)
	onTimeout func()
}

// request sends m to the node at to and calls exactly one of onReply (the
// reply arrived) or onTimeout (none within RequestTimeout). It stamps m with
// a fresh ReqID, the client's address and the send time.
func (h *holder) request(to Addr, m Message, onReply func(Message), onTimeout func()) {
	m = h.stamp(m)
	p := &pending{kind: m.Kind.Reply(), onReply: onReply, onTimeout: onTimeout}
	id := m.ReqID
	h.pending[id] = p
	p.timer = h.env.Clock.AfterFunc(h.cfg.RequestTimeout, func() {
		if h.pending[id] != p {
			return
		}
		delete(h.pending, id)
		p.onTimeout()
	})
	h.env.send(to, m)
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
		err := h.nextEpoch()
		invariant(err == nil, "request-ids-increase", "%v", err)
		h.seq = 1
	}
	return requestID(h.epoch, h.seq)
}

// sendRelease tells the grantor to release token, without waiting.
func (h *holder) sendRelease(resource string, token uint64) {
	h.env.send(h.grantorAddr, h.stamp(Message{Kind: KindRelease, Resource: resource, Token: token}))
}
