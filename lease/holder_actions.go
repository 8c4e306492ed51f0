package lease

import "slices"

// Write writes key=value to the fenced resource under the lease's token.
func (h *holder) Write(resource, key string, value []byte, done func(error)) {
	done = orNop(done)
	g, ok := h.valid(resource)
	if !ok {
		done(&actionError{shape: writeNotHeld, key: key, resource: resource, err: ErrLeaseExpired})
		return
	}
	h.waitAtFailpoint(FailpointBeforeWrite, forWrite, action{resource: resource, token: g.Token, key: key, done: done,
		body: slices.Clone(value)}) // the message carries it away: the caller may change value
}

// Checkpoint stores state at the grantor under the lease's token.
func (h *holder) Checkpoint(resource string, state []byte, done func(error)) {
	done = orNop(done)
	g, ok := h.valid(resource)
	if !ok {
		done(&actionError{shape: checkpointNotHeld, resource: resource, err: ErrLeaseExpired})
		return
	}
	h.waitAtFailpoint(FailpointBeforeCheckpoint, forCheckpoint, action{resource: resource, token: g.Token, done: done,
		body: slices.Clone(state)})
}

// SideEffect sends an unfenced side effect to the resource node.
func (h *holder) SideEffect(resource, id string) {
	h.env.send(h.resourceAddr, Message{Kind: KindEffect, Resource: resource, Key: id, Client: h.env.Self})
}

// outcome turns the reply to an action taken under a token into its error.
// On ErrFenced the holder stops acting on that lease before the caller
// hears of it.
func (h *holder) outcome(shape actionShape, resource string, token uint64, r Message) error {
	if r.Err == CodeOK {
		return nil
	}
	err := &actionError{shape: shape, resource: resource, token: token, err: r.Err.Err()}
	if r.Err == CodeFenced {
		h.fenced(resource, token, err)
	}
	return err
}

// fenced reacts to a rejection of token: if that is the lease held now, the
// holder drops it and goes back to acquiring.
func (h *holder) fenced(resource string, token uint64, err error) {
	s := h.sessions[resource]
	if s != nil && s.state == stateHeld && s.grant.Token == token {
		h.lose(s, EventFenced, err)
		return
	}
	h.env.observe(Event{Kind: EventFenced, Resource: resource, Token: token, Err: err.Error()})
}

// orNop returns done, or a function that does nothing if done is nil.
func orNop(done func(error)) func(error) {
	if done == nil {
		return func(error) {}
	}
	return done
}

// Read reads key from the fenced resource under the lease's token.
func (h *holder) Read(resource, key string, done func(value []byte, token uint64, err error)) {
	if done == nil {
		done = func([]byte, uint64, error) {}
	}
	g, ok := h.valid(resource)
	if !ok {
		done(nil, 0, &actionError{shape: readNotHeld, key: key, resource: resource, err: ErrLeaseExpired})
		return
	}
	p := pending{reqContext: reqContext{h: h, purpose: forRead,
		act: action{resource: resource, token: g.Token, key: key, read: done}}}
	p.to = h.resourceAddr
	p.sendMessage(Message{Kind: KindRead, Resource: resource, Key: key, Token: g.Token})
}

// onReadReply hands a read's value to its caller. A value written under a
// later token than the read's shows that the lease has moved on: the read
// is fenced, like a write the store refused.
func (h *holder) onReadReply(act *action, r Message) {
	switch {
	case r.Err != CodeOK:
		act.read(nil, 0, h.outcome(readRejected, act.resource, act.token, r))
	case r.Token > act.token:
		err := &actionError{shape: readFenced, key: act.key, resource: act.resource, token: act.token,
			wrote: r.Token, err: ErrFenced}
		h.fenced(act.resource, act.token, err)
		act.read(nil, 0, err)
	default:
		act.read(slices.Clone(r.Value), r.Token, nil)
	}
}
