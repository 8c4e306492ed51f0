package mutants

import "github.com/leasesim/leasesim/lease"

// renewAfterExpiry is a grantor that says yes to a renewal of a lease it no
// longer has: one that expired, was forgotten in a restart, or was granted
// to someone else since. The holder, told that its lease was extended,
// keeps believing next to the new holder. This is the class of keep-alive
// bugs in which the server answers a keep-alive without checking that the
// lease is still the live one, for example etcd's old leader that kept
// answering LeaseKeepAlive after it had stepped down (etcd-io/etcd#15247).
//
// Technique: the grantor's replies pass through an interceptor; a renew
// reply carrying ErrLeaseExpired or ErrFenced becomes a success with the
// request's token and a full TTL. The grantor's own state is untouched: it
// extends nothing, it only says it did.
//
// Caught by P1 (the renewed holder and the next holder believe at once)
// and P3 (a renewal succeeds on a lease the spec has expired), in
// grantor-restart.
func renewAfterExpiry() lease.Impl {
	impl := mutant("renew-after-expiry", "the grantor renews leases that expired or were granted again")
	impl.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		cfg = cfg.WithDefaults()
		ic := &interceptor{reply: func(req, rep lease.Message) lease.Message {
			if req.Kind != lease.KindRenew || (rep.Err != lease.CodeLeaseExpired && rep.Err != lease.CodeFenced) {
				return rep
			}
			rep.Err = lease.CodeOK
			rep.Token = req.Token
			rep.TTL = cfg.TTL
			rep.Remaining = cfg.GrantorHold(cfg.TTL)
			return rep
		}}
		return newInterceptedGrantor(env, cfg, ic)
	}
	return impl
}
