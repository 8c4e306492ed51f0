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
	p := h.newActionPending(forWrite)
	p.act.resource, p.act.token, p.act.key, p.act.done = resource, g.Token, key, done
	p.act.body = slices.Clone(value) // the message carries it away: the caller may change value
	h.env.failpoint(FailpointBeforeWrite, p.sendHeld)
}

// Checkpoint stores state at the grantor under the lease's token.
func (h *holder) Checkpoint(resource string, state []byte, done func(error)) {
	done = orNop(done)
	g, ok := h.valid(resource)
	if !ok {
		done(&actionError{shape: checkpointNotHeld, resource: resource, err: ErrLeaseExpired})
		return
	}
	p := h.newActionPending(forCheckpoint)
	p.act.resource, p.act.token, p.act.done = resource, g.Token, done
	p.act.body = slices.Clone(state)
	h.env.failpoint(FailpointBeforeCheckpoint, p.sendHeld)
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
