package mutants

import (
	"math"
	"math/bits"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// earlyGrantorExpiry is a grantor that applies the drift allowance the
// wrong way round: it keeps a lease for TTL×(1−rho) on its own clock
// instead of TTL×(1+rho). With perfect clocks nobody notices, because the
// holder stops believing at TTL×(1−rho) − margin after it sent its
// request; but a grantor clock running fast and a holder clock running
// slow, each within rho, open a window in which the grantor has granted
// again while the holder still believes. This is the sign error (or the
// "the server can use the same formula as the client" shortcut) that
// Gray and Cheriton's lease analysis and Chubby's grace period rule out.
//
// Technique: the grantor's Deliver shrinks the TTL of acquire requests to
// TTL×(1−rho)/(1+rho), so that its hold, TTL'×(1+rho), is TTL×(1−rho); the
// replies carry the requested TTL back, so holders do not notice. A TTL so
// close to TTLMin that the shrunk one would fall below it is left alone.
//
// Caught by P1 under drift (clock-drift), and by P3, whose spec expires a
// lease at GrantorTime + TTL×(1+rho).
func earlyGrantorExpiry() lease.Impl {
	impl := mutant("early-grantor-expiry", "the grantor expires leases at TTL×(1−rho) instead of TTL×(1+rho)")
	impl.NewGrantor = func(env lease.Env, cfg lease.Config) (lease.Grantor, error) {
		cfg = cfg.WithDefaults()
		rhoPPB := uint64(math.Round(cfg.Rho * ppbOne))    // as lease.Config converts it
		original := make(map[time.Duration]time.Duration) // shrunk → requested; looked up, never iterated
		ic := &interceptor{
			request: func(m lease.Message) lease.Message {
				if m.Kind != lease.KindAcquire || m.TTL < cfg.TTLMin || m.TTL > cfg.TTLMax {
					return m
				}
				if shrunk := shrinkTTL(m.TTL, rhoPPB); shrunk >= cfg.TTLMin {
					original[shrunk] = m.TTL
					m.TTL = shrunk
				}
				return m
			},
			reply: func(_, rep lease.Message) lease.Message {
				if ttl, ok := original[rep.TTL]; ok && rep.TTL != 0 {
					rep.TTL = ttl
				}
				return rep
			},
		}
		return newInterceptedGrantor(env, cfg, ic)
	}
	return impl
}

// ppbOne is a rate of 1 in parts per billion.
const ppbOne = 1_000_000_000

// shrinkTTL returns floor(ttl×(1−rho)/(1+rho)) for rho = rhoPPB/1e9, in
// integer arithmetic.
func shrinkTTL(ttl time.Duration, rhoPPB uint64) time.Duration {
	if ttl <= 0 || rhoPPB == 0 {
		return ttl
	}
	hi, lo := bits.Mul64(uint64(ttl), ppbOne-rhoPPB)
	q, _ := bits.Div64(hi, lo, ppbOne+rhoPPB)
	return time.Duration(q)
}
