package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// RegisterOp names a fenced-register operation.
type RegisterOp string

// The fenced-register operations.
const (
	OpWrite RegisterOp = "write"
	OpRead  RegisterOp = "read"
)

// RegisterErr is how a fenced-register operation failed; "" is success.
type RegisterErr string

// The failures the fenced register tells apart; any other fails the
// specification.
const (
	RegisterOK RegisterErr = ""
	// RegisterFenced: a write refused because a higher token was accepted.
	RegisterFenced RegisterErr = "fenced"
	// RegisterBadRequest: a malformed request; legal for both operations.
	RegisterBadRequest RegisterErr = "bad_request"
)

// RegisterInput is a request to the fenced resource.
type RegisterInput struct {
	Op       RegisterOp
	Client   string
	Resource string
	Key      string
	Token    uint64 // write: the fencing token it carries
	Value    string // write: the value
}

// RegisterOutput is the fenced resource's reply.
type RegisterOutput struct {
	Err RegisterErr
	// Token is, for a read, the token that wrote the value; for a fenced
	// write, the highest accepted token (0 if not named).
	Token uint64
	Value string // read: the key's value
}

// Register returns the fenced resource's specification as a porcupine
// model, partitioned by resource; inputs are RegisterInput and outputs
// RegisterOutput (or pointers to them). A resource holds one value per key
// and one highest accepted token shared by all its keys:
//   - write(token, key, value) is accepted if and only if token is at least
//     the highest token accepted before; the highest becomes token and the
//     key's value becomes value. RegisterFenced is legal only if token is
//     below the highest, and a token it names must be that highest.
//   - read(key) returns the key's latest value and the token that wrote it
//     (empty and 0 before any write).
//
// RegisterBadRequest is legal for both. What it ignores: unfenced side
// effects, which are not operations of the register, and who was issued
// which token (P2 checks that).
func Register() porcupine.Model {
	return registerModel(registerOp, registerResource)
}

// registerResource is Register's partition key: a RegisterInput's resource.
func registerResource(input any) string { return registerInput(input).Resource }

// RegisterSpec is Register with its name and Explain.
func RegisterSpec() Spec {
	return Spec{Name: "fenced-register", Model: Register(), Explain: func(state, input, output any) string {
		_, why := registerStep(state.(registerState), registerInput(input), registerOutput(output))
		return why
	}, Replay: func() Replayer { return &registerReplayer{op: registerOp} }, Key: registerResource}
}

// registerModel builds the register model over any representation of
// operations: op converts an (input, output) pair to the neutral types, or
// says why it is not a register operation.
func registerModel(op func(input, output any) (RegisterInput, RegisterOutput, string),
	resource func(input any) string) porcupine.Model {
	return partitionedBy(porcupine.Model{
		Init: func() any { return registerState{} },
		Step: func(state, input, output any) (bool, any) {
			in, out, why := op(input, output)
			if why != "" {
				return false, state
			}
			next, why := registerStep(state.(registerState), in, out)
			return why == "", next
		},
		Equal: func(a, b any) bool { return a.(registerState).equal(b.(registerState)) },
		Hash:  func(state any) uint64 { return state.(registerState).hash() },
		DescribeOperation: func(input, output any) string {
			in, out, _ := op(input, output)
			return describeRegisterOp(in, out)
		},
		DescribeState: func(state any) string { return state.(registerState).String() },
	}, resource)
}

func registerOp(input, output any) (RegisterInput, RegisterOutput, string) {
	return registerInput(input), registerOutput(output), ""
}

func registerInput(v any) RegisterInput {
	switch x := v.(type) {
	case RegisterInput:
		return x
	case *RegisterInput:
		return *x
	}
	panic(fmt.Sprintf("model: register-input-type: input is %T, not RegisterInput", v))
}

func registerOutput(v any) RegisterOutput {
	switch x := v.(type) {
	case RegisterOutput:
		return x
	case *RegisterOutput:
		return *x
	}
	panic(fmt.Sprintf("model: register-output-type: output is %T, not RegisterOutput", v))
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
func registerStep(s registerState, in RegisterInput, out RegisterOutput) (registerState, string) {
	c, writes, why := registerCheck(s, in, out)
	if writes && why == "" {
		s = s.put(c)
	}
	return s, why
}

// registerCheck judges one operation in s: "" if it is legal, or why not,
// and, if it is a legal accepted write, the cell it writes.
func registerCheck(s registerState, in RegisterInput, out RegisterOutput) (c cell, writes bool, why string) {
	if out.Err == RegisterBadRequest {
		return cell{}, false, ""
	}
	switch in.Op {
	case OpWrite:
		return write(s, in, out)
	case OpRead:
		if out.Err != RegisterOK {
			return cell{}, false, fmt.Sprintf("read cannot fail with %v", out.Err)
		}
		if c := s.get(in.Key); out.Token != c.token || out.Value != c.value {
			return cell{}, false, fmt.Sprintf("read %s returned tok %d %s, but the latest write is tok %d %s",
				quote(in.Key), out.Token, quote(out.Value), c.token, quote(c.value))
		}
		return cell{}, false, ""
	}
	return cell{}, false, fmt.Sprintf("%v is not a fenced-register operation", in.Op)
}

// write: accepted if and only if the token is at least the highest.
func write(s registerState, in RegisterInput, out RegisterOutput) (cell, bool, string) {
	switch out.Err {
	case RegisterOK:
		if in.Token < s.highest {
			return cell{}, false, fmt.Sprintf("write under tok %d by %s accepted, but tok %d was accepted before",
				in.Token, in.Client, s.highest)
		}
		return cell{key: in.Key, token: in.Token, value: in.Value}, true, ""
	case RegisterFenced:
		switch {
		case in.Token >= s.highest:
			return cell{}, false, fmt.Sprintf("write under tok %d by %s fenced, but the highest accepted is tok %d",
				in.Token, in.Client, s.highest)
		case out.Token != 0 && out.Token != s.highest:
			return cell{}, false, fmt.Sprintf("fenced reply names highest tok %d, but it is tok %d", out.Token, s.highest)
		}
		return cell{}, false, ""
	}
	return cell{}, false, fmt.Sprintf("write cannot fail with %v", out.Err)
}
