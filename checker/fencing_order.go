package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/leasesim/leasesim/history"
)

// handsOrder is P2's rule that holds whatever tokens an implementation
// uses: no write under a grant is accepted after a write under a later
// grant, one whose holder began believing after the earlier grant's belief
// ended. It reads the order in which the lease changed hands from the
// beliefs holders reported, and the fenced store's accepted writes, and
// nothing of any token rule: a lock that fences with an identifier that
// grows with session age rather than with acquisition (a session id drawn
// when the holder started) issues tokens in the wrong order, and a paused
// old holder's write then lands after its successor's with a higher token.
//
// A grant is a belief a holder reported (not one inferred from actions
// alone): a write belongs to the latest belief of its writer, resource
// and token that began no later than the write was sent. A lock that
// fences with a session id gives one holder the same token at every
// acquisition, so the token alone does not tell its grants apart. A write
// whose writer reported no such belief cannot be placed, and is left to
// P2's other rules (and to P1, which reports silent holders). Two beliefs
// of one holder under one token are never judged against each other: a
// belief that lapsed and resumed under the same token may be one grant.
type handsOrder struct {
	beliefs map[spanKey][]*history.BeliefInterval // by start; looked up, never iterated
	latest  map[string]writtenBelief              // per resource: the written grant that began latest
}

type spanKey struct {
	holder, resource string
	token            uint64
}

// writtenBelief is a grant the fenced store accepted a write under: its
// belief, and the write (its index in the history).
type writtenBelief struct {
	belief *history.BeliefInterval
	op     int
}

// newHandsOrder reads the grants from h's reported beliefs.
func newHandsOrder(h *history.History) handsOrder {
	o := handsOrder{beliefs: make(map[spanKey][]*history.BeliefInterval), latest: make(map[string]writtenBelief)}
	for i := range h.Beliefs {
		b := &h.Beliefs[i]
		if b.Inferred {
			continue
		}
		k := spanKey{holder: b.Holder, resource: b.Resource, token: b.Token}
		o.beliefs[k] = append(o.beliefs[k], b)
	}
	for _, bs := range o.beliefs { // each sorted on its own: the order of keys does not matter
		slices.SortStableFunc(bs, func(x, y *history.BeliefInterval) int { return cmp.Compare(x.Start, y.Start) })
	}
	return o
}

// grantOf returns the belief op, a write, was sent under, or nil.
func (o handsOrder) grantOf(op *history.Operation) *history.BeliefInterval {
	bs := o.beliefs[spanKey{holder: op.Client, resource: op.Input.Resource, token: op.Input.Token}]
	n, _ := slices.BinarySearchFunc(bs, op.Call, func(b *history.BeliefInterval, t history.Time) int {
		if b.Start <= t {
			return -1
		}
		return 1
	})
	if n == 0 {
		return nil
	}
	return bs[n-1]
}

// accepted judges a write the fenced store accepted, operation i of the
// history, processed after every write it was given before. judged says
// whether P2's token rule already reported this write, which then is not
// reported twice.
func (o handsOrder) accepted(v *verdict, i int, op *history.Operation, judged bool) {
	res := op.Input.Resource
	b := o.grantOf(op)
	if b == nil {
		return
	}
	later, ok := o.latest[res]
	if ok && later.belief.Start >= b.End && !judged &&
		(later.belief.Holder != b.Holder || later.belief.Token != b.Token) {
		lw := v.h.Op(later.op)
		v.violate(op.Processed, fmt.Sprintf("the store accepted a write to %q by %s under token %d after a write by %s "+
			"under token %d, a grant %s began believing at %s, after %s's belief under token %d ended at %s: "+
			"the lease had changed hands, and the older grant's write landed after the newer's",
			res, op.Client, op.Input.Token, lw.Client, lw.Input.Token, lw.Client, FormatTime(later.belief.Start),
			op.Client, op.Input.Token, FormatTime(b.End)),
			describeOp(&lw), describeOp(op), describeBelief(later.belief), describeBelief(b))
	}
	if !ok || b.Start > later.belief.Start {
		o.latest[res] = writtenBelief{belief: b, op: i}
	}
}
