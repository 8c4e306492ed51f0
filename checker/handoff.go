package checker

import (
	"fmt"
	"strings"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// Handoff checks P5, checkpoint handoff. Per resource, over the grantor's
// operations in the order it processed them:
//
//   - (a) every successful acquire hands over exactly the latest checkpoint
//     accepted before it (its state and the token it was accepted under);
//     handing over anything older is a lost checkpoint;
//   - (b) every accepted checkpoint carries the token of the latest grant on
//     the resource; any other token is a stale holder overwriting it.
//
// An accepted checkpoint of the same holder and token whose request id is
// not above that of the latest accepted one was overtaken by it: the
// grantor linearises it before the newer one and stores nothing, so it does
// not count as the latest.
//
// A store that follows the lessor specification (zoo/etcdraft) grants by
// creating the resource's key and hands a checkpoint over by a read, not
// by acquire replies: P3 judges its checkpoints against that
// specification (a checkpoint puts only under the key's live create
// revision, and a read-back sees the latest put), so P5 does not apply.
func Handoff(h *history.History) Result { return checkHandoff(newAnalysis(h)) }

// checkHandoff is Handoff on an analysis that other checkers may share
// (Judge).
func checkHandoff(a *analysis) Result {
	h := a.h
	if base, _, _ := strings.Cut(h.Spec, "/"); base == model.LessorSpec().Name {
		return notApplicable("P5", "handoff", "the lessor store hands checkpoints over by reads of a key, not by "+
			"acquire replies; P3 judges its checkpoints against the lessor specification")
	}
	v := newVerdict(h, "P5")
	ck := newCheckpointTracker()
	grants := newGrantTracker()
	handed, accepted := 0, 0
	checkpoints := 0 // every checkpoint the grantor answered, accepted or refused
	var op history.Operation
	for i, r := range a.inProcessedOrder() {
		if r.grantor() && r.kind == opCheckpoint {
			checkpoints++
		}
		if !r.grantorOK(opAcquire) && !r.grantorOK(opCheckpoint) {
			continue
		}
		h.LoadOp(i, &op)
		switch r.kind {
		case opAcquire:
			handed++
			checkHandedOver(v, ck.latest(op.Input.Resource), &op)
			grants.observe(&op)
		case opCheckpoint:
			accepted++
			checkCheckpointToken(v, grants, ck.latest(op.Input.Resource), &op)
			ck.accept(i, &op)
		}
	}
	if checkpoints == 0 && len(h.Tasks) == 0 && len(h.Units) == 0 && v.violated == 0 {
		return notApplicable("P5", "handoff", "no task ran and no checkpoint was taken, so nothing was handed over")
	}
	return v.result("handoff", fmt.Sprintf("%d grants each handed over the latest accepted checkpoint; "+
		"%d checkpoints accepted, each under the latest grant's token", handed, accepted))
}

// checkHandedOver checks (a) for grant, given the latest accepted
// checkpoint (nil if none).
func checkHandedOver(v *verdict, latest *checkpoint, grant *history.Operation) {
	var want string
	var wantToken uint64
	if latest != nil {
		want, wantToken = latest.state, latest.token
	}
	if grant.Output.State == want && grant.Output.StateToken == wantToken {
		return
	}
	if latest == nil {
		v.violate(grant.Processed, fmt.Sprintf("the grant of %q to %s (token %d) handed over state %q of token %d, "+
			"but no checkpoint was ever accepted", grant.Input.Resource, grant.Client, grant.Output.Token,
			grant.Output.State, grant.Output.StateToken), describeOp(grant))
		return
	}
	accepted := v.h.Op(latest.op)
	v.violateDuring(grant.Processed, accepted.Processed, grant.Processed,
		fmt.Sprintf("lost checkpoint: the grant of %q to %s (token %d) handed over state %q of token %d, "+
			"but the latest accepted checkpoint is %q of token %d, accepted at %v", grant.Input.Resource,
			grant.Client, grant.Output.Token, grant.Output.State, grant.Output.StateToken, want, wantToken,
			accepted.Processed),
		"latest accepted: "+describeOp(&accepted), "grant: "+describeOp(grant))
}

// checkCheckpointToken checks (b) for an accepted checkpoint.
func checkCheckpointToken(v *verdict, grants grantTracker, latest *checkpoint, ckpt *history.Operation) {
	g, ok := grants.latest(ckpt.Input.Resource)
	if ok && g.token == ckpt.Input.Token {
		return
	}
	what := "nothing was granted on it yet"
	if ok {
		what = fmt.Sprintf("its latest grant is token %d to %s", g.token, g.holder)
	}
	evidence := []string{"overwriting: " + describeOp(ckpt)}
	if latest != nil {
		evidence = append(evidence, "overwritten: "+describeOpAt(v.h, latest.op))
	}
	v.violate(ckpt.Processed, fmt.Sprintf("stale holder %s (token %d) overwrote the checkpoint of %q, but %s",
		ckpt.Client, ckpt.Input.Token, ckpt.Input.Resource, what), evidence...)
}

// checkpointTracker follows the latest accepted checkpoint of each
// resource.
type checkpointTracker struct {
	byResource map[string]*checkpoint
}

// checkpoint is what a checkpointTracker keeps of an accepted checkpoint:
// what the sweeps compare, and the operation's index in the history, to
// describe it. It keeps no operation: a history may give its operations
// only as copies, loaded one after another into one variable.
type checkpoint struct {
	op      int // the index of the operation in the history
	client  string
	token   uint64 // Input.Token
	request uint64 // requestID
	state   string // Input.State
}

func newCheckpointTracker() checkpointTracker {
	return checkpointTracker{byResource: make(map[string]*checkpoint)}
}

// latest returns the latest accepted checkpoint of resource, or nil. It
// changes in place when a later checkpoint of the resource is accepted.
func (t checkpointTracker) latest(resource string) *checkpoint { return t.byResource[resource] }

// accept records an accepted checkpoint op, operation i of the history,
// unless a newer request of the same holder under the same token overtook
// it (see Handoff).
func (t checkpointTracker) accept(i int, op *history.Operation) {
	cur := t.byResource[op.Input.Resource]
	if cur != nil && cur.client == op.Client && cur.token == op.Input.Token && requestID(op) != 0 &&
		requestID(op) <= cur.request {
		return
	}
	if cur == nil {
		cur = new(checkpoint)
		t.byResource[op.Input.Resource] = cur
	}
	*cur = checkpoint{op: i, client: op.Client, token: op.Input.Token, request: requestID(op), state: op.Input.State}
}
