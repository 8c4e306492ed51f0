package checker

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/history"
)

// reportedBeliefs makes P1 unknown for every holder that received a grant
// but reported no belief for any grant it received: P1 judges beliefs, and
// a holder that says nothing (an implementation without an observer, or a
// recorder that is not wired) would otherwise pass "across 0 beliefs".
//
// A belief is reported for a grant when a belief of the same holder,
// resource and token, not merely inferred from actions, began no later
// than the grant reached the holder. A holder may rightly ignore some
// grants (a late reply to a request it gave up on), so only grants that
// arrived well within the holder's patience count (see patience), and only
// a holder that reported none of those is unknown.
func reportedBeliefs(v *verdict, a *analysis) {
	h := v.h
	type key struct {
		holder, resource string
		token            uint64
	}
	earliest := make(map[key]int64, len(h.Beliefs)) // looked up, never iterated
	for _, b := range h.Beliefs {
		if b.Inferred {
			continue
		}
		k := key{b.Holder, b.Resource, b.Token}
		if s, ok := earliest[k]; !ok || int64(b.Start) < s {
			earliest[k] = int64(b.Start)
		}
	}
	type silence struct {
		resource string // of the holder's first grant
		token    uint64
		at       history.Time // when the first grant's reply arrived
		reported bool
	}
	holders := make(map[string]*silence) // looked up, never iterated
	var order []string
	var op history.Operation
	for i, r := range a.rows() {
		if r.kind != opAcquire || r.err != errNone || !r.returned() {
			continue
		}
		h.LoadOp(i, &op)
		if op.Output.Token == 0 {
			continue
		}
		if time.Duration(op.Return-op.Call) > patience(h, &op) {
			continue // late: a holder may rightly have given up on the request
		}
		s := holders[op.Client]
		if s == nil {
			s = &silence{resource: op.Input.Resource, token: op.Output.Token, at: op.Return}
			holders[op.Client] = s
			order = append(order, op.Client)
		}
		if start, ok := earliest[key{op.Client, op.Input.Resource, op.Output.Token}]; ok && start <= int64(op.Return) {
			s.reported = true
		}
	}
	for _, holder := range order {
		if s := holders[holder]; !s.reported {
			v.dontKnow(fmt.Sprintf("holder %s was granted %s (token %d) at %v but reported no belief for any "+
				"grant it received, so P1 cannot judge it: does the implementation report its beliefs "+
				"(lease.Observer)?", holder, s.resource, s.token, s.at))
		}
	}
}

// patience is how soon a grant must reach its holder after the request to
// count as one the holder must have believed: half the request timeout the
// configuration gives holders (a holder that timed a request out may
// ignore its reply; halved so that a holder clock drifting even well beyond
// rho still waits that long), and never more than half the TTL (a later
// grant may be dead on arrival).
func patience(h *history.History, op *history.Operation) time.Duration {
	ttl := op.Output.TTL
	if ttl <= 0 {
		ttl = h.Lease.TTL
	}
	p := ttl / 2
	if t := h.Lease.RequestTimeout; t > 0 {
		p = min(p, t/2)
	}
	return p
}
