package mutants

import "github.com/leasesim/leasesim/lease"

// staleRelease is a grantor that releases whatever lease is current on the
// resource, whoever asks and under whatever token. A release that was
// delayed or duplicated in the network, or sent by a holder whose lease
// already expired, frees its successor's lease, and a third holder gets
// the resource while the second still believes. This is the classic Redis
// lock released with a plain DEL instead of the check-the-value-then-delete
// script, and every unlock that does not compare the lock's owner.
//
// Technique: the grantor's Deliver rewrites a release to name the current
// lease (its holder and token, from Lookup), and clears its request id so
// that the "release overtaken by a later acquire" check does not run
// either; the reply carries the client's own request id and token back.
//
// Caught by P1 (the freed holder and the next one believe at once) and P3
// (a release of a token that is not held succeeds), in message-chaos and
// thundering-herd.
func staleRelease() lease.Impl {
	impl := mutant("stale-release", "release is not checked against the token: it frees the successor's lease")
	impl.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		var g lease.Grantor // set below, before any message arrives
		ic := &interceptor{
			request: func(m lease.Message) lease.Message {
				if m.Kind != lease.KindRelease {
					return m
				}
				if info, ok := g.(lease.LeaseLookup).Lookup(m.Resource); ok {
					m.Client, m.Token, m.ReqID = info.Holder, info.Token, 0
				}
				return m
			},
			reply: func(req, rep lease.Message) lease.Message {
				if req.Kind != lease.KindRelease {
					return rep
				}
				return restoreRequest(req, rep)
			},
		}
		var err error
		g, err = newInterceptedGrantor(env, cfg, ic)
		return g, err
	}
	return impl
}
