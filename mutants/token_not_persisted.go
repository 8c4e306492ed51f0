package mutants

import "github.com/leasesim/leasesim/lease"

// tokenNotPersisted is a grantor that keeps its fencing-token counters in
// memory. After a crash it starts again at token 1 and hands out tokens it
// has issued before, so a token no longer names one grant: a fenced store
// either rejects the new holder (its token is below the highest seen) or
// accepts a stale holder whose old grant reused the number. This is a
// lock service whose counter lives in process memory, or in a Redis
// without persistence (INCR after a restart starts from zero).
//
// Technique: the grantor's Storage keeps the token-counter keys in a
// volatile overlay that each boot starts empty. The boot marker and the
// checkpoints stay durable, so the restart grace period still holds.
//
// Caught by P2 (tokens accepted by the store no longer match the grants)
// and P3 (an acquire returns a token the store spec never issues again),
// in grantor-restart.
func tokenNotPersisted() lease.Impl {
	impl := mutant("token-not-persisted", "the grantor's token counters restart at 1 after a crash")
	impl.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		env.Store = newVolatileStore(env.Store, hasPrefix(lease.GrantorKeyTokenPrefix))
		return lease.NewGrantor(env, cfg)
	}
	return impl
}
