package model

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
)

// The specifications over a recorded history: each operation's input is
// the history's operation (*history.Operation, or a history.Operation),
// whose Input payload is the request, and its output the reply
// (*history.Payload, or a history.Payload). This file is how a history
// reaches the neutral specifications: leasesim's lease store, the fenced
// register, the expiring key and the compare-and-swap record read the
// payload fields their kinds use (see history.Payload), and nothing of any
// protocol's own messages. The lessor has no reader of history operations
// yet (SpecFor says so): a payload has no field for a key's create and mod
// revisions.

// replySuffix ends a reply's kind: "acquire" is answered by
// "acquire_reply".
const replySuffix = "_reply"

// LeaseStore returns Lease under policy over the history's operations. A
// request's client is its payload's Holder (the operation's Client if
// that is empty); its incarnation is the operation's, and a checkpoint's
// Seq is Incarnation<<32 | ID, which orders a client's requests as long as
// both fit 32 bits, as leasesim's do. The reply's Clock is the server's
// reading, StateToken the handed-over checkpoint's token. A reply whose
// kind does not answer the request's is illegal.
func LeaseStore(policy LeasePolicy) porcupine.Model {
	return leaseModel(leaseSpec{policy: policy}, historyLeaseOp, historyResource)
}

// historyResource is LeaseStore's and FencedRegister's partition key: the
// resource an operation's request names.
func historyResource(input any) string { return operationOf(input).Input.Resource }

// LeaseStoreSpec is LeaseStore with its name ("lease-store") and Explain.
func LeaseStoreSpec(policy LeasePolicy) Spec {
	sp := leaseSpec{policy: policy}
	return Spec{Name: LeaseSpec(policy).Name, Model: LeaseStore(policy), Explain: func(state, input, output any) string {
		in, out, why := historyLeaseOp(input, output)
		if why != "" {
			return why
		}
		_, why = sp.step(state.(leaseState), &in, &out)
		return why
	}, Replay: func() Replayer { return &leaseReplayer{sp: sp, op: historyLeaseOp} }, Key: historyResource}
}

// FencedRegister returns Register over the history's operations: write and
// read requests to a fenced store and their replies.
func FencedRegister() porcupine.Model {
	return registerModel(historyRegisterOp, historyResource)
}

// FencedRegisterSpec is FencedRegister with its name ("fenced-register")
// and Explain.
func FencedRegisterSpec() Spec {
	return Spec{Name: RegisterSpec().Name, Model: FencedRegister(), Explain: func(state, input, output any) string {
		in, out, why := historyRegisterOp(input, output)
		if why != "" {
			return why
		}
		_, why = registerStep(state.(registerState), in, out)
		return why
	}, Replay: func() Replayer { return &registerReplayer{op: historyRegisterOp} }, Key: historyResource}
}

// historyLeaseOp reads a lease-store operation.
func historyLeaseOp(input, output any) (LeaseInput, LeaseOutput, string) {
	o, out := operationOf(input), payloadOf(output)
	in := &o.Input
	if !answers(out.Kind, in.Kind) {
		return LeaseInput{}, LeaseOutput{}, fmt.Sprintf("reply %v does not answer %v", out.Kind, in.Kind)
	}
	return LeaseInput{Op: LeaseOp(in.Kind), Client: clientOf(o), Resource: in.Resource, Token: in.Token, TTL: in.TTL,
			Incarnation: o.Incarnation, Seq: seqOf(o), State: in.State},
		LeaseOutput{Err: LeaseErr(out.Err), ServerTime: out.Clock, Token: out.Token, TTL: out.TTL, Holder: out.Holder,
			State: out.State, CheckpointToken: out.StateToken}, ""
}

// historyRegisterOp reads a fenced-store operation.
func historyRegisterOp(input, output any) (RegisterInput, RegisterOutput, string) {
	o, out := operationOf(input), payloadOf(output)
	in := &o.Input
	if !answers(out.Kind, in.Kind) {
		return RegisterInput{}, RegisterOutput{}, fmt.Sprintf("reply %v does not answer %v", out.Kind, in.Kind)
	}
	return RegisterInput{Op: RegisterOp(in.Kind), Client: clientOf(o), Resource: in.Resource, Key: in.Key,
			Token: in.Token, Value: in.Value},
		RegisterOutput{Err: RegisterErr(out.Err), Token: out.Token, Value: out.Value}, ""
}

// historyKeyInput reads an expiring-key command: its kind is the KeyOp,
// and it reads Key, Value and TTL.
func historyKeyInput(o *history.Operation) KeyInput {
	in := &o.Input
	return KeyInput{Op: KeyOp(in.Kind), Client: clientOf(o), Key: in.Key, Value: in.Value, TTL: in.TTL}
}

// historyKeyOutput reads an expiring-key reply: Err, OK, the Value a get
// found, the value after an incr in Revision, and the server's Clock.
func historyKeyOutput(p *history.Payload) KeyOutput {
	return KeyOutput{Err: KeyErr(p.Err), OK: p.OK, Value: p.Value, N: p.Revision, ServerTime: p.Clock}
}

// historyRecordInput reads a compare-and-swap record request: its kind is
// the RecordOp, its Resource (or else Key) the record's name, Version the
// version an update read, and the record it writes as historyRecord says.
func historyRecordInput(o *history.Operation) RecordInput {
	in := &o.Input
	return RecordInput{Op: RecordOp(in.Kind), Client: clientOf(o), Name: cmp.Or(in.Resource, in.Key),
		Record: historyRecord(in), Version: in.Version}
}

// historyRecordOutput reads a compare-and-swap record reply: Err, the
// record's Version, and the record a get returned.
func historyRecordOutput(p *history.Payload) RecordOutput {
	return RecordOutput{Err: RecordErr(p.Err), Record: historyRecord(p), Version: p.Version}
}

// historyRecord reads the record a payload carries: Holder and
// HolderIncarnation are the holder identity, TTL the lease duration,
// Token the lease transitions, and Value the writer's times as
// "acquire=<ns> renew=<ns>". A Value in another form reads as no times, so
// only the other fields tell such records apart.
func historyRecord(p *history.Payload) LeaseRecord {
	r := LeaseRecord{HolderIdentity: p.Holder, HolderIncarnation: p.HolderIncarnation, LeaseDuration: p.TTL,
		LeaseTransitions: int64(min(p.Token, math.MaxInt64))}
	acquire, renew, ok := strings.Cut(p.Value, " ")
	if !ok {
		return r
	}
	a, errA := strconv.ParseInt(strings.TrimPrefix(acquire, "acquire="), 10, 64)
	n, errN := strconv.ParseInt(strings.TrimPrefix(renew, "renew="), 10, 64)
	if errA == nil && errN == nil && strings.HasPrefix(acquire, "acquire=") && strings.HasPrefix(renew, "renew=") {
		r.AcquireTime, r.RenewTime = a, n
	}
	return r
}

// answers reports whether a reply of kind reply answers a request of kind
// request (request + "_reply"), without building the string.
func answers(reply, request string) bool {
	return len(reply) == len(request)+len(replySuffix) && strings.HasPrefix(reply, request) &&
		strings.HasSuffix(reply, replySuffix)
}

// clientOf is the client a request acts for: its payload's Holder, or the
// operation's client.
func clientOf(o *history.Operation) string {
	if o.Input.Holder != "" {
		return o.Input.Holder
	}
	return o.Client
}

// seqOf orders a client's requests: the incarnation above the id, each in
// 32 bits (saturating beyond).
func seqOf(o *history.Operation) uint64 {
	return min(o.Incarnation, math.MaxUint32)<<32 | min(o.ID, math.MaxUint32)
}

// operationOf returns an operation's input: a *history.Operation, or a
// history.Operation. Anything else is a programmer error.
func operationOf(v any) *history.Operation {
	switch o := v.(type) {
	case *history.Operation:
		return o
	case history.Operation:
		return &o
	}
	panic(fmt.Sprintf("model: input-is-an-operation: input is %T, not history.Operation", v))
}

// payloadOf returns an operation's output: a *history.Payload, or a
// history.Payload. Anything else is a programmer error.
func payloadOf(v any) *history.Payload {
	switch p := v.(type) {
	case *history.Payload:
		return p
	case history.Payload:
		return &p
	}
	panic(fmt.Sprintf("model: output-is-a-payload: output is %T, not history.Payload", v))
}
