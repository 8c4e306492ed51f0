package realtime

import (
	"context"
	"fmt"

	"github.com/leasesim/leasesim/lease"
)

// Grantor is a running lease grantor.
type Grantor struct {
	n    *node
	core lease.Grantor
}

// StartGrantor starts a grantor listening on opts.Addr. It reads its durable
// state from opts.Store; pass the same store again after a restart.
func StartGrantor(opts Options) (*Grantor, error) {
	g := &Grantor{}
	n, err := startNode(opts, func(impl lease.Impl, env lease.Env) (lease.Node, error) {
		core, err := impl.NewGrantor(env, opts.Config)
		g.core = core
		return speaksLease(core, err)
	})
	if err != nil {
		return nil, err
	}
	g.n = n
	opts.Recorder.addGrantor(n.Addr(), opts.Config)
	return g, nil
}

// Addr returns the address the grantor listens on.
func (g *Grantor) Addr() lease.Addr { return g.n.Addr() }

// Lookup reports the grantor's record of the lease on resource.
func (g *Grantor) Lookup(ctx context.Context, resource string) (lease.LeaseInfo, bool, error) {
	var info lease.LeaseInfo
	var ok bool
	err := g.n.loop.do(ctx, func() { info, ok = g.core.(lease.LeaseLookup).Lookup(resource) })
	return info, ok, err
}

// Revoke takes the lease on resource away from its holder at once, as an
// operator would. A new grant still waits for the old lease's expiry.
func (g *Grantor) Revoke(ctx context.Context, resource string) (lease.Message, error) {
	r, err := g.n.call(ctx, lease.Message{Kind: lease.KindRevoke, Resource: resource})
	if err != nil {
		return r, err
	}
	if err := r.Err.Err(); err != nil {
		return r, fmt.Errorf("revoke %q: %w", resource, err)
	}
	return r, nil
}

// Close stops the grantor.
func (g *Grantor) Close() error { return g.n.shutdown(true) }
