package lease

import (
	"fmt"
	"time"
)

// grantor is the lease store of package lease.
type grantor struct {
	env        Env
	cfg        Config
	leases     map[string]*leaseState // live (or revoked, not yet expired) leases
	issued     map[string]uint64      // last token issued this boot, for the invariant
	graceUntil time.Duration          // grants wait until this reading
	// Storage keys by resource, made once; looked up, never iterated.
	tokenKeys, checkpointKeys map[string]string
}

// NewGrantor boots a grantor on env. It is called on every (re)boot of the
// node and reads its durable state from env.Store. If the node booted before,
// it grants nothing until Config.RestartGrace has passed, so that every lease
// it may have granted before the crash has expired; token counters continue
// where they were.
func NewGrantor(env Env, cfg Config) (Grantor, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("new grantor: %w", err)
	}
	if err := env.validate(); err != nil {
		return nil, fmt.Errorf("new grantor: %w", err)
	}
	g := &grantor{
		env:    env,
		cfg:    cfg,
		leases: make(map[string]*leaseState),
		issued: make(map[string]uint64),

		tokenKeys:      make(map[string]string),
		checkpointKeys: make(map[string]string),
	}
	if err := g.boot(); err != nil {
		return nil, fmt.Errorf("new grantor: %w", err)
	}
	return g, nil
}

// boot starts the restart grace period if the node booted before, and
// records this boot.
func (g *grantor) boot() error {
	grace := g.cfg.RestartGrace()
	prev, restarted := g.bootGrace()
	if !restarted {
		return g.putBootGrace(grace)
	}
	// A crash during this grace period must still cover the previous
	// boot's leases, so the marker keeps the longer of the two periods
	// until this one has passed.
	longest := max(prev, grace)
	g.graceUntil = g.env.now() + longest
	if err := g.putBootGrace(longest); err != nil {
		return err
	}
	g.env.Clock.AfterFunc(longest, func() { g.endGrace(grace) })
	return nil
}

// endGrace shortens the boot marker to this boot's own grace period: only
// leases of this boot can exist now.
func (g *grantor) endGrace(grace time.Duration) {
	if err := g.putBootGrace(grace); err != nil {
		// The marker keeps the longer period, so the next boot waits
		// longer than needed, which is safe. There is no caller to tell.
		return
	}
}

// Deliver handles one request and sends the reply to from. The client is
// m.Client, or from if that is empty.
func (g *grantor) Deliver(from Addr, m Message) {
	if m.Client == "" {
		m.Client = from
	}
	reply, ok := g.handle(m)
	if !ok {
		return
	}
	reply.GrantorTime = g.env.now()
	g.env.send(from, reply)
}

// handle dispatches a request. It returns false when there is nothing to
// reply: an unknown kind, or a durable write that failed.
func (g *grantor) handle(m Message) (Message, bool) {
	if m.Kind != KindList && (m.Resource == "" || len(m.Resource) > MaxResourceBytes) {
		if !m.Kind.IsRequest() {
			return Message{}, false
		}
		r := m.reply()
		r.Err = CodeBadRequest
		return r, true
	}
	switch m.Kind {
	case KindAcquire:
		return g.acquire(m)
	case KindRenew:
		return g.renew(m), true
	case KindRelease:
		return g.release(m), true
	case KindRevoke:
		return g.revoke(m), true
	case KindCheckpoint:
		return g.checkpointReq(m)
	case KindReadCheckpoint:
		return g.readCheckpoint(m), true
	case KindQuery:
		return g.query(m), true
	case KindList:
		return g.list(m), true
	}
	return Message{}, false
}

// Lookup reports the lease recorded for resource without changing anything.
func (g *grantor) Lookup(resource string) (LeaseInfo, bool) {
	l := g.leases[resource]
	if l == nil || g.env.now() >= l.expiresAt {
		return LeaseInfo{}, false
	}
	return LeaseInfo{
		Resource:  l.resource,
		Holder:    l.client,
		Token:     l.token,
		TTL:       l.ttl,
		ExpiresAt: l.expiresAt,
		Revoked:   l.revoked,
		Keys:      cloneKVs(l.keys),
	}, true
}
