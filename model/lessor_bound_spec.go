package model

import (
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
)

// Bounded returns spec, a lessor specification over history operations
// (LessorWindowSpec), with the upper end of a lease's life that b gives: an
// operation that shows lease N still live (a successful keepalive, a put
// or create attached to it, a create refused or a get answered with a key
// attached to it) although it was called after b.GoneBy of N's latest
// renewal (a keepalive's or grant's answer, in the order the operations
// are placed) is illegal: "lease N outlived its bound B after K leader
// changes". The operation's call is the earliest instant it can have
// seen the store (a read is confirmed by a quorum after it; a change is
// ordered in the log after it). A lease whose renewal b cannot follow
// (no leader term, or the run ended first) is not bounded. With no
// leader terms b bounds nothing, and spec is returned as it is.
func Bounded(spec Spec, b LessorBound) Spec {
	if b.Terms() == 0 {
		return spec
	}
	inner := spec.Model
	m := inner
	m.Init = func() any { return boundState{inner: inner.Init()} }
	m.Step = func(state, input, output any) (bool, any) {
		s := state.(boundState)
		if b.outlived(s, input, output) != "" {
			return false, state
		}
		ok, next := inner.Step(s.inner, input, output)
		if !ok {
			return false, state
		}
		return true, s.renewed(b, next, input, output)
	}
	m.Equal = func(x, y any) bool {
		a, c := x.(boundState), y.(boundState)
		return slices.Equal(a.renewals, c.renewals) && inner.Equal(a.inner, c.inner)
	}
	if inner.Hash != nil {
		m.Hash = func(state any) uint64 {
			s := state.(boundState)
			h := fnvOffset.u64(inner.Hash(s.inner)).u64(uint64(len(s.renewals)))
			for _, r := range s.renewals {
				h = h.u64(uint64(r.lease)).u64(uint64(r.at))
			}
			return uint64(h)
		}
	}
	if inner.DescribeState != nil {
		m.DescribeState = func(state any) string { return inner.DescribeState(state.(boundState).inner) }
	}
	explain := spec.Explain
	return Spec{Name: spec.Name, Model: m, Explain: func(state, input, output any) string {
		s := state.(boundState)
		if why := b.outlived(s, input, output); why != "" {
			return why
		}
		return explain(s.inner, input, output)
	}}
}

// boundState is a lessor specification's state with each lease's latest
// renewal. It is a value: steps copy renewals before changing it.
type boundState struct {
	inner    any
	renewals []renewal // sorted by lease
}

// renewal is when a lease was last renewed, for how long, and the bound
// that gives (LessorBound.GoneBy, worked out once per renewal, not per
// step that reads it).
type renewal struct {
	lease   int64
	at, ttl time.Duration
	gone    time.Duration
	bounded bool
}

// renewed returns s with inner as its specification state and the
// renewal the operation made, if it made one, bounded by b.
func (s boundState) renewed(b LessorBound, inner, input, output any) boundState {
	s.inner = inner
	in, out := windowInput(input), windowOutput(output)
	var r renewal
	switch {
	case in.Op == OpKeepAlive && out.Err == LessorOK:
		r = renewal{lease: in.Lease, at: in.at, ttl: out.TTL}
	case in.Op == OpGrant && out.Err == LessorOK:
		r = renewal{lease: out.Lease, at: in.at, ttl: out.TTL}
	default:
		return s
	}
	if r.at == 0 || r.ttl <= 0 {
		return s // an input built by hand: no true time
	}
	r.gone, r.bounded = b.GoneBy(r.at, r.ttl)
	i, found := slices.BinarySearchFunc(s.renewals, r.lease, func(x renewal, id int64) int { return compareInt(x.lease, id) })
	s.renewals = slices.Clone(s.renewals)
	switch {
	case !found:
		s.renewals = slices.Insert(s.renewals, i, r)
	case r.at > s.renewals[i].at:
		s.renewals[i] = r
	}
	return s
}

// outlived says why the operation shows a lease live past its bound, or
// returns "".
func (b LessorBound) outlived(s boundState, input, output any) string {
	op, ok := input.(*history.Operation)
	if !ok {
		return "" // not from a history: no call time
	}
	in, out := windowInput(input), windowOutput(output)
	var lease int64
	switch {
	case in.Op == OpKeepAlive && out.Err == LessorOK, (in.Op == OpPut || in.Op == OpCreate) && out.Err == LessorOK && out.OK:
		lease = in.Lease
	case in.Op == OpCreate && out.Err == LessorOK && !out.OK, in.Op == OpGetKey && out.Err == LessorOK && out.OK:
		lease = out.KeyLease
	}
	if lease == 0 {
		return ""
	}
	i, found := slices.BinarySearchFunc(s.renewals, lease, func(x renewal, id int64) int { return compareInt(x.lease, id) })
	if !found {
		return ""
	}
	r := s.renewals[i]
	call := time.Duration(op.Call)
	if !r.bounded || call <= r.gone {
		return ""
	}
	return fmt.Sprintf("lease %d outlived its bound %v after %d leader changes: renewed at %v (TTL %v), it was still "+
		"live for a %v called at %v (%s)", lease, r.gone, b.LeaderChanges(r.at, r.gone), r.at, r.ttl, in.Op, call, b)
}
