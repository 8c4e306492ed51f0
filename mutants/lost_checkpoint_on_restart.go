package mutants

import "github.com/leasesim/leasesim/lease"

// lostCheckpointOnRestart is a grantor that acknowledges checkpoints before
// they are durable: it keeps them in memory, so a crash loses every
// checkpoint it accepted, and the next holder of a task starts over from an
// older state (or from nothing). This is an acknowledged write that never
// reached the disk: a Redis with appendfsync off, a store that replies
// before fsync, an in-memory offset table.
//
// Technique: the grantor's Storage keeps the checkpoint keys in a volatile
// overlay that each boot starts empty. Tokens and the boot marker stay
// durable.
//
// Caught by P5 (an accepted checkpoint is lost; the new holder does not
// resume from it) in grantor-restart.
func lostCheckpointOnRestart() lease.Impl {
	impl := mutant("lost-checkpoint-on-restart", "accepted checkpoints live in the grantor's memory and vanish on a crash")
	impl.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		env.Store = newVolatileStore(env.Store, hasPrefix(lease.GrantorKeyCheckpointPrefix))
		return lease.NewGrantor(env, cfg)
	}
	return impl
}
