package checker

import (
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
)

// silentGrant is the first grant a silent holder received: a holder that
// was granted a lease, by its spec's own success reply (grantReply), and
// reported no belief for any grant it received.
type silentGrant struct {
	holder, target string // target: the resource, else the key, the reply named
	kind           string // the request the reply answered
	token          uint64 // leasesim's lease store: the token granted; 0 for a spec of its own
	at             history.Time
}

// describe says who was granted what, when.
func (s silentGrant) describe() string {
	if s.token != 0 {
		return fmt.Sprintf("holder %s was granted %s (token %d) at %v", s.holder, s.target, s.token, s.at)
	}
	return fmt.Sprintf("holder %s was granted %s by a successful %s at %v", s.holder, s.target, s.kind, s.at)
}

// silentHolders returns the history's silent holders, each with its first
// grant, in the order of those grants; computed when first asked for.
//
// Under leasesim's lease store a belief is reported for a grant when a
// belief of the same holder, resource and token, not merely inferred from
// actions, began no later than the grant reached the holder. A spec of its
// own names no token in its grant reply (a Redis lock draws it with INCR,
// an etcd lock uses its key's revision), so there a holder is silent when it
// reported no belief at all. A holder may rightly ignore some grants (a late
// reply to a request it gave up on), so only grants that arrived well
// within the holder's patience count (see patience), and only a holder that
// reported none of those is silent.
func (a *analysis) silentHolders() []silentGrant {
	if !a.silenceFound {
		a.silence, a.silenceFound = findSilent(a), true
	}
	return a.silence
}

// silentHolder reports whether holder is one of the history's silent
// holders.
func (a *analysis) silentHolder(holder string) bool {
	return slices.ContainsFunc(a.silentHolders(), func(s silentGrant) bool { return s.holder == holder })
}

// findSilent is silentHolders' search.
func findSilent(a *analysis) []silentGrant {
	h := a.h
	kinds := grantKinds(h.Spec)
	if len(kinds) == 0 {
		return nil
	}
	own := !leaseStoreSpec(h.Spec)
	type key struct {
		holder, resource string
		token            uint64
	}
	earliest := make(map[key]int64, len(h.Beliefs)) // looked up, never iterated
	believers := make(map[string]bool)              // holders that reported any belief; looked up, never iterated
	for _, b := range h.Beliefs {
		if b.Inferred {
			continue
		}
		believers[b.Holder] = true
		k := key{b.Holder, b.Resource, b.Token}
		if s, ok := earliest[k]; !ok || int64(b.Start) < s {
			earliest[k] = int64(b.Start)
		}
	}
	type silence struct {
		first    silentGrant
		reported bool
	}
	holders := make(map[string]*silence) // looked up, never iterated
	var order []string
	var head history.OpHead
	var op history.Operation
	for i, r := range a.rows() {
		if r.err != errNone || !r.returned() || r.fenced() {
			continue
		}
		h.LoadOpHead(i, &head)
		if !slices.Contains(kinds, head.Kind) {
			continue
		}
		h.LoadOp(i, &op)
		if !grantReply(h.Spec, &op) || time.Duration(op.Return-op.Call) > patience(h, &op) {
			continue // not a grant, or late: a holder may rightly have given up on the request
		}
		s := holders[op.Client]
		if s == nil {
			s = &silence{first: silentGrant{holder: op.Client, target: grantTarget(&op), kind: op.Input.Kind, at: op.Return}}
			if !own {
				s.first.token = op.Output.Token
			}
			holders[op.Client] = s
			order = append(order, op.Client)
		}
		if own {
			s.reported = believers[op.Client]
		} else if start, ok := earliest[key{op.Client, op.Input.Resource, op.Output.Token}]; ok && start <= int64(op.Return) {
			s.reported = true
		}
	}
	var silent []silentGrant
	for _, holder := range order {
		if s := holders[holder]; !s.reported {
			silent = append(silent, s.first)
		}
	}
	return silent
}

// reportedBeliefs makes P1 unknown for every silent holder (silentHolders):
// P1 judges beliefs, and a holder that says nothing (an implementation
// without an observer, or a recorder that is not wired) would otherwise
// pass "across 0 beliefs", or over beliefs inferred from its actions alone.
// A history with no reported belief at all gives P1 nothing to judge, and
// is unknown too.
func reportedBeliefs(v *verdict, a *analysis) {
	for _, s := range a.silentHolders() {
		v.dontKnow(s.describe() + " but reported no belief for any grant it received, so P1 cannot judge it: " +
			"does the implementation report its beliefs (lease.Observer)?")
	}
	if len(a.silentHolders()) > 0 || slices.ContainsFunc(v.h.Beliefs, func(b history.BeliefInterval) bool { return !b.Inferred }) {
		return
	}
	why := "no holder reported a belief, so P1 has nothing to judge"
	if n := len(v.h.Beliefs); n > 0 {
		why += fmt.Sprintf(" (%d beliefs were only inferred from actions)", n)
	}
	v.dontKnow(why)
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
