package leasewire

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// NewOperation returns the schema's operation for request in, sent by
// client at call, and reply out, produced by server at processed and
// received at ret (history.Never if it never was).
func NewOperation(client, server string, call, processed, ret history.Time, in, out lease.Message) history.Operation {
	incarnation, id := SplitReqID(in.ReqID)
	return history.Operation{Client: client, Incarnation: incarnation, Server: server, ID: id, Call: call,
		Processed: processed, Return: ret, Input: Payload(in), Output: Payload(out)}
}

// SplitReqID returns the operation's incarnation and id that a leasesim
// request id carries: its high and its low 32 bits.
func SplitReqID(reqID uint64) (incarnation, id uint64) {
	return lease.Incarnation(reqID), reqID & math.MaxUint32
}

// checkOperation checks that o is an operation of leasesim's protocol,
// as the checkers read it: a request id that splits into a 32-bit
// incarnation and sequence number, a known processing time, and a request
// and its reply that leasesim's messages can say (Message). Errors are
// *FieldError naming the operation's wire field.
func checkOperation(o *history.Operation) error {
	if err := checkRecorded(o); err != nil {
		return err
	}
	switch {
	case o.ID > math.MaxUint32:
		return fieldErr("id", "%d: leasesim's request ids hold a 32-bit sequence number below the incarnation", o.ID)
	case o.Incarnation > math.MaxUint32:
		return fieldErr("incarnation", "%d: leasesim's request ids hold a 32-bit incarnation", o.Incarnation)
	}
	in, err := Message(o.Input)
	if err != nil {
		return under("input", err)
	}
	out, err := Message(o.Output)
	if err != nil {
		return under("output", err)
	}
	switch {
	case !in.Kind.IsRequest():
		return fieldErr("input.kind", "%q is a reply, not a request", o.Input.Kind)
	case out.Kind != in.Kind.Reply():
		return fieldErr("output.kind", "%q does not answer %q (want %q)", o.Output.Kind, o.Input.Kind, in.Kind.Reply())
	}
	return nil
}

// under prefixes a *FieldError's field with parent.
func under(parent string, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: parent + "." + fe.Field, Err: fe.Err}
	}
	return fmt.Errorf("%s: %w", parent, err)
}

// checkRecorded checks what the checkers need of any operation, in any
// protocol: when the server processed it, and its reply.
func checkRecorded(o *history.Operation) error {
	switch {
	case o.Processed == history.Unknown:
		return fieldErr("processed_ns", "missing: the checkers need when the server processed the request")
	case o.Output.Kind == "":
		return fieldErr("output", "missing: the checkers need the reply the server produced")
	}
	return nil
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
