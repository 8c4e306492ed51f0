package k8slease

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/holderkit"
)

// holder is a candidate process: one leader elector per resource it
// contends for, talking to the API server in this package's own protocol,
// and a client of the harness's fenced store for the work it does while
// it leads.
type holder struct {
	env lease.Env
	t   Timing
	// noRenewTimeout is client-go's renew loop before PR #65094: see
	// Mutant.
	noRenewTimeout bool
	server, store  lease.Addr
	// incarnation is this boot of the node, from a durable counter: the
	// holder identity's second half and the high bits of request ids.
	incarnation uint64
	seq         uint32
	electors    map[string]*elector // by resource; looked up, iterated only in sorted order
	pending     map[uint64]*pending // requests awaiting a reply, by id; looked up, never iterated
}

// pending is a request awaiting its reply: an API call or a write.
type pending struct {
	timer   lease.Timer
	onReply func(*response, error)     // API calls
	onWrite func(lease.Message, error) // writes to the fenced store
	write   lease.Message              // writes: the message sent, whose SentAt the reply echoes
}

// newHolder boots a candidate on env: a new incarnation after every
// restart.
func newHolder(env lease.Env, cfg lease.Config, server, store lease.Addr, noRenewTimeout bool) (*holder, error) {
	t, err := TimingFor(cfg)
	if err != nil {
		return nil, err
	}
	if env.Self == "" || env.Clock == nil || env.Net == nil || env.Store == nil || env.Rand == nil {
		return nil, fmt.Errorf("k8slease holder: env needs Self, Clock, Net, Store and Rand: %w", lease.ErrInvalidConfig)
	}
	if _, ok := env.Net.(lease.AnyTransport); !ok {
		return nil, fmt.Errorf("k8slease holder: env.Net %T cannot send this protocol's messages (lease.AnyTransport): %w",
			env.Net, lease.ErrInvalidConfig)
	}
	boot, err := nextBoot(env.Store)
	if err != nil {
		return nil, err
	}
	return &holder{env: env, t: t, noRenewTimeout: noRenewTimeout, server: server, store: store,
		incarnation: boot, electors: make(map[string]*elector), pending: make(map[uint64]*pending)}, nil
}

// nextBoot returns this boot's number (0 for the first) and durably
// counts it.
func nextBoot(store lease.Storage) (uint64, error) {
	var boot uint64
	if b, ok := store.Get(keyBoot); ok {
		if len(b) != 8 {
			return 0, fmt.Errorf("k8slease holder: stored boot counter is %d bytes, not 8", len(b))
		}
		boot = binary.BigEndian.Uint64(b)
	}
	if boot >= math.MaxUint32 {
		return 0, fmt.Errorf("k8slease holder: boot counter %d exhausted", boot)
	}
	store.Put(keyBoot, binary.BigEndian.AppendUint64(nil, boot+1))
	if err := store.Sync(); err != nil {
		return 0, fmt.Errorf("k8slease holder: count boot: %w", err)
	}
	return boot, nil
}

// nextID returns a fresh request id: the incarnation in the high 32 bits,
// a counter in the low ones.
func (h *holder) nextID() uint64 {
	h.seq++
	if h.seq == 0 {
		panic("k8slease: invariant request-ids-unique: the request counter wrapped")
	}
	return h.incarnation<<32 | uint64(h.seq)
}

// call sends q to the API server; then receives its response, or an error
// wrapping lease.ErrTimeout after the request timeout (never, under the
// mutant's renew loop).
func (h *holder) call(q *request, then func(*response, error)) {
	q.Client, q.ID = h.env.Self, h.nextID()
	p := &pending{onReply: then}
	if !h.noRenewTimeout {
		id := q.ID
		p.timer = h.env.Clock.AfterFunc(h.t.RequestTimeout, func() { h.timeout(id, p) })
	}
	h.pending[q.ID] = p
	h.env.Net.(lease.AnyTransport).SendAny(h.server, q)
}

// timeout gives up on request id if p is still waiting for it.
func (h *holder) timeout(id uint64, p *pending) {
	if h.pending[id] != p {
		return
	}
	delete(h.pending, id)
	err := fmt.Errorf("k8slease: request %d: %w", id, lease.ErrTimeout)
	if p.onWrite != nil {
		p.onWrite(lease.Message{}, err)
		return
	}
	p.onReply(nil, err)
}

// claim returns the request id is waiting for and stops waiting, or nil
// if none is (a late or duplicated reply).
func (h *holder) claim(id uint64) *pending {
	p := h.pending[id]
	if p == nil {
		return nil
	}
	delete(h.pending, id)
	holderkit.StopTimer(p.timer)
	return p
}

// DeliverAny takes the API server's responses.
func (h *holder) DeliverAny(_ lease.Addr, m any) {
	r, ok := m.(*response)
	if !ok || r.Client != h.env.Self {
		return
	}
	if p := h.pending[r.ID]; p == nil || p.onReply == nil {
		return
	}
	h.claim(r.ID).onReply(r, nil)
}

// Deliver takes the fenced store's replies to writes.
func (h *holder) Deliver(_ lease.Addr, m lease.Message) {
	if m.Kind != lease.KindWriteReply {
		return
	}
	p := h.pending[m.ReqID]
	if p == nil || p.onWrite == nil || p.write.SentAt != m.SentAt {
		return
	}
	h.claim(m.ReqID).onWrite(m, nil)
}

// Acquire starts the leader elector for resource, unless it runs.
func (h *holder) Acquire(resource string, opts lease.AcquireOptions) {
	e := h.electors[resource]
	if e == nil {
		e = &elector{h: h, res: resource}
		h.electors[resource] = e
	}
	e.start(opts)
}

// Release stops the elector: belief ends at once, then the Lease is given
// up (ReleaseOnCancel).
func (h *holder) Release(resource string) {
	if e := h.electors[resource]; e != nil {
		e.release()
	}
}

// Close releases every lease, in resource order.
func (h *holder) Close() {
	names := make([]string, 0, len(h.electors))
	for name := range h.electors {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		h.Release(name)
	}
}

// Valid returns the grant while the elector leads and its deadline has
// not passed.
func (h *holder) Valid(resource string) (lease.Grant, bool) {
	e := h.electors[resource]
	if e == nil || !e.leading || h.env.Clock.Now() >= e.deadline {
		return lease.Grant{}, false
	}
	return lease.Grant{Resource: resource, Token: e.token, TTL: h.t.LeaseDuration, Deadline: e.deadline}, true
}

// Write sends key=value to the fenced store under the lease's token. The
// lease is checked once, here, as a controller checks that it leads
// before it acts; whatever happens at the failpoint after that (a pause)
// is what the fenced store is there for.
func (h *holder) Write(resource, key string, value []byte, done func(error)) {
	if done == nil {
		done = func(error) {}
	}
	g, ok := h.Valid(resource)
	if !ok {
		done(fmt.Errorf("k8slease: write %q on %q: %w", key, resource, lease.ErrLeaseExpired))
		return
	}
	m := lease.Message{Kind: lease.KindWrite, Client: h.env.Self, Resource: resource, Token: g.Token,
		Key: key, Value: slices.Clone(value)}
	send := func() { h.sendWrite(m, done) }
	if h.env.Failpoint == nil {
		send()
		return
	}
	h.env.Failpoint(lease.FailpointBeforeWrite, send)
}

// sendWrite sends the write m and hands its outcome to done.
func (h *holder) sendWrite(m lease.Message, done func(error)) {
	m.ReqID, m.SentAt = h.nextID(), h.env.Clock.Now()
	p := &pending{write: m}
	p.onWrite = func(r lease.Message, err error) { done(h.written(m, r, err)) }
	id := m.ReqID
	p.timer = h.env.Clock.AfterFunc(h.t.RequestTimeout, func() { h.timeout(id, p) })
	h.pending[id] = p
	h.env.Net.Send(h.store, m)
}

// written turns the store's reply to write m into the write's outcome. A
// refusal as stale ends the belief under that token first.
func (h *holder) written(m, r lease.Message, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("k8slease: write %q on %q, token %d: %w", m.Key, m.Resource, m.Token, err)
	case r.Err == lease.CodeOK:
		return nil
	}
	err = fmt.Errorf("k8slease: write %q on %q, token %d: %w", m.Key, m.Resource, m.Token, r.Err.Err())
	if r.Err == lease.CodeFenced {
		h.fenced(m.Resource, m.Token, err)
	}
	return err
}

// fenced reacts to the store refusing token as stale: if the elector
// still leads under it, it stops.
func (h *holder) fenced(resource string, token uint64, err error) {
	if e := h.electors[resource]; e != nil && e.leading && e.token == token {
		e.lose(lease.EventFenced, err)
		return
	}
	h.observe(lease.Event{Kind: lease.EventFenced, Resource: resource, Token: token, Err: err.Error()})
}

// SideEffect performs an unfenced effect at the store: fire and forget.
func (h *holder) SideEffect(resource, id string) {
	holderkit.SideEffect(h.env, h.store, resource, id)
}

// observe stamps ev with the node and its clocks and reports it.
func (h *holder) observe(ev lease.Event) { holderkit.Observe(h.env, ev) }

var (
	_ lease.Holder  = (*holder)(nil)
	_ lease.AnyNode = (*holder)(nil)
	_ lease.Closer  = (*holder)(nil)
)
