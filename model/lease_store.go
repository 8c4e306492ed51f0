package model

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/anishathalye/porcupine"
)

// LeaseOp names a lease-store operation.
type LeaseOp string

// The lease-store operations.
const (
	OpAcquire        LeaseOp = "acquire"
	OpRenew          LeaseOp = "renew"
	OpRelease        LeaseOp = "release"
	OpRevoke         LeaseOp = "revoke"
	OpCheckpoint     LeaseOp = "checkpoint"
	OpReadCheckpoint LeaseOp = "read_checkpoint"
	OpQuery          LeaseOp = "query"
)

// LeaseErr is how a lease-store operation failed; "" is success. Strings
// other than the named ones are other failures, legal wherever any failure
// is (every operation but acquire).
type LeaseErr string

// The failures the lease-store specification tells apart.
const (
	LeaseOK LeaseErr = ""
	// LeaseHeld: an acquire refused because another holder's lease is live.
	LeaseHeld LeaseErr = "held"
	// LeaseGrace, LeaseTTLOutOfRange and LeaseTokenExhausted: an acquire
	// refused for a reason the specification cannot judge (a grace period
	// after a grantor restart, the grantor's TTL bounds, tokens exhausted);
	// always legal, they change nothing.
	LeaseGrace          LeaseErr = "grace"
	LeaseTTLOutOfRange  LeaseErr = "ttl_out_of_range"
	LeaseTokenExhausted LeaseErr = "token_exhausted"
	// LeaseBadRequest: a malformed request; legal for every operation.
	LeaseBadRequest LeaseErr = "bad_request"
)

// LeaseInput is a lease-store request.
type LeaseInput struct {
	Op       LeaseOp
	Client   string // the holder the request acts for
	Resource string
	Token    uint64        // renew, release, checkpoint: the token acted under
	TTL      time.Duration // acquire: the TTL asked for
	// Incarnation counts the client's restarts: a later incarnation of the
	// holder is a new actor (see RestartRule).
	Incarnation uint64
	// Seq orders a client's checkpoints: a checkpoint whose Seq is not
	// above the latest accepted under the same lease was overtaken by it.
	// 0 means unknown: never overtaken.
	Seq   uint64
	State string // checkpoint: the state to store
}

// LeaseOutput is the lease store's reply.
type LeaseOutput struct {
	Err LeaseErr
	// ServerTime is the grantor's monotonic clock reading when it processed
	// the request: the specification's time.
	ServerTime time.Duration
	Token      uint64        // the token granted, renewed, revoked or named
	TTL        time.Duration // acquire: the TTL granted (0: as asked)
	Holder     string        // held, query, revoke: the holder named ("" if not named)
	// State and CheckpointToken are the latest accepted checkpoint handed
	// over by a grant or returned by read_checkpoint.
	State           string
	CheckpointToken uint64
}

// RestartRule says what an acquire by a later incarnation of the live
// holder gets.
type RestartRule string

// The restart rules.
const (
	// RestartNewLease: a new lease under a new token at once, so what the
	// crashed incarnation left in flight is fenced (leasesim's rule).
	RestartNewLease RestartRule = "new_lease"
	// RestartSameLease: incarnations are ignored; the live holder's acquire
	// is a renewal and returns its token.
	RestartSameLease RestartRule = "same_lease"
)

// LeasePolicy is the lease store's expiry policy: how long the grantor
// holds a lease, and the restart rule.
type LeasePolicy struct {
	// HoldPPB stretches the hold: a lease granted or renewed at reading g
	// for ttl is in force until g + ttl + ceil(ttl×HoldPPB/1e9), exclusive.
	// leasesim's grantor uses round(rho×1e9); 0 is exact TTL.
	HoldPPB int64
	Restart RestartRule
}

// HoldRho is leasesim's policy: the grantor holds a lease for TTL×(1+rho)
// and a restarted holder gets a new lease at once.
func HoldRho(rho float64) LeasePolicy {
	return LeasePolicy{HoldPPB: int64(math.Round(rho * ppbOne)), Restart: RestartNewLease}
}

// ExactTTL is the policy of a grantor that expires a lease at exactly its
// TTL on its own clock, as Redis PX does (its holders budget 2×rho
// instead), with leasesim's restart rule.
func ExactTTL() LeasePolicy { return LeasePolicy{Restart: RestartNewLease} }

const ppbOne = 1_000_000_000

// Hold returns how long the grantor holds a lease granted for ttl.
func (p LeasePolicy) Hold(ttl time.Duration) time.Duration {
	if ttl <= 0 || p.HoldPPB <= 0 {
		return max(ttl, 0)
	}
	hi, lo := bits.Mul64(uint64(ttl), uint64(p.HoldPPB))
	if hi >= ppbOne {
		return math.MaxInt64 // the quotient would overflow: never expires
	}
	q, r := bits.Div64(hi, lo, ppbOne)
	if r != 0 {
		q++
	}
	if q > math.MaxInt64-uint64(ttl) {
		return math.MaxInt64
	}
	return ttl + time.Duration(q)
}

// String names the policy, for example "hold=ttl×(1+0.01), restart=new_lease".
func (p LeasePolicy) String() string {
	if p.HoldPPB == 0 {
		return fmt.Sprintf("hold=ttl, restart=%s", p.restart())
	}
	return fmt.Sprintf("hold=ttl×(1+%g), restart=%s", float64(p.HoldPPB)/ppbOne, p.restart())
}

func (p LeasePolicy) restart() RestartRule {
	if p.Restart == "" {
		return RestartNewLease
	}
	return p.Restart
}

// Lease returns the sequential lease-store specification under policy as a
// porcupine model, partitioned by resource. Inputs are LeaseInput and
// outputs LeaseOutput (or pointers to them).
//
// Time in the specification is the grantor's monotonic clock as carried in
// each reply (ServerTime, g below). One grantor processes a resource's
// requests one at a time on a clock that never goes back, so every step
// requires g to be at least the last g seen. A lease granted or renewed at g
// for ttl is held until g + policy.Hold(ttl), exclusive.
//
// The rules, per resource:
//   - acquire granted: legal if the resource is free or expired at g and the
//     token is above every token issued before, or if the caller holds a
//     live, unrevoked lease and gets its token again (a renewal), or, under
//     RestartNewLease, a new token when the caller is a later incarnation
//     of the holder. The reply must hand over the latest accepted
//     checkpoint. LeaseHeld is legal only while another client (or a
//     revoked lease) holds it; LeaseGrace, LeaseTTLOutOfRange and
//     LeaseTokenExhausted are always legal.
//   - renew, release, checkpoint succeeded: legal only for the holder's
//     current, unrevoked, unexpired token. Their failures are always legal:
//     a spurious failure is a liveness problem, and the grantor may have
//     restarted and lost the lease, which the model cannot see.
//   - revoke succeeded: legal only on a live lease, which stays in force,
//     blocking new grants, until its old expiry.
//   - read_checkpoint: returns the latest accepted checkpoint. query: a
//     holder it names is the live, unrevoked holder and token.
//   - A checkpoint whose Seq is not above that of the latest one accepted
//     under the same lease was overtaken by it; the grantor acknowledges it
//     without storing it, which is the same as storing it and overwriting
//     it at once.
//
// LeaseBadRequest is legal for every operation. What it ignores: grantor
// restarts (a lease lost in a restart shows only as failures, which are
// legal), the grantor's TTL bounds, attached registrations and listing
// across resources.
func Lease(policy LeasePolicy) porcupine.Model {
	return leaseModel(leaseSpec{policy: policy}, leaseOp, leaseResource)
}

// leaseResource is Lease's partition key: a LeaseInput's resource.
func leaseResource(input any) string { return leaseInput(input).Resource }

// LeaseSpec is Lease with its name and Explain.
func LeaseSpec(policy LeasePolicy) Spec {
	sp := leaseSpec{policy: policy}
	return Spec{Name: "lease-store", Model: Lease(policy), Explain: func(state, input, output any) string {
		in, out := leaseInput(input), leaseOutput(output)
		_, why := sp.step(state.(leaseState), &in, &out)
		return why
	}, Replay: func() Replayer { return &leaseReplayer{sp: sp, op: leaseOp} }, Key: leaseResource}
}

// leaseModel builds the lease-store model over any representation of
// operations: op converts an (input, output) pair to the neutral types,
// resource reads an input's resource, the partition key.
func leaseModel(sp leaseSpec, op func(input, output any) (LeaseInput, LeaseOutput, string),
	resource func(input any) string) porcupine.Model {
	return partitionedBy(porcupine.Model{
		Init: func() any { return leaseState{} },
		Step: func(state, input, output any) (bool, any) {
			in, out, why := op(input, output)
			if why != "" {
				return false, state
			}
			next, why := sp.step(state.(leaseState), &in, &out)
			return why == "", next
		},
		// Every field of leaseState is comparable, so == is equality.
		Equal: func(a, b any) bool { return a.(leaseState) == b.(leaseState) },
		Hash:  func(state any) uint64 { return state.(leaseState).hash() },
		DescribeOperation: func(input, output any) string {
			in, out, _ := op(input, output)
			return describeLeaseOp(in, out)
		},
		DescribeState: func(state any) string { return state.(leaseState).String() },
	}, resource)
}

// leaseOp reads a neutral operation.
func leaseOp(input, output any) (LeaseInput, LeaseOutput, string) {
	return leaseInput(input), leaseOutput(output), ""
}

func leaseInput(v any) LeaseInput {
	switch x := v.(type) {
	case LeaseInput:
		return x
	case *LeaseInput:
		return *x
	}
	panic(fmt.Sprintf("model: lease-input-type: input is %T, not LeaseInput", v))
}

func leaseOutput(v any) LeaseOutput {
	switch x := v.(type) {
	case LeaseOutput:
		return x
	case *LeaseOutput:
		return *x
	}
	panic(fmt.Sprintf("model: lease-output-type: output is %T, not LeaseOutput", v))
}

// leaseState is the lease store's state for one resource. It is a value:
// steps return a new one and never change their argument.
type leaseState struct {
	holder    string        // "" when free: never granted, or released
	token     uint64        // the holder's token
	ttl       time.Duration // the granted TTL; renewals hold for Hold(ttl)
	expiresAt time.Duration // grantor reading at which the lease ends
	revoked   bool          // the holder's rights are gone; grants wait for expiresAt
	maxToken  uint64        // the highest token issued on the resource
	ckptState string        // the latest accepted checkpoint
	ckptToken uint64        // the token it was accepted under
	ckptSeq   uint64        // its Seq, reset by every new grant
	// incarnation is the highest incarnation of the holder's acquires and
	// renewals of this lease: a later one is the holder restarted.
	incarnation uint64
	lastG       time.Duration // the latest grantor reading seen
}

// live reports whether a lease is in force at grantor reading g, revoked or
// not.
func (s leaseState) live(g time.Duration) bool { return s.holder != "" && g < s.expiresAt }

// notHeld says why client may not act under token at g, or "" if it holds
// the live, unrevoked lease with that token.
func (s leaseState) notHeld(client string, token uint64, g time.Duration) string {
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

// leaseSpec is the lease-store specification under one policy.
type leaseSpec struct{ policy LeasePolicy }

// until returns the expiry of a lease granted or renewed at g for ttl.
func (sp leaseSpec) until(g, ttl time.Duration) time.Duration {
	hold := sp.policy.Hold(ttl)
	if g > math.MaxInt64-hold {
		return math.MaxInt64 // saturate: a lease this long never expires
	}
	return g + hold
}

// step applies one operation to s: the next state, and "" if the operation
// is legal in s, or why not.
func (sp leaseSpec) step(s leaseState, in *LeaseInput, out *LeaseOutput) (leaseState, string) {
	g := out.ServerTime
	if g < s.lastG {
		return s, fmt.Sprintf("grantor time went backwards: g=%v after g=%v", g, s.lastG)
	}
	s.lastG = g
	if out.Err == LeaseBadRequest {
		return s, ""
	}
	switch in.Op {
	case OpAcquire:
		return sp.acquire(s, in, out)
	case OpRenew:
		return sp.renew(s, in, out)
	case OpRelease:
		return release(s, in, out)
	case OpRevoke:
		return revoke(s, out)
	case OpCheckpoint:
		return checkpoint(s, in, out)
	case OpReadCheckpoint:
		return readCheckpoint(s, out)
	case OpQuery:
		return query(s, out)
	}
	return s, fmt.Sprintf("%v is not a lease-store operation", in.Op)
}
