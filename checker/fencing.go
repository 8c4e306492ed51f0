package checker

import (
	"fmt"

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
func Fencing(h *history.History) Result {
	v := newVerdict(h, "P2")
	f := fencing{
		v:       v,
		grants:  newGrantTracker(),
		issued:  make(map[resourceToken]*history.Operation),
		issuedT: make(map[issue]bool),
		highest: make(map[string]*history.Operation),
	}
	for _, op := range inProcessedOrder(h) {
		switch {
		case isAcquireOK(h, op):
			f.grant(op)
		case op.Server == h.Resource && op.Input.Kind == kindWrite && op.Output.Err == "":
			f.accepted(op)
		}
	}
	return v.result("fencing", fmt.Sprintf("%d accepted writes, tokens non-decreasing and issued to "+
		"their writers; %d grants, tokens increasing", f.writes, f.grantCount))
}

type resourceToken struct {
	resource string
	token    uint64
}

type issue struct {
	resource, client string
	token            uint64
}

// fencing is the state of the P2 sweep.
type fencing struct {
	v          *verdict
	grants     grantTracker
	issued     map[resourceToken]*history.Operation // the grant that first issued each token
	issuedT    map[issue]bool                       // every (resource, token, client) issued
	highest    map[string]*history.Operation        // the accepted write with the highest token, per resource
	writes     int
	grantCount int
}

// grant checks a successful acquire and records the token it issued.
func (f *fencing) grant(op *history.Operation) {
	kind, prev := f.grants.observe(op)
	rt := resourceToken{resource: op.Input.Resource, token: op.Output.Token}
	first := f.issued[rt]
	switch {
	case first != nil && first.Client != op.Client:
		f.v.violate(op.Processed, fmt.Sprintf("the grantor issued token %d on %q to %s after it had issued it to %s",
			rt.token, rt.resource, op.Client, first.Client), describeOp(first), describeOp(op))
	case kind == reissued:
		f.v.violate(op.Processed, fmt.Sprintf("the grantor granted %q to %s with token %d, not above the "+
			"highest token %d issued on it before (latest grant: %s token %d)", rt.resource, op.Client,
			rt.token, prev.maxToken, prev.latest.holder, prev.latest.token), describeOp(op))
	}
	if kind != reconfirmed {
		f.grantCount++
	}
	if first == nil {
		f.issued[rt] = op
	}
	f.issuedT[issue{resource: rt.resource, client: op.Client, token: rt.token}] = true
}

// accepted checks a write the fenced store accepted.
func (f *fencing) accepted(op *history.Operation) {
	f.writes++
	res, token := op.Input.Resource, op.Input.Token
	if hi := f.highest[res]; hi != nil && token < hi.Input.Token {
		f.v.violate(op.Processed, fmt.Sprintf("the store accepted a write to %q with token %d after one with token %d",
			res, token, hi.Input.Token), describeOp(hi), describeOp(op))
	} else {
		f.highest[res] = op
	}
	if f.issuedT[issue{resource: res, client: op.Client, token: token}] {
		return
	}
	detail := fmt.Sprintf("the store accepted a write to %q by %s with token %d, which the grantor never issued to it",
		res, op.Client, token)
	evidence := []string{describeOp(op)}
	if first := f.issued[resourceToken{resource: res, token: token}]; first != nil {
		detail = fmt.Sprintf("the store accepted a write to %q by %s with token %d, which the grantor issued to %s",
			res, op.Client, token, first.Client)
		evidence = append(evidence, describeOp(first))
	}
	f.v.violate(op.Processed, detail, evidence...)
}
