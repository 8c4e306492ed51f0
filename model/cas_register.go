package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// CASOp names an operation of a compare-and-set register.
type CASOp string

// The compare-and-set register's operations, as Jepsen's register and
// cas-register workloads name them.
const (
	CASRead  CASOp = "read"
	CASWrite CASOp = "write"
	CASSet   CASOp = "cas" // compare-and-set: write To if the value is From
)

// CASInput is a request to a compare-and-set register: Value for a write,
// From and To for a cas, on Key (Jepsen's independent keys; "" for one
// register).
type CASInput struct {
	Op       CASOp
	Key      string
	Value    int64
	From, To int64
}

// CASOutput is its reply. Known is false for an operation whose outcome
// the client never learned (Jepsen's :info, a timed-out read): it may or
// may not have taken effect. OK is a cas's success; Exists and Value are
// what a read returned (Exists false: nil).
type CASOutput struct {
	Known  bool
	OK     bool
	Exists bool
	Value  int64
}

// casState is the register: whether it holds a value, and which.
type casState struct {
	set   bool
	value int64
}

// CASRegister returns the specification of compare-and-set registers as a
// porcupine model, partitioned by key, inputs CASInput and outputs
// CASOutput: the model Jepsen's knossos checks cas-register histories
// against, and the one porcupine's own tests judge its published etcd
// histories by. A register starts empty (nil).
//   - write(v) sets the value to v.
//   - cas(from, to) sets it to to if it is from, and succeeds exactly then.
//   - read returns the value, or nil while there is none.
//
// An operation whose outcome is unknown is legal, and takes effect if it
// would (a cas if its comparison holds); since it never returned it may
// be placed after every other operation, where its effect is seen by none.
func CASRegister() porcupine.Model {
	return partitionedBy(porcupine.Model{
		Init: func() any { return casState{} },
		Step: func(state, input, output any) (bool, any) {
			next, why := casStep(state.(casState), input.(CASInput), output.(CASOutput))
			return why == "", next
		},
		Equal: func(a, b any) bool { return a.(casState) == b.(casState) },
		Hash: func(state any) uint64 {
			s := state.(casState)
			if !s.set {
				return 0
			}
			return uint64(fnvOffset.u64(uint64(s.value)))
		},
		DescribeOperation: func(input, output any) string {
			return describeCAS(input.(CASInput), output.(CASOutput))
		},
		DescribeState: func(state any) string { return casState.String(state.(casState)) },
	}, func(in any) string { return in.(CASInput).Key })
}

// CASRegisterSpec is CASRegister with its name and Explain.
func CASRegisterSpec() Spec {
	return Spec{Name: "cas-register", Model: CASRegister(), Key: func(in any) string { return in.(CASInput).Key },
		Explain: func(state, input, output any) string {
			_, why := casStep(state.(casState), input.(CASInput), output.(CASOutput))
			return why
		}}
}

func (s casState) String() string {
	if !s.set {
		return "nil"
	}
	return fmt.Sprint(s.value)
}

// casStep applies one operation: the next state, and "" if it is legal,
// or why not.
func casStep(s casState, in CASInput, out CASOutput) (casState, string) {
	switch in.Op {
	case CASRead:
		if !out.Known || (out.Exists == s.set && (!s.set || out.Value == s.value)) {
			return s, ""
		}
		return s, fmt.Sprintf("read returned %s, but the register holds %s", casState{out.Exists, out.Value}, s)
	case CASWrite:
		return casState{true, in.Value}, ""
	case CASSet:
		match := s.set && s.value == in.From
		next := s
		if match {
			next = casState{true, in.To}
		}
		if out.Known && out.OK != match {
			return s, fmt.Sprintf("cas(%d, %d) %s, but the register holds %s", in.From, in.To, okWord(out.OK, "succeeded", "failed"), s)
		}
		return next, ""
	}
	return s, fmt.Sprintf("%q is not a register operation", in.Op)
}

func describeCAS(in CASInput, out CASOutput) string {
	key := ""
	if in.Key != "" {
		key = in.Key + ": "
	}
	result := "unknown"
	switch {
	case !out.Known:
	case in.Op == CASRead:
		result = casState{out.Exists, out.Value}.String()
	case in.Op == CASSet:
		result = okWord(out.OK, "ok", "fail")
	default:
		result = "ok"
	}
	switch in.Op {
	case CASWrite:
		return fmt.Sprintf("%swrite(%d) -> %s", key, in.Value, result)
	case CASSet:
		return fmt.Sprintf("%scas(%d, %d) -> %s", key, in.From, in.To, result)
	}
	return fmt.Sprintf("%s%s() -> %s", key, in.Op, result)
}
