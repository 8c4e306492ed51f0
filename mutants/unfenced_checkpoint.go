package mutants

import "github.com/leasesim/leasesim/lease"

// unfencedCheckpoint is a grantor that accepts a checkpoint from a holder
// whose lease has moved on. A worker that paused (or was partitioned) just
// before checkpointing wakes up and overwrites its successor's progress
// with its own older state, so the task goes backwards, or is marked done
// by a zombie. This is the zombie-writer problem that Kafka's producer
// epochs (KIP-98) and consumer-group generation ids exist to fence: an
// offset commit or a state update accepted without checking that the
// writer still owns the partition.
//
// Technique: the grantor's Deliver rewrites a checkpoint with a stale
// token or client to name the current lease (its holder and token, from
// Lookup), and clears its request id so that the "older checkpoint of the
// same holder" check does not drop it; the reply carries the client's own
// request id and token back. With no live lease there is nothing to borrow
// and the grantor fences the checkpoint as usual.
//
// Caught by P5 (a stale holder overwrites an accepted checkpoint) in
// worker-crash-handoff.
func unfencedCheckpoint() lease.Impl {
	impl := mutant("unfenced-checkpoint", "the grantor accepts checkpoints from stale holders")
	impl.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		var g lease.Grantor // set below, before any message arrives
		ic := &interceptor{
			request: func(m lease.Message) lease.Message {
				if m.Kind != lease.KindCheckpoint {
					return m
				}
				info, ok := g.(lease.LeaseLookup).Lookup(m.Resource)
				if ok && !info.Revoked && (info.Token != m.Token || info.Holder != m.Client) {
					m.Client, m.Token, m.ReqID = info.Holder, info.Token, 0
				}
				return m
			},
			reply: func(req, rep lease.Message) lease.Message {
				if req.Kind != lease.KindCheckpoint {
					return rep
				}
				rep = restoreRequest(req, rep)
				if rep.Err == lease.CodeOK {
					rep.CheckpointToken = req.Token
				}
				return rep
			},
		}
		var err error
		g, err = newInterceptedGrantor(env, cfg, ic)
		return g, err
	}
	return impl
}
