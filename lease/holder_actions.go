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
	p := h.newPending(forWrite)
	p.resource, p.token, p.key, p.done = resource, g.Token, key, done
	m := Message{Kind: KindWrite, Resource: resource, Token: g.Token, Key: key, Value: slices.Clone(value)}
	h.env.failpoint(FailpointBeforeWrite, func() { h.request(h.resourceAddr, m, p) })
}

// Checkpoint stores state at the grantor under the lease's token.
func (h *holder) Checkpoint(resource string, state []byte, done func(error)) {
	done = orNop(done)
	g, ok := h.valid(resource)
	if !ok {
		done(&actionError{shape: checkpointNotHeld, resource: resource, err: ErrLeaseExpired})
		return
	}
	p := h.newPending(forCheckpoint)
	p.resource, p.token, p.done = resource, g.Token, done
	m := Message{Kind: KindCheckpoint, Resource: resource, Token: g.Token, State: slices.Clone(state)}
	h.env.failpoint(FailpointBeforeCheckpoint, func() { h.request(h.grantorAddr, m, p) })
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
