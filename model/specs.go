package model

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
		{RegisterSpec().Name, "the fenced resource: a write is accepted only under a token at least as high as every " +
			"token accepted before"},
	}
}
