package mutants

import "github.com/leasesim/leasesim/lease"

// unfencedResource is a store that does not check fencing tokens: it
// accepts a write under any token, however stale. This is the storage
// service of Martin Kleppmann's "How to do distributed locking" (2016)
// that trusts the lock instead of checking the token, so a client that
// paused between checking its lease and writing (a GC pause, a VM
// migration) overwrites its successor's data. It is also every lock
// built on Redis or ZooKeeper whose protected resource ignores the token
// (or is never given one).
//
// Technique: a stale write is rewritten to the highest accepted token
// before the real resource sees it, so the real resource stores it; the
// reply carries the client's own token back. Highest keeps answering the
// highest token accepted, and reads, effects and in-order writes behave
// as in the correct store.
//
// Caught by P2 (a write with token k accepted after one with k' > k),
// most directly in kleppmann-gc-pause.
func unfencedResource() lease.Impl {
	impl := mutant("unfenced-resource", "the resource accepts writes under stale tokens (no fencing)")
	impl.NewResource = func(env lease.Env) (lease.Resource, error) {
		return acceptStale(env, func(lease.Message) bool { return true })
	}
	return impl
}

// acceptStale is the correct store with every write that admit lets
// through raised to the resource's highest accepted token before the store
// sees it, so it is stored however stale, and its reply carrying the
// writer's own token back. Writes admit refuses, reads and effects are the
// correct store's.
func acceptStale(env lease.Env, admit func(lease.Message) bool) (lease.Resource, error) {
	var r lease.Resource // set below, before any message arrives
	ic := &interceptor{
		request: func(m lease.Message) lease.Message {
			if m.Kind != lease.KindWrite || !admit(m) {
				return m
			}
			if highest := r.(lease.FenceLookup).Highest(m.Resource); m.Token < highest {
				m.Token = highest
			}
			return m
		},
		reply: func(req, rep lease.Message) lease.Message {
			if req.Kind == lease.KindWrite && rep.Err == lease.CodeOK {
				rep.Token = req.Token
			}
			return rep
		},
	}
	var err error
	r, err = newInterceptedResource(env, ic)
	return r, err
}
