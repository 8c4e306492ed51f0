package mutants

import "github.com/leasesim/leasesim/lease"

// expiryFromReceipt is a holder that counts its lease from the moment the
// grant (or renewal) ARRIVED, not from the moment it sent the request. A
// grant that spent half a second in the network, or that sat in the
// socket buffer while the holder was frozen in a GC pause, buys the holder
// that much more belief than the grantor keeps the lease; a grant that
// arrives after a long pause is even taken although the lease it names
// has long expired. This is the mistake the Redlock algorithm warns about
// (validity must be computed from the time before the request was sent),
// and the one every hand-rolled "SET key NX PX ttl, then start a ttl
// timer" client makes.
//
// Technique: the holder's Deliver rewrites the echoed SentAt of acquire and
// renew replies to the holder's clock reading at receipt, so the correct
// holder computes deadline = receipt + TTL×(1−rho) − margin.
//
// Caught by P1 under delayed responses (partition-heal: the grantor's
// replies to h1 take 700 ms, then h1 is cut off), and when a holder pauses
// while a grant waits in its inbox (worker-crash-handoff).
func expiryFromReceipt() lease.Impl {
	impl := mutant("expiry-from-receipt", "the holder counts its lease from the reply's receipt, not the request's send")
	impl.NewHolder = func(env lease.Env, cfg lease.Config, grantor, resource lease.Addr) (lease.Holder, error) {
		h, err := lease.NewHolder(env, cfg, grantor, resource)
		if err != nil {
			return nil, err
		}
		return receiptHolder{ownHolder: h.(ownHolder), clock: env.Clock}, nil
	}
	return impl
}

// receiptHolder stamps grant and renewal replies with their receipt time.
type receiptHolder struct {
	ownHolder
	clock lease.Clock
}

// Deliver sets SentAt of acquire and renew replies to now.
func (h receiptHolder) Deliver(from lease.Addr, m lease.Message) {
	if m.Kind == lease.KindAcquireReply || m.Kind == lease.KindRenewReply {
		m.SentAt = h.clock.Now()
	}
	h.ownHolder.Deliver(from, m)
}
