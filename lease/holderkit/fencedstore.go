package holderkit

import (
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// FencedStore is a holder's client of leasesim's fenced store: its
// writes, each under the token of the grant it believes in and awaiting
// the store's reply under a timeout, and its unfenced side effects. A
// holder embeds it for lease.Holder's Write and SideEffect and
// lease.Node's Deliver (the store's replies).
type FencedStore struct {
	env    lease.Env
	addr   lease.Addr
	ids    *RequestIDs
	valid  func(resource string) (lease.Grant, bool)
	fenced func(resource string, token uint64, err error)
	writes *Pending[*write]
}

// write is a write to the fenced store awaiting its reply.
type write struct {
	resource, key string
	token         uint64
	done          func(error)
}

// NewFencedStore returns the client of the fenced store at addr for the
// holder on env. Its writes draw their ids from ids and time out after
// timeout; valid is the holder's belief (lease.Holder's Valid), and fenced
// is told of each write the store refuses as stale, before the writer is.
func NewFencedStore(env lease.Env, addr lease.Addr, timeout time.Duration, ids *RequestIDs,
	valid func(resource string) (lease.Grant, bool), fenced func(resource string, token uint64, err error)) *FencedStore {
	s := &FencedStore{env: env, addr: addr, ids: ids, valid: valid, fenced: fenced}
	s.writes = NewPending(env.Clock, timeout, s.timedOut)
	return s
}

// Write writes key=value to the fenced store under the token of the grant
// the holder believes in for resource, and hands the outcome to done (nil
// for none): lease.ErrLeaseExpired at once without a belief, the store's
// refusal, or lease.ErrTimeout. The id is drawn before
// lease.FailpointBeforeWrite, the send after it.
func (s *FencedStore) Write(resource, key string, value []byte, done func(error)) {
	if done == nil {
		done = func(error) {}
	}
	g, ok := s.valid(resource)
	if !ok {
		done(fmt.Errorf("write %q on %q: %w", key, resource, lease.ErrLeaseExpired))
		return
	}
	w := &write{resource: resource, key: key, token: g.Token, done: done}
	m := lease.Message{Kind: lease.KindWrite, ReqID: s.ids.Next(), Client: s.env.Self, Resource: resource,
		Token: g.Token, Key: key, Value: slices.Clone(value)}
	send := func() {
		m.SentAt = s.env.Clock.Now()
		s.writes.Add(m.ReqID, w)
		s.env.Net.Send(s.addr, m)
	}
	if s.env.Failpoint == nil {
		send()
		return
	}
	s.env.Failpoint(lease.FailpointBeforeWrite, send)
}

// Deliver takes the store's messages to the holder: a reply
// (lease.KindWriteReply) goes to the write that awaits it, unless it is a
// duplicate or came after the timeout. A holder that embeds FencedStore
// gets it as its lease.Node's Deliver.
func (s *FencedStore) Deliver(_ lease.Addr, m lease.Message) {
	if m.Kind != lease.KindWriteReply {
		return
	}
	w, ok := s.writes.Take(m.ReqID)
	if !ok {
		return
	}
	if m.Err == lease.CodeOK {
		w.done(nil)
		return
	}
	err := fmt.Errorf("write %q on %q, token %d: %w", w.key, w.resource, w.token, m.Err.Err())
	if m.Err == lease.CodeFenced {
		s.fenced(w.resource, w.token, err)
	}
	w.done(err)
}

// timedOut gives up on a write whose reply has not come.
func (s *FencedStore) timedOut(_ uint64, w *write) {
	w.done(fmt.Errorf("write %q on %q, token %d: %w", w.key, w.resource, w.token, lease.ErrTimeout))
}

// SideEffect performs the unfenced side effect id on resource at the
// store: fire and forget, no token.
func (s *FencedStore) SideEffect(resource, id string) { SideEffect(s.env, s.addr, resource, id) }

// SideEffect sends the unfenced side effect id on resource from env's
// node to the fenced store at store: fire and forget, no token.
func SideEffect(env lease.Env, store lease.Addr, resource, id string) {
	env.Net.Send(store, lease.Message{Kind: lease.KindEffect, Resource: resource, Key: id, Client: env.Self})
}
