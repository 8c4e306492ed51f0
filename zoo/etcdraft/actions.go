package etcdraft

import (
	"fmt"
	"slices"

	"github.com/leasesim/leasesim/lease"
)

// writeCall is a write to the fenced store awaiting its reply.
type writeCall struct {
	resource, key string
	token         uint64
	timer         lease.Timer
	done          func(error)
}

// Write writes key=value to the fenced store under the key's create
// revision. A refusal ends the holder's belief (fenced).
func (h *holder) Write(resource, key string, value []byte, done func(error)) {
	if done == nil {
		done = func(error) {}
	}
	g, ok := h.Valid(resource)
	if !ok {
		done(fmt.Errorf("write %q on %q: %w", key, resource, lease.ErrLeaseExpired))
		return
	}
	w := &writeCall{resource: resource, key: key, token: g.Token, done: done}
	m := lease.Message{Kind: lease.KindWrite, ReqID: h.nextID(), Client: h.env.Self, Resource: resource,
		Token: g.Token, Key: key, Value: slices.Clone(value)}
	send := func() {
		m.SentAt = h.env.Clock.Now()
		h.writes[m.ReqID] = w
		w.timer = h.after(h.cfg.RequestTimeout, func() { h.writeTimedOut(m.ReqID) })
		h.env.Net.Send(h.store, m)
	}
	if h.env.Failpoint == nil {
		send()
		return
	}
	h.env.Failpoint(lease.FailpointBeforeWrite, send)
}

// written hands the fenced store's reply to the write that awaits it.
func (h *holder) written(m lease.Message) {
	w := h.writes[m.ReqID]
	if w == nil {
		return
	}
	delete(h.writes, m.ReqID)
	w.timer.Stop()
	if m.Err == lease.CodeOK {
		w.done(nil)
		return
	}
	err := fmt.Errorf("write %q on %q, token %d: %w", w.key, w.resource, w.token, m.Err.Err())
	if m.Err == lease.CodeFenced {
		h.fenced(w.resource, w.token, err)
	}
	w.done(err)
}

// writeTimedOut gives up on write id if its reply has not come.
func (h *holder) writeTimedOut(id uint64) {
	w := h.writes[id]
	if w == nil {
		return
	}
	delete(h.writes, id)
	w.done(fmt.Errorf("write %q on %q, token %d: %w", w.key, w.resource, w.token, lease.ErrTimeout))
}

// Checkpoint is not supported: a lease carries no state in this store.
func (h *holder) Checkpoint(resource string, _ []byte, done func(error)) {
	if done != nil {
		done(fmt.Errorf("checkpoint %q: checkpoints of task state are not supported: %w", resource, lease.ErrBadRequest))
	}
}

// SideEffect performs an unfenced side effect at the store: fire and
// forget, no token.
func (h *holder) SideEffect(resource, id string) {
	h.env.Net.Send(h.store, lease.Message{Kind: lease.KindEffect, Resource: resource, Key: id, Client: h.env.Self})
}
