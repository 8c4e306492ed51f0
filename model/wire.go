package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/lease"
)

// This file is the adapter from leasesim's own wire protocol
// (lease.Message) to the protocol-neutral specifications, and the only file
// of the package that imports lease. Once the checker reads the neutral
// history, it moves to that protocol's adapter and the import goes.

// LeaseStore returns Lease under policy (WirePolicy gives leasesim's for a
// configuration), over lease.Message inputs and outputs (or pointers to them): the request, with
// Client set, and the grantor's reply, whose GrantorTime is the server's
// reading. The incarnation is the request id's (lease.Incarnation) and a
// checkpoint's Seq is its request id. A reply that does not answer its
// request is illegal.
func LeaseStore(policy LeasePolicy) porcupine.Model {
	return leaseModel(leaseSpec{policy: policy}, wireLeaseOp,
		func(op porcupine.Operation) string { return message(op.Input).Resource },
		func(v any) string { return message(v).Resource })
}

// FencedRegister returns Register over lease.Message inputs and outputs (or
// pointers to them): KindWrite and KindRead requests and their replies.
func FencedRegister() porcupine.Model {
	return registerModel(wireRegisterOp,
		func(op porcupine.Operation) string { return message(op.Input).Resource },
		func(v any) string { return message(v).Resource })
}

// WirePolicy is leasesim's lease policy under cfg: HoldRho(cfg.Rho), or
// ExactTTL() when the grantor expires at exactly the TTL
// (lease.SplitHolderBudgets).
func WirePolicy(cfg lease.Config) LeasePolicy {
	if cfg.DriftSplit == lease.SplitHolderBudgets {
		return ExactTTL()
	}
	return HoldRho(cfg.Rho)
}

// Explain says why the specification rejects the operation (in, out) in
// state, a state reached through LeaseStore(policy) or FencedRegister(), or
// returns "" if the operation is legal there. It is the reason behind Step's
// verdict, for evidence.
func Explain(policy LeasePolicy, state any, in, out lease.Message) string {
	switch s := state.(type) {
	case leaseState:
		i, o, why := wireLeaseOp(in, out)
		if why != "" {
			return why
		}
		_, why = leaseSpec{policy: policy}.step(s, i, o)
		return why
	case registerState:
		i, o, why := wireRegisterOp(in, out)
		if why != "" {
			return why
		}
		_, why = registerStep(s, i, o)
		return why
	}
	panic(fmt.Sprintf("model: Explain: %T is not a state of package model", state))
}

// wireLeaseOp converts a lease-store request and reply.
func wireLeaseOp(input, output any) (LeaseInput, LeaseOutput, string) {
	in, out := message(input), message(output)
	if out.Kind != in.Kind.Reply() {
		return LeaseInput{}, LeaseOutput{}, fmt.Sprintf("reply %v does not answer %v", out.Kind, in.Kind)
	}
	return LeaseInput{Op: LeaseOp(in.Kind.String()), Client: string(in.Client), Resource: in.Resource,
			Token: in.Token, TTL: in.TTL, Incarnation: lease.Incarnation(in.ReqID), Seq: in.ReqID, State: string(in.State)},
		LeaseOutput{Err: LeaseErr(wireErr(out.Err)), ServerTime: out.GrantorTime, Token: out.Token, TTL: out.TTL,
			Holder: string(out.Holder), State: string(out.State), CheckpointToken: out.CheckpointToken}, ""
}

// wireRegisterOp converts a fenced-resource request and reply.
func wireRegisterOp(input, output any) (RegisterInput, RegisterOutput, string) {
	in, out := message(input), message(output)
	if out.Kind != in.Kind.Reply() {
		return RegisterInput{}, RegisterOutput{}, fmt.Sprintf("reply %v does not answer %v", out.Kind, in.Kind)
	}
	return RegisterInput{Op: RegisterOp(in.Kind.String()), Client: string(in.Client), Resource: in.Resource,
			Key: in.Key, Token: in.Token, Value: string(in.Value)},
		RegisterOutput{Err: RegisterErr(wireErr(out.Err)), Token: out.Token, Value: string(out.Value)}, ""
}

// wireErr names a code as the neutral specifications do: "" for success,
// else the code's name, which the neutral error constants share.
func wireErr(c lease.ErrCode) string {
	if c == lease.CodeOK {
		return ""
	}
	return c.String()
}

// message returns an operation's input or output: a lease.Message, or a
// pointer to one, which spares copying a large struct into an interface.
// Anything else is a programmer error.
func message(v any) *lease.Message {
	switch m := v.(type) {
	case lease.Message:
		return &m
	case *lease.Message:
		return m
	}
	panic(fmt.Sprintf("model: operation-is-a-message: input or output is %T, not lease.Message", v))
}
