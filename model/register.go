package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/lease"
)

// FencedRegister returns the fenced resource's specification as a porcupine
// model, partitioned by resource. A resource holds one value per key and
// one highest accepted token shared by all its keys:
//   - write(token, key, value) is accepted if and only if token is at least
//     the highest token accepted before; the highest becomes token and the
//     key's value becomes value. ErrFenced is legal only if token is below
//     the highest, and a token it names must be that highest.
//   - read(key) returns the key's latest value and the token that wrote it
//     (empty and 0 before any write).
//
// ErrBadRequest is legal for both. Unfenced side effects (effect) are not
// part of the register.
func FencedRegister() porcupine.Model {
	return porcupine.Model{
		Partition:      partitionByResource,
		PartitionEvent: partitionEventsByResource,
		Init:           func() any { return registerState{} },
		Step: func(state, input, output any) (bool, any) {
			next, why := registerStep(state.(registerState), message(input), message(output))
			return why == "", next
		},
		Equal:             func(a, b any) bool { return a.(registerState).equal(b.(registerState)) },
		Hash:              func(state any) uint64 { return state.(registerState).hash() },
		DescribeOperation: func(input, output any) string { return describeRegisterOp(message(input), message(output)) },
		DescribeState:     func(state any) string { return state.(registerState).String() },
	}
}

// registerState is one resource of the fenced register. It is a value:
// steps copy cells before changing them.
type registerState struct {
	highest uint64 // the highest token accepted
	cells   []cell // sorted by key
}

// cell is the latest value of one key and the token that wrote it.
type cell struct {
	key   string
	token uint64
	value string
}

// get returns the cell of key, or an empty one.
func (s registerState) get(key string) cell {
	if i, ok := s.find(key); ok {
		return s.cells[i]
	}
	return cell{key: key}
}

func (s registerState) find(key string) (int, bool) {
	return slices.BinarySearchFunc(s.cells, key, func(c cell, k string) int { return strings.Compare(c.key, k) })
}

// put returns s with c written, leaving s's cells untouched.
func (s registerState) put(c cell) registerState {
	i, ok := s.find(c.key)
	cells := slices.Clone(s.cells)
	if ok {
		cells[i] = c
	} else {
		cells = slices.Insert(cells, i, c)
	}
	return registerState{highest: max(s.highest, c.token), cells: cells}
}

func (s registerState) equal(o registerState) bool {
	return s.highest == o.highest && slices.Equal(s.cells, o.cells)
}

// String describes the state, for example `highest tok 7; "k"=tok 7 "v"`.
func (s registerState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "highest tok %d", s.highest)
	for _, c := range s.cells {
		fmt.Fprintf(&b, "; %s=tok %d %s", quote(c.key), c.token, quote(c.value))
	}
	return b.String()
}

// registerStep applies one operation to s: the next state, and "" if the
// operation is legal in s, or why not.
func registerStep(s registerState, in, out lease.Message) (registerState, string) {
	if out.Kind != in.Kind.Reply() {
		return s, fmt.Sprintf("reply %v does not answer %v", out.Kind, in.Kind)
	}
	if out.Err == lease.CodeBadRequest {
		return s, ""
	}
	switch in.Kind {
	case lease.KindWrite:
		return write(s, in, out)
	case lease.KindRead:
		if out.Err != lease.CodeOK {
			return s, fmt.Sprintf("read cannot fail with %v", out.Err)
		}
		if c := s.get(in.Key); out.Token != c.token || string(out.Value) != c.value {
			return s, fmt.Sprintf("read %s returned tok %d %s, but the latest write is tok %d %s",
				quote(in.Key), out.Token, quote(string(out.Value)), c.token, quote(c.value))
		}
		return s, ""
	}
	return s, fmt.Sprintf("%v is not a fenced-register operation", in.Kind)
}

// write: accepted if and only if the token is at least the highest.
func write(s registerState, in, out lease.Message) (registerState, string) {
	switch out.Err {
	case lease.CodeOK:
		if in.Token < s.highest {
			return s, fmt.Sprintf("write under tok %d by %s accepted, but tok %d was accepted before",
				in.Token, in.Client, s.highest)
		}
		return s.put(cell{key: in.Key, token: in.Token, value: string(in.Value)}), ""
	case lease.CodeFenced:
		switch {
		case in.Token >= s.highest:
			return s, fmt.Sprintf("write under tok %d by %s fenced, but the highest accepted is tok %d",
				in.Token, in.Client, s.highest)
		case out.Token != 0 && out.Token != s.highest:
			return s, fmt.Sprintf("fenced reply names highest tok %d, but it is tok %d", out.Token, s.highest)
		}
		return s, ""
	}
	return s, fmt.Sprintf("write cannot fail with %v", out.Err)
}
