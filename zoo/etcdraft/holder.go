package etcdraft

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/holderkit"
)

// keyHolderBoots is the holder's durable boot counter: the high 32 bits of
// its request ids, so that ids never repeat across its restarts.
const keyHolderBoots = "etcdraft/holder/boots"

// holder is an etcd client session manager: per resource it grants a
// lease, creates the resource's key attached to it (the fencing token is
// the key's create revision) and keeps the lease alive. It sends each
// request to the member it believes leads, follows redirects, and tries
// the next member when a request times out.
type holder struct {
	env      lease.Env
	net      lease.AnyTransport
	cfg      lease.Config
	validity time.Duration
	members  []lease.Addr
	target   int // index into members of the member requests go to
	store    lease.Addr
	ids      *holderkit.RequestIDs
	sessions map[string]*session // by resource; looked up, never iterated
	calls    *holderkit.Pending[*call]
	ckpts    *holderkit.Pending[*ckptCall] // checkpoints awaiting their replies
	revokes  *holderkit.Pending[*revokeCall]
	// The holder's client of the fenced store at store: Write,
	// SideEffect and Deliver (the store's replies) are its.
	*holderkit.FencedStore
}

var (
	_ lease.Holder  = (*holder)(nil)
	_ lease.AnyNode = (*holder)(nil)
)

// newHolder boots a holder on env that leases through the members and
// writes to the fenced store at store.
func newHolder(env lease.Env, cfg lease.Config, members []lease.Addr, store lease.Addr) (*holder, error) {
	net, ok := env.Net.(lease.AnyTransport)
	if !ok {
		return nil, fmt.Errorf("new etcdraft holder: env.Net is a %T, not a lease.AnyTransport: %w", env.Net, lease.ErrInvalidConfig)
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new etcdraft holder: %w", err)
	}
	h := &holder{env: env, net: net, cfg: cfg, validity: cfg.HolderValidity(cfg.TTL), members: members, store: store,
		sessions: make(map[string]*session)}
	var err error
	if h.ids, err = holderkit.NewRequestIDs(env.Store, keyHolderBoots, "etcdraft"); err != nil {
		return nil, fmt.Errorf("new etcdraft holder: %w", err)
	}
	h.calls = holderkit.NewPending(env.Clock, cfg.RequestTimeout, h.timedOut)
	h.ckpts = holderkit.NewPending(env.Clock, cfg.RequestTimeout, h.checkpointTimedOut)
	h.revokes = holderkit.NewPending(env.Clock, cfg.RequestTimeout, h.revokeTimedOut)
	h.FencedStore = holderkit.NewFencedStore(env, store, cfg.RequestTimeout, h.ids, h.Valid, h.fenced)
	return h, nil
}

// Acquire starts leasing resource and keeps it (keepalives, and leasing
// again after a loss) until Release. Attached registrations are not
// supported: an Acquire with Keys fails at once through OnLost.
func (h *holder) Acquire(resource string, opts lease.AcquireOptions) {
	if h.sessions[resource] != nil {
		return
	}
	if holderkit.RefuseRegistrations(resource, opts) {
		return
	}
	s := &session{Belief: holderkit.Belief{Resource: resource, OnGrant: opts.OnGrant, OnLost: opts.OnLost}}
	h.sessions[resource] = s
	h.grant(s)
}

// Release stops believing at once and revokes the lease (holder.revoke),
// which deletes the key.
func (h *holder) Release(resource string) {
	s := h.sessions[resource]
	if s == nil {
		return
	}
	delete(h.sessions, resource)
	believing, token, id := s.Believing, s.Token, s.lease
	s.stop()
	s.released = true
	if id != 0 {
		h.revoke(id)
	}
	if believing {
		h.observe(lease.Event{Kind: lease.EventRelease, Resource: resource, Token: token})
	}
}

// Valid returns the grant while the holder believes it holds resource.
func (h *holder) Valid(resource string) (lease.Grant, bool) {
	s := h.sessions[resource]
	if s == nil {
		return lease.Grant{}, false
	}
	g, ok := s.Valid(h.env.Clock.Now(), h.cfg.TTL)
	if !ok {
		return g, false
	}
	return s.grantOf(g), true
}

// DeliverAny takes the members' replies.
func (h *holder) DeliverAny(_ lease.Addr, m any) {
	r, ok := m.(Reply)
	switch {
	case ok && r.Op == OpCheckpoint:
		h.checkpointReplied(r)
	case ok && r.Op == OpRevoke:
		h.revokeReplied(r)
	case ok:
		h.replied(r)
	}
}

// observe stamps ev with the node and its clocks and reports it.
func (h *holder) observe(ev lease.Event) { holderkit.Observe(h.env, ev) }

// after arms f after d on the holder's clock.
func (h *holder) after(d time.Duration, f func()) lease.Timer {
	return h.env.Clock.AfterFunc(max(d, 0), f)
}
