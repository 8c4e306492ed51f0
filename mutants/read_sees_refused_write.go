package mutants

import (
	"slices"

	"github.com/leasesim/leasesim/lease"
)

// readSeesRefusedWrite is a store whose reads see a write it refused. It
// fences writes correctly (its durable state and every write's reply are
// right) but serves reads from a cache that every write request updates
// before the fencing check decides, and that a refused write is never
// taken back from. A stale holder's fenced write thus becomes what the
// next reader of that key sees, until an accepted write replaces it: the
// successor reads back its predecessor's stale value, and acts on it. It
// is the write-through cache in front of a fenced store that caches the
// request rather than the store's answer. A workload that only writes
// never sees it.
//
// Technique: the store node keeps, per boot, the last value and token
// written to each key by any write request, and rewrites every read's
// reply to them. Writes, effects and Highest are the correct store's.
//
// Caught by P3 (a read of the fenced register returns a value that is
// not the key's latest accepted write), in multi-key-read-back.
func readSeesRefusedWrite() lease.Impl {
	impl := mutant("read-sees-refused-write", "reads are served from a cache that a fenced write still updates")
	impl.NewResource = func(env lease.Env) (lease.Resource, error) {
		type cell struct {
			token uint64
			value []byte
		}
		type resourceKey struct{ resource, key string }
		cache := make(map[resourceKey]cell) // looked up, never iterated; gone on a restart
		ic := &interceptor{
			request: func(m lease.Message) lease.Message {
				if m.Kind == lease.KindWrite {
					cache[resourceKey{m.Resource, m.Key}] = cell{token: m.Token, value: slices.Clone(m.Value)}
				}
				return m
			},
			reply: func(req, rep lease.Message) lease.Message {
				if req.Kind != lease.KindRead {
					return rep
				}
				if c, ok := cache[resourceKey{req.Resource, req.Key}]; ok {
					rep.Token, rep.Value = c.token, c.value
				}
				return rep
			},
		}
		return newInterceptedResource(env, ic)
	}
	return impl
}
