package leasewire

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// Operation returns op as the schema's operation. The request id splits
// into the incarnation (its high 32 bits, lease.Incarnation) and the
// request's sequence number within it (ID).
func Operation(op history.Op) history.Operation {
	return NewOperation(op.Client, op.Server, op.Call, op.Processed, op.Return, op.In, op.Out)
}

// NewOperation returns the schema's operation for request in, sent by
// client at call, and reply out, produced by server at processed and
// received at ret (history.Never if it never was).
func NewOperation(client, server string, call, processed, ret history.Time, in, out lease.Message) history.Operation {
	return history.Operation{Client: client, Incarnation: lease.Incarnation(in.ReqID), Server: server,
		ID: in.ReqID & math.MaxUint32, Call: call, Processed: processed, Return: ret,
		Input: Payload(in), Output: Payload(out)}
}

// Op returns o as the legacy operation the checkers read, the inverse of
// Operation. Errors are *FieldError naming the operation's wire field.
func Op(o *history.Operation) (history.Op, error) {
	switch {
	case o.ID > math.MaxUint32:
		return history.Op{}, fieldErr("id", "%d: leasesim's request ids hold a 32-bit sequence number below the incarnation", o.ID)
	case o.Incarnation > math.MaxUint32:
		return history.Op{}, fieldErr("incarnation", "%d: leasesim's request ids hold a 32-bit incarnation", o.Incarnation)
	case o.Processed == history.Unknown:
		return history.Op{}, fieldErr("processed_ns", "missing: the checkers need when the server processed the request")
	case o.Output.Kind == "":
		return history.Op{}, fieldErr("output", "missing: the checkers need the reply the server produced")
	}
	in, err := Message(o.Input)
	if err != nil {
		return history.Op{}, under("input", err)
	}
	out, err := Message(o.Output)
	if err != nil {
		return history.Op{}, under("output", err)
	}
	switch {
	case !in.Kind.IsRequest():
		return history.Op{}, fieldErr("input.kind", "%q is a reply, not a request", o.Input.Kind)
	case out.Kind != in.Kind.Reply():
		return history.Op{}, fieldErr("output.kind", "%q does not answer %q (want %q)", o.Output.Kind, o.Input.Kind, in.Kind.Reply())
	}
	in.ReqID = o.Incarnation<<32 | o.ID
	out.ReqID, out.Client = in.ReqID, in.Client
	return history.Op{Client: o.Client, Server: o.Server, Call: o.Call, Processed: o.Processed,
		Return: o.Return, In: in, Out: out}, nil
}

// under prefixes a *FieldError's field with parent.
func under(parent string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: parent + "." + fe.Field, Err: fe.Err}
	}
	return fmt.Errorf("%s: %w", parent, err)
}

// Derived returns what the fenced store and the lease store decided, as
// the schema records it beside the operations: a write record for every
// write a fenced server (one of fenced) processed, accepted or refused,
// and a checkpoint record for every checkpoint the lease store accepted.
// In leasesim's protocol both follow from the operations, so ReadHistory
// checks a file's write and checkpoint records against them.
func Derived(ops []history.Operation, fenced []string) []history.Event {
	var out []history.Event
	for i := range ops {
		o := &ops[i]
		switch {
		case o.Input.Kind == lease.KindWrite.String() && slices.Contains(fenced, o.Server):
			out = append(out, &history.FencedWrite{Store: o.Server, Resource: o.Input.Resource, Key: o.Input.Key,
				Writer: o.Client, Incarnation: o.Incarnation, Token: o.Input.Token, At: o.Processed,
				Accepted: o.Output.OK})
		case o.Input.Kind == lease.KindCheckpoint.String() && o.Output.OK && !slices.Contains(fenced, o.Server):
			out = append(out, &history.CheckpointAccepted{Resource: o.Input.Resource, Writer: o.Client,
				Incarnation: o.Incarnation, Token: o.Input.Token, At: o.Processed, State: o.Input.State})
		}
	}
	return out
}
