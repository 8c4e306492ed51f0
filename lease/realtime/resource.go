package realtime

import (
	"context"

	"github.com/leasesim/leasesim/lease"
)

// Resource is a running fenced resource.
type Resource struct {
	n    *node
	core lease.Resource
}

// StartResource starts a fenced resource listening on opts.Addr. Only
// opts.Addr, Store, Observer, Impl and Seed are used.
func StartResource(opts Options) (*Resource, error) {
	r := &Resource{}
	n, err := startNode(opts, func(impl lease.Impl, env lease.Env) (lease.Node, error) {
		core, err := impl.NewResource(env)
		r.core = core
		return speaksLease(core, err)
	})
	if err != nil {
		return nil, err
	}
	r.n = n
	opts.Recorder.addResource(n.Addr())
	return r, nil
}

// Addr returns the address the resource listens on.
func (r *Resource) Addr() lease.Addr { return r.n.Addr() }

// Highest returns the highest token accepted for resource.
func (r *Resource) Highest(ctx context.Context, resource string) (uint64, error) {
	var hi uint64
	err := r.n.loop.do(ctx, func() { hi = r.core.(lease.FenceLookup).Highest(resource) })
	return hi, err
}

// Read returns the latest value of key and the token that wrote it.
func (r *Resource) Read(ctx context.Context, resource, key string) ([]byte, uint64, error) {
	m, err := r.n.call(ctx, lease.Message{Kind: lease.KindRead, Resource: resource, Key: key})
	return m.Value, m.Token, err
}

// Close stops the resource.
func (r *Resource) Close() error { return r.n.shutdown(true) }
