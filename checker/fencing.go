package checker

import (
	"fmt"
	"slices"

	"github.com/leasesim/leasesim/history"
)

// Fencing checks P2, fencing safety, which must hold under every fault,
// assumptions exceeded or not. Over the operations in the order their
// servers processed them:
//
//   - on every resource, the fenced store accepts writes with
//     non-decreasing tokens;
//   - every accepted write's token was issued earlier by the grantor, to
//     that writer, for that resource;
//   - the grantor never issues one (resource, token) to two clients, and
//     every new grant's token exceeds every token issued on the resource
//     before. An acquire reply that re-confirms the holder's own current
//     grant (the latest on the resource) is not a new grant.
//
// Grants are read from leasesim's protocol (acquire replies) when the
// history's spec is leasesim's lease store and it has the lease store's
// operations. An implementation with a spec of its own (or a history with
// no lease-store operation at all, such as a goroutine host's whose code
// only reports beliefs) shows its grants through what its holders reported: a
// holder that believed it held a token (a belief the recorder did not infer
// from actions alone) was issued it from the start of that belief, and a
// token two holders believed under is a token issued twice (token order is
// not judged from beliefs: a grant's reply may reach its holder after a
// later grant's).
func Fencing(h *history.History) Result { return checkFencing(newAnalysis(h)) }

// checkFencing is Fencing on an analysis that other checkers may share
// (Judge).
func checkFencing(a *analysis) Result {
	h := a.h
	v := newVerdict(h, "P2")
	f := fencing{
		a:       a,
		v:       v,
		grants:  newGrantTracker(),
		issued:  make(map[resourceToken]issuedBy),
		issuedT: make(map[issue]bool),
		highest: make(map[string]highWrite),

		silentWriters: make(map[string]bool),
	}
	f.order = newHandsOrder(h)
	f.ownSpec = !leaseStoreSpec(h.Spec)
	foreign := f.ownSpec || !hasGrantorOps(a)
	if foreign {
		f.believedGrants(h)
	}
	var op history.Operation
	for i, r := range a.inProcessedOrder() {
		switch {
		case !foreign && r.grantorOK(opAcquire):
			h.LoadOp(i, &op)
			f.grant(i, &op)
		case r.fenced() && r.kind == opWrite && r.err == errNone:
			h.LoadOp(i, &op)
			f.accepted(i, &op)
		}
	}
	if f.writes == 0 && f.grantCount == 0 && v.violated == 0 && v.undecided == 0 {
		return notApplicable("P2", "fencing", "no lease was granted (by the lease store's replies or a holder's "+
			"belief) and the fenced store accepted no write, so fencing has nothing to judge")
	}
	if foreign {
		return v.result("fencing", fmt.Sprintf("%d accepted writes, tokens non-decreasing and believed by "+
			"their writers; %d grants reported by holders, no token believed by two", f.writes, f.grantCount))
	}
	return v.result("fencing", fmt.Sprintf("%d accepted writes, tokens non-decreasing and issued to "+
		"their writers; %d grants, tokens increasing", f.writes, f.grantCount))
}

// believedGrants reads the grants from what holders reported: when each
// (resource, token, holder) was first believed (believedFrom), how many
// there were, and that no token was believed by two holders.
func (f *fencing) believedGrants(h *history.History) {
	f.believedFrom = make(map[issue]history.Time)
	first := make(map[resourceToken]*history.BeliefInterval)
	reported := make(map[resourceToken]bool)
	for i := range h.Beliefs {
		b := &h.Beliefs[i]
		if b.Inferred {
			continue
		}
		in := issue{resource: b.Resource, client: b.Holder, token: b.Token}
		if at, seen := f.believedFrom[in]; !seen || b.Start < at {
			f.believedFrom[in] = b.Start
		}
		rt := resourceToken{resource: b.Resource, token: b.Token}
		switch prev := first[rt]; {
		case prev == nil:
			first[rt] = b
		case prev.Holder != b.Holder && !reported[rt]:
			reported[rt] = true
			f.v.violate(max(prev.Start, b.Start), fmt.Sprintf("%s and %s both believed they held %q under token %d: "+
				"one token was issued to two holders", prev.Holder, b.Holder, b.Resource, b.Token),
				describeBelief(prev), describeBelief(b))
		}
	}
	f.grantCount = len(f.believedFrom)
}

type resourceToken struct {
	resource string
	token    uint64
}

type issue struct {
	resource, client string
	token            uint64
}

// issuedBy is the grant that first issued a token: its client, and its
// index in the history, to describe it.
type issuedBy struct {
	client string
	op     int
}

// highWrite is the accepted write with the highest token on a resource:
// its token, and its index in the history, to describe it.
type highWrite struct {
	token uint64
	op    int
}

// fencing is the state of the P2 sweep. It keeps indices of operations,
// not operations: the sweep loads each into one variable.
type fencing struct {
	a       *analysis
	v       *verdict
	order   handsOrder // the order the lease changed hands in (fencing_order.go)
	grants  grantTracker
	issued  map[resourceToken]issuedBy // the grant that first issued each token
	issuedT map[issue]bool             // every (resource, token, client) issued
	highest map[string]highWrite       // the accepted write with the highest token, per resource
	// issuedWrite is the (resource, holder, token) of the latest accepted
	// write found in issuedT (if wroteIssued), which only grows: a holder
	// writes again and again under one grant, and its next write needs no
	// hash.
	issuedWrite issue
	wroteIssued bool
	writes      int
	grantCount  int
	// believedFrom is, for an implementation with a spec of its own, when
	// each (resource, token, holder) was first believed: its grant.
	believedFrom map[issue]history.Time
	// silentWriters are the silent holders (analysis.silentHolders) whose
	// writes P2 could not judge, each reported once.
	silentWriters map[string]bool
	ownSpec       bool // the lease store has a spec of its own: no grantor issues anything in leasesim's sense
}

// grant checks a successful acquire, operation i of the history, and
// records the token it issued.
func (f *fencing) grant(i int, op *history.Operation) {
	kind, prev := f.grants.observe(op)
	rt := resourceToken{resource: op.Input.Resource, token: op.Output.Token}
	first, issued := f.issued[rt]
	switch {
	case issued && first.client != op.Client:
		f.v.violate(op.Processed, fmt.Sprintf("the grantor issued token %d on %q to %s after it had issued it to %s",
			rt.token, rt.resource, op.Client, first.client), describeOpAt(f.v.h, first.op), describeOp(op))
	case kind == reissued:
		f.v.violate(op.Processed, fmt.Sprintf("the grantor granted %q to %s with token %d, not above the "+
			"highest token %d issued on it before (latest grant: %s token %d)", rt.resource, op.Client,
			rt.token, prev.maxToken, prev.latest.holder, prev.latest.token), describeOp(op))
	}
	if !issued {
		f.issued[rt] = issuedBy{client: op.Client, op: i}
	}
	if kind.isNew() {
		f.grantCount++
		// A re-confirmation (to this incarnation or an earlier one) is of
		// the resource's latest grant, to this holder under this token:
		// issued already.
		f.issuedT[issue{resource: rt.resource, client: op.Client, token: rt.token}] = true
	}
}

// accepted checks a write the fenced store accepted, operation i of the
// history.
func (f *fencing) accepted(i int, op *history.Operation) {
	f.writes++
	res, token := op.Input.Resource, op.Input.Token
	hi, ok := f.highest[res]
	f.order.accepted(f.v, i, op, ok && token < hi.token)
	if ok && token < hi.token {
		f.v.violate(op.Processed, fmt.Sprintf("the store accepted a write to %q with token %d after one with token %d",
			res, token, hi.token), describeOpAt(f.v.h, hi.op), describeOp(op))
	} else {
		f.highest[res] = highWrite{token: token, op: i}
	}
	in := issue{resource: res, client: op.Client, token: token}
	if (f.wroteIssued && in == f.issuedWrite) || f.issuedT[in] {
		f.issuedWrite, f.wroteIssued = in, true
		return
	}
	if at, ok := f.believedFrom[in]; ok && at <= op.Processed {
		return
	}
	if f.ownSpec && f.a.silentHolder(op.Client) {
		// Granted by the store's own reply but silent about its beliefs:
		// whether it held the token cannot be read, which is no violation.
		if !f.silentWriters[op.Client] {
			f.silentWriters[op.Client] = true
			f.v.dontKnow(fmt.Sprintf("the store accepted a write to %q by %s with token %d, and %s reported no "+
				"belief, so whether it held that token cannot be judged", res, op.Client, token, op.Client))
		}
		return
	}
	detail := fmt.Sprintf("the store accepted a write to %q by %s with token %d, which the grantor never issued to it",
		res, op.Client, token)
	if f.believedFrom != nil && f.ownSpec {
		detail = fmt.Sprintf("the store accepted a write to %q by %s with token %d, which it had not believed it held "+
			"by then", res, op.Client, token)
	}
	evidence := []string{describeOp(op)}
	if first, ok := f.issued[resourceToken{resource: res, token: token}]; ok {
		detail = fmt.Sprintf("the store accepted a write to %q by %s with token %d, which the grantor issued to %s",
			res, op.Client, token, first.client)
		evidence = append(evidence, describeOpAt(f.v.h, first.op))
	}
	f.v.violate(op.Processed, detail, evidence...)
}

// hasGrantorOps reports whether h has any operation the lease store
// processed.
func hasGrantorOps(a *analysis) bool {
	return a.h.Grantor != "" && slices.ContainsFunc(a.rows(), func(r opRow) bool { return r.grantor() })
}
