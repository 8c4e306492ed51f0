package model

import (
	"fmt"
	"math"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/lease"
)

// LeaseStore returns the sequential lease-store specification as a porcupine
// model, partitioned by resource. cfg is the configuration the grantor ran
// with (history.History.Config); the model uses only cfg.GrantorHold.
//
// Time in the specification is the grantor's monotonic clock as carried in
// each reply (GrantorTime, g below). One grantor processes a resource's
// requests one at a time on a clock that never goes back, so every step
// requires g to be at least the last g seen. A lease granted or renewed at g
// for ttl is held until g + cfg.GrantorHold(ttl), exclusive.
//
// The rules, per resource:
//   - acquire granted: legal if the resource is free or expired at g and the
//     token is above every token issued before, or if the caller holds a
//     live, unrevoked lease and gets its token again (a renewal). The reply
//     must hand over the latest accepted checkpoint. ErrHeld is legal only
//     while another client (or a revoked lease) holds it; ErrGrace,
//     ErrTTLOutOfRange and ErrTokenExhausted are always legal.
//   - renew, release, checkpoint succeeded: legal only for the holder's
//     current, unrevoked, unexpired token. Their failures are always legal:
//     a spurious failure is a liveness problem, and the grantor may have
//     restarted and lost the lease, which the model cannot see.
//   - revoke succeeded: legal only on a live lease, which stays in force,
//     blocking new grants, until its old expiry.
//   - read_checkpoint: returns the latest accepted checkpoint. query: a
//     holder it names is the live, unrevoked holder and token.
//   - A checkpoint whose request id is not above that of the latest one
//     accepted under the same lease was overtaken by it; the grantor
//     acknowledges it without storing it, which is the same as storing it
//     and overwriting it at once.
//
// ErrBadRequest is legal for every operation. list spans resources and is
// not part of this model.
func LeaseStore(cfg lease.Config) porcupine.Model {
	spec := leaseSpec{cfg: cfg}
	return porcupine.Model{
		Partition:      partitionByResource,
		PartitionEvent: partitionEventsByResource,
		Init:           func() any { return leaseState{} },
		Step: func(state, input, output any) (bool, any) {
			next, why := spec.step(state.(leaseState), message(input), message(output))
			return why == "", next
		},
		// Every field of leaseState is comparable, so == is equality.
		Equal:             func(a, b any) bool { return a.(leaseState) == b.(leaseState) },
		Hash:              func(state any) uint64 { return state.(leaseState).hash() },
		DescribeOperation: func(input, output any) string { return describeLeaseOp(message(input), message(output)) },
		DescribeState:     func(state any) string { return state.(leaseState).String() },
	}
}

// leaseState is the lease store's state for one resource. It is a value:
// steps return a new one and never change their argument.
type leaseState struct {
	holder    lease.Addr    // "" when free: never granted, or released
	token     uint64        // the holder's token
	ttl       time.Duration // the granted TTL; renewals hold for GrantorHold(ttl)
	expiresAt time.Duration // grantor reading at which the lease ends
	revoked   bool          // the holder's rights are gone; grants wait for expiresAt
	maxToken  uint64        // the highest token issued on the resource
	ckptState string        // the latest accepted checkpoint
	ckptToken uint64        // the token it was accepted under
	ckptReqID uint64        // its request id, reset by every new grant
	// incarnation is the highest incarnation (lease.Incarnation) of the
	// holder's acquires and renewals of this lease: a later one is the
	// holder restarted, and gets a new lease at once.
	incarnation uint64
	lastG       time.Duration // the latest grantor reading seen
}

// live reports whether a lease is in force at grantor reading g, revoked or
// not.
func (s leaseState) live(g time.Duration) bool { return s.holder != "" && g < s.expiresAt }

// notHeld says why client may not act under token at g, or "" if it holds
// the live, unrevoked lease with that token.
func (s leaseState) notHeld(client lease.Addr, token uint64, g time.Duration) string {
	switch {
	case s.holder == "" && s.maxToken == 0:
		return "no lease was ever granted"
	case s.holder == "":
		return fmt.Sprintf("the lease is free (tok %d was released)", s.maxToken)
	case token != s.token:
		return fmt.Sprintf("tok %d is not the current tok %d of %s", token, s.token, s.holder)
	case client != s.holder:
		return fmt.Sprintf("%s is not the holder %s of tok %d", client, s.holder, token)
	case s.revoked:
		return fmt.Sprintf("tok %d was revoked", token)
	case g >= s.expiresAt:
		return fmt.Sprintf("tok %d expired at g=%v, before g=%v", token, s.expiresAt, g)
	}
	return ""
}

// leaseSpec is the lease-store specification under one configuration.
type leaseSpec struct{ cfg lease.Config }

// until returns the expiry of a lease granted or renewed at g for ttl.
func (sp leaseSpec) until(g, ttl time.Duration) time.Duration {
	hold := sp.cfg.GrantorHold(ttl)
	if g > math.MaxInt64-hold {
		return math.MaxInt64 // saturate: a lease this long never expires
	}
	return g + hold
}

// step applies one operation to s: the next state, and "" if the operation
// is legal in s, or why not.
func (sp leaseSpec) step(s leaseState, in, out lease.Message) (leaseState, string) {
	if out.Kind != in.Kind.Reply() {
		return s, fmt.Sprintf("reply %v does not answer %v", out.Kind, in.Kind)
	}
	g := out.GrantorTime
	if g < s.lastG {
		return s, fmt.Sprintf("grantor time went backwards: g=%v after g=%v", g, s.lastG)
	}
	s.lastG = g
	if out.Err == lease.CodeBadRequest {
		return s, ""
	}
	switch in.Kind {
	case lease.KindAcquire:
		return sp.acquire(s, in, out)
	case lease.KindRenew:
		return sp.renew(s, in, out)
	case lease.KindRelease:
		return release(s, in, out)
	case lease.KindRevoke:
		return revoke(s, out)
	case lease.KindCheckpoint:
		return checkpoint(s, in, out)
	case lease.KindReadCheckpoint:
		return readCheckpoint(s, out)
	case lease.KindQuery:
		return query(s, out)
	}
	return s, fmt.Sprintf("%v is not a lease-store operation", in.Kind)
}
