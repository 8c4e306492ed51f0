package model

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/leasesim/leasesim/history"
)

// SpecInfo names a specification and says what it models, as `simrun list`
// shows it.
type SpecInfo struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// Specs lists the specifications of this package, by the names their Spec
// constructors give them.
func Specs() []SpecInfo {
	return []SpecInfo{
		{LeaseSpec(HoldRho(0)).Name, "leasesim's lease store: expiry on the grantor's clock readings, under the " +
			"declared policy (grantor-holds: TTL×(1+rho); holder-budgets: exactly the TTL)"},
		{ExpiringKeySpec().Name, "a key with server-side expiry, as a Redis lock uses it: SET NX PX, " +
			"compare-and-delete, compare-and-PEXPIRE, INCR for tokens"},
		{CASRecordSpec().Name, "a record under optimistic concurrency with no server-side expiry: a Kubernetes Lease"},
		{LessorSpec().Name, "an etcd-style lessor: leases with a TTL, keepalive, revoke, keys attached to leases, revisions"},
		{ZooKeeperSessionSpec(LeasePolicy{}).Name, "a ZooKeeper server's sessions and tree: ephemeral nodes go with " +
			"their session, which expires no earlier than its timeout and no later than the declared bound; " +
			"sequential nodes get increasing counters"},
		{ConsulSessionSpec(LeasePolicy{}, 0).Name, "a Consul server's sessions and KV locks: a session is invalidated " +
			"no earlier than its TTL and no later than the declared bound, and its locks are refused for the " +
			"declared lock-delay after"},
		{RegisterSpec().Name, "the fenced resource: a write is accepted only under a token at least as high as every " +
			"token accepted before"},
	}
}

// SpecFor returns the specification named name, over the history's
// operations (*history.Operation inputs, *history.Payload outputs), for a
// run whose lease configuration is l: the name P3 judges a lease store by,
// as a history's header or `simrun check --spec` gives it. The lease
// store's expiry policy is the one l declares (it holds a lease HoldPPB
// beyond its TTL) with leasesim's restart rule; a name may add a variant
// after a slash ("lease-store/holder-budgets"), the producer's name for
// that policy. An empty name is "lease-store". A specification of Specs
// that has no reader of history operations yet, or a name Specs does not
// list, is an error that says so.
//
// Options add what a history knows beyond the name and the lease
// configuration (WithLeaderTerms). The session specifications read the
// invalidation bound from l.HoldPPB and Consul's lock-delay from
// l.LockDelay: the holds the history declares.
func SpecFor(name string, l history.Lease, opts ...SpecOption) (Spec, error) {
	var o specOptions
	for _, opt := range opts {
		opt(&o)
	}
	base, variant, _ := strings.Cut(name, "/")
	switch base {
	case "", LeaseSpec(HoldRho(0)).Name:
		return LeaseStoreSpec(LeasePolicy{HoldPPB: l.HoldPPB, Restart: RestartNewLease}), nil
	case RegisterSpec().Name:
		return FencedRegisterSpec(), nil
	case ExpiringKeySpec().Name:
		return ExpiringKeySpec(), nil
	case CASRecordSpec().Name:
		return CASRecordSpec(), nil
	case ZooKeeperSessionSpec(LeasePolicy{}).Name:
		return ZooKeeperSessionSpec(LeasePolicy{HoldPPB: l.HoldPPB}), nil
	case ConsulSessionSpec(LeasePolicy{}, 0).Name:
		return ConsulSessionSpec(LeasePolicy{HoldPPB: l.HoldPPB}, l.LockDelay), nil
	case LessorSpec().Name:
		rho := max(l.RhoPPB, lessorDrift(variant))
		return Bounded(LessorWindowSpec(rho), NewLessorBound(o.leaders, o.faults, rho)), nil
	}
	names := make([]string, 0, len(Specs()))
	for _, s := range Specs() {
		if s.Name == base {
			return Spec{}, fmt.Errorf("model: the %s specification has no reader of history operations yet", base)
		}
		names = append(names, s.Name)
	}
	return Spec{}, fmt.Errorf("model: no specification named %q (want one of %s)", name, strings.Join(names, ", "))
}

// SpecOption is what a history tells SpecFor beyond a specification's
// name and the lease configuration.
type SpecOption func(*specOptions)

type specOptions struct {
	leaders []history.LeaderTerm
	faults  []history.FaultWindow
}

// WithLeaderTerms gives SpecFor a replicated store's leader terms and the
// run's fault windows (History.Leaders, History.Faults): the lessor
// specification then bounds how long a lease outlives its last renewal
// (Bounded, LessorBound). Other specifications ignore them.
func WithLeaderTerms(terms []history.LeaderTerm, faults []history.FaultWindow) SpecOption {
	return func(o *specOptions) { o.leaders, o.faults = terms, faults }
}

// LessorDriftVariant names the lessor specification for a run whose
// clocks drifted up to driftPPB, beyond the configured rho: its expiry
// window (LessorWindowSpec) is then measured with the drift the clocks
// really had, "lessor/drift-ppb=N".
func LessorDriftVariant(driftPPB int64) string {
	return fmt.Sprintf("%s/%s%d", LessorSpec().Name, driftVariant, driftPPB)
}

const driftVariant = "drift-ppb="

// lessorDrift reads LessorDriftVariant's drift, 0 if variant is not one.
func lessorDrift(variant string) int64 {
	v, ok := strings.CutPrefix(variant, driftVariant)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n >= 1_000_000_000 {
		return 0
	}
	return n
}
