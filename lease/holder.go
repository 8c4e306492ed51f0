package lease

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// keyHolderEpoch is the holder's durable incarnation counter. It forms the
// high half of request ids, so ids keep increasing across restarts and the
// grantor can tell an old checkpoint from a newer one.
const keyHolderEpoch = "lease/holder/epoch"

// holder is the client side of package lease: one session per resource.
type holder struct {
	env          Env
	cfg          Config
	grantorAddr  Addr
	resourceAddr Addr
	sessions     map[string]*session
	pending      pendingSet // outstanding requests by ReqID
	onTimer      func()     // expireRequests, bound once: every request's timer calls it
	held         heldQueue  // writes and checkpoints waiting at their failpoints (holder_held.go)
	passing      int        // Failpoint calls under way (holder_held.go)
	onResume     func()     // resumeHeld, bound once: every failpoint's continuation
	epoch        uint64     // incarnation, from storage
	seq          uint32     // low half of the next ReqID
	closed       bool
}

// NewHolder starts a holder on env that acquires leases from the grantor at
// grantor and writes to the fenced resource at resource. It is called on
// every (re)boot of the node.
func NewHolder(env Env, cfg Config, grantor, resource Addr) (Holder, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new holder: %w", err)
	}
	if err := env.validate(); err != nil {
		return nil, fmt.Errorf("new holder: %w", err)
	}
	if grantor == "" || resource == "" {
		return nil, fmt.Errorf("new holder: grantor %q and resource %q must be set: %w",
			grantor, resource, ErrInvalidConfig)
	}
	h := &holder{
		env:          env,
		cfg:          cfg,
		grantorAddr:  grantor,
		resourceAddr: resource,
		sessions:     make(map[string]*session),
	}
	h.onTimer, h.onResume = h.expireRequests, h.resumeHeld
	if err := h.nextEpoch(); err != nil {
		return nil, fmt.Errorf("new holder: %w", err)
	}
	return h, nil
}

// nextEpoch makes a new incarnation number durable.
func (h *holder) nextEpoch() error {
	if b, ok := h.env.Store.Get(keyHolderEpoch); ok {
		if len(b) != 8 {
			violated("durable-epoch-format", "%d bytes", len(b))
		}
		h.epoch = binary.BigEndian.Uint64(b)
	}
	if h.epoch >= math.MaxUint32 {
		violated("epoch-fits-request-id", "epoch %d", h.epoch)
	}
	h.epoch++
	h.seq = 0
	h.env.Store.Put(keyHolderEpoch, binary.BigEndian.AppendUint64(nil, h.epoch))
	if err := h.env.Store.Sync(); err != nil {
		return fmt.Errorf("persisting holder epoch %d: %w", h.epoch, err)
	}
	return nil
}

// Acquire starts a session for resource unless one exists.
func (h *holder) Acquire(resource string, opts AcquireOptions) {
	if h.closed || resource == "" || h.sessions[resource] != nil {
		return
	}
	opts.Keys = cloneKVs(opts.Keys)
	s := h.newSession(resource, opts)
	h.sessions[resource] = s
	h.tryAcquire(s)
}

// Release stops believing first, then tells the grantor (best effort).
func (h *holder) Release(resource string) {
	s := h.sessions[resource]
	if s == nil {
		return
	}
	wasHeld := s.state == stateHeld
	h.end(s)
	if !wasHeld {
		return // an acquire still in flight is released when its reply comes
	}
	h.env.observe(Event{Kind: EventRelease, Resource: resource, Token: s.grant.Token})
	h.sendRelease(resource, s.grant.Token)
}

// Close releases every lease in resource order and stops acquiring.
func (h *holder) Close() {
	h.closed = true
	resources := make([]string, 0, len(h.sessions))
	for res := range h.sessions { // order does not matter: sorted below
		resources = append(resources, res)
	}
	slices.Sort(resources)
	for _, res := range resources {
		h.Release(res)
	}
}

// Valid returns the grant if the lease is held and before its deadline.
func (h *holder) Valid(resource string) (Grant, bool) {
	g, ok := h.valid(resource)
	g.State = slices.Clone(g.State) // the caller's to modify
	return g, ok
}

// valid is Valid for the holder itself: its State is the session's.
func (h *holder) valid(resource string) (Grant, bool) {
	s := h.sessions[resource]
	if s == nil || s.state != stateHeld || h.env.now() >= s.grant.Deadline {
		return Grant{}, false
	}
	return s.grant, true
}

// Deliver routes a reply to the request that is waiting for it. A grant
// nobody waits for (a late or duplicated reply) is released if the holder no
// longer wants the resource; anything else unexpected is ignored.
func (h *holder) Deliver(_ Addr, m Message) {
	p, ok := h.pending.take(m.ReqID, m.Kind)
	if !ok {
		if m.Kind == KindAcquireReply && m.Err == CodeOK && h.sessions[m.Resource] == nil {
			h.sendRelease(m.Resource, m.Token)
		}
		return
	}
	h.replied(p, m)
}
