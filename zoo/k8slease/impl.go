package k8slease

import "github.com/leasesim/leasesim/lease"

// Name is the implementation's name, as `--impl` and reports show it;
// its variants are Name + "/" + what differs.
const Name = "zoo/k8slease"

// Impl returns Kubernetes-style leader election on a compare-and-swap
// Lease record, with the harness's fenced store (token = leaseTransitions).
func Impl() lease.Impl {
	return lease.Impl{
		Name: Name,
		Doc: "Kubernetes-style leader election (client-go semantics) on a compare-and-swap Lease with no " +
			"server-side expiry; token = leaseTransitions",
		NewGrantor: func(env lease.Env, _ lease.Config) (lease.Grantor, error) { return newAPIServer(env) },
		NewHolder: func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
			return newHolder(env, cfg, grantor, resource, false)
		},
		NewResource: lease.NewResource,
		Spec:        "cas-record",
		// No checkpoints or registrations: a Lease carries neither.
		Capabilities: lease.Capabilities{SideEffects: true, Failpoints: []string{lease.FailpointBeforeWrite}},
	}
}

// Unfenced returns Impl in front of a store that ignores tokens, as most
// things a Kubernetes controller writes to do (nothing in the API server
// checks leaseTransitions). It is no bug of the elector: it shows what the
// fenced store is for.
func Unfenced() lease.Impl {
	impl := Impl()
	impl.Name = Name + "/unfenced-resource"
	impl.Doc = "zoo/k8slease writing to a store that accepts every token (no fencing)"
	impl.NewResource = newUnfencedStore
	return impl
}

// Mutant returns Impl with client-go's renew loop as it was before
// kubernetes/kubernetes PR #65094 ("set leader election client and renew
// timeout", which fixes #65090 and #65257): the leader-election client set
// no request timeout, and the renew loop, wait.Poll(RetryPeriod,
// RenewDeadline, tryAcquireOrRenew), checked RenewDeadline only between
// attempts ("wait.Poll check timeout before running ConditionFunc. If
// ConditionFunc takes too long, it can not quit quickly", from the PR's
// review). Issue #44887 reported the consequence: a renewal that took a
// minute to fail kept the old leader leading for that minute, while the
// other candidates took over after LeaseDuration (15 s): two leaders.
// The mutant's requests to the API server never time out, and its belief
// ends only when an attempt fails RenewDeadline or more after its renew
// round began; a renewal whose request or reply is lost hangs it, leading,
// for good. Caught by P1 when a partition or a crash of the API server
// loses a renewal (partition-heal, asymmetric-partition,
// lock-server-restart), or a pause makes a stale renewal reply look fresh
// (kleppmann-gc-pause).
func Mutant() lease.Impl {
	impl := Impl()
	impl.Name = Name + "/no-renew-timeout"
	impl.Doc = "client-go before PR #65094: no request timeout, RenewDeadline checked only between attempts"
	impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		return newHolder(env, cfg, grantor, resource, true)
	}
	return impl
}

var (
	_ lease.Grantor = (*apiServer)(nil)
	_ lease.AnyNode = (*apiServer)(nil)
)
