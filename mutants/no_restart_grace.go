package mutants

import "github.com/leasesim/leasesim/lease"

// noRestartGrace is a grantor that grants at once after a restart. Leases
// live only in its memory, so a holder that renewed just before the crash
// still believes for most of a TTL, while the restarted grantor sees a
// free resource and grants it to someone else. Chubby's master waits out a
// grace period for exactly this reason, and the Redlock description asks
// for "delayed restarts" (a crashed Redis node must stay down for a TTL);
// a deployment that restarts at once, or a store that loses its "I have
// run before" marker, has this bug.
//
// Technique: the grantor's Storage keeps the boot marker in a volatile
// overlay, so every boot looks like the first. Tokens and checkpoints stay
// durable.
//
// Caught by P1 in grantor-restart.
func noRestartGrace() lease.Impl {
	impl := mutant("no-restart-grace", "the grantor grants at once after a restart (no grace period)")
	impl.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		env.Store = newVolatileStore(env.Store, func(key string) bool { return key == lease.GrantorKeyBoot })
		return lease.NewGrantor(env, cfg)
	}
	return impl
}
