package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// MutexOp names an operation of a mutex.
type MutexOp string

// The mutex's operations, as Jepsen's mutex workloads name them.
const (
	MutexAcquire MutexOp = "acquire"
	MutexRelease MutexOp = "release"
)

// MutexInput is a request to a mutex.
type MutexInput struct{ Op MutexOp }

// MutexOutput is its reply: Known is false for an operation whose outcome
// the client never learned (Jepsen's :info).
type MutexOutput struct{ Known bool }

// Mutex returns the specification of a mutex as a porcupine model, the one
// Jepsen's knossos checks mutex histories against (knossos.model/mutex):
// acquire succeeds only while the mutex is free and takes it; release
// succeeds only while it is held and frees it (whoever holds it). An
// operation whose outcome is unknown is legal and takes effect if it can,
// and may be placed after every other operation, where no one sees it.
// Operations that failed (Jepsen's :fail) did not happen and are not
// operations of the history.
func Mutex() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return false },
		Step: func(state, input, output any) (bool, any) {
			next, why := mutexStep(state.(bool), input.(MutexInput), output.(MutexOutput))
			return why == "", next
		},
		Equal: func(a, b any) bool { return a.(bool) == b.(bool) },
		Hash: func(state any) uint64 {
			if state.(bool) {
				return 1
			}
			return 0
		},
		DescribeOperation: func(input, output any) string {
			result := "ok"
			if !output.(MutexOutput).Known {
				result = "unknown"
			}
			return fmt.Sprintf("%s() -> %s", input.(MutexInput).Op, result)
		},
		DescribeState: func(state any) string { return okWord(state.(bool), "held", "free") },
	}
}

// MutexSpec is Mutex with its name and Explain.
func MutexSpec() Spec {
	return Spec{Name: "mutex", Model: Mutex(), Explain: func(state, input, output any) string {
		_, why := mutexStep(state.(bool), input.(MutexInput), output.(MutexOutput))
		return why
	}}
}

// mutexStep applies one operation to held: the next state, and "" if it is
// legal, or why not.
func mutexStep(held bool, in MutexInput, out MutexOutput) (bool, string) {
	switch in.Op {
	case MutexAcquire:
		if !held {
			return true, ""
		}
		if out.Known {
			return held, "acquire succeeded, but the mutex is held"
		}
		return held, ""
	case MutexRelease:
		if held {
			return false, ""
		}
		if out.Known {
			return held, "release succeeded, but the mutex is free"
		}
		return held, ""
	}
	return held, fmt.Sprintf("%q is not a mutex operation", in.Op)
}
