package mutants

import "github.com/leasesim/leasesim/lease"

// noDriftMargin is a holder that trusts its clock to run at exactly the
// grantor's rate: it believes for the full TTL after sending, with no
// allowance for drift (rho) and no safety margin. The grantor keeps the
// real configuration. This is Redlock without its CLOCK_DRIFT_FACTOR, or
// any client that assumes "TTL seconds here are TTL seconds there"; a
// holder whose clock runs slow then believes after the grantor, whose
// clock runs fast, has let someone else in.
//
// Technique: the holder is built with Rho = 0 and Margin = 0.
//
// Caught by P1 under drift within rho (clock-drift).
func noDriftMargin() lease.Impl {
	impl := mutant("no-drift-margin", "the holder ignores the drift bound rho and the safety margin")
	impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		cfg.Rho, cfg.Margin = 0, 0
		return lease.NewHolder(env, cfg, grantor, resource)
	}
	return impl
}
