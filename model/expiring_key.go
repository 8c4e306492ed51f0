package model

import (
	"fmt"
	"strconv"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
)

// KeyOp names an operation on an expiring key.
type KeyOp string

// The expiring-key operations, as a Redis lock uses them.
const (
	// OpSetNXPX is SET key value NX PX ttl: set if absent, expiring ttl later.
	OpSetNXPX KeyOp = "set_nx_px"
	// OpGet is GET key.
	OpGet KeyOp = "get"
	// OpDelIfEqual is compare-and-delete: if GET key == value then DEL key
	// (the usual Lua script), atomically.
	OpDelIfEqual KeyOp = "del_if_equal"
	// OpPExpireIfEqual is compare-and-PEXPIRE: if GET key == value then
	// PEXPIRE key ttl, atomically.
	OpPExpireIfEqual KeyOp = "pexpire_if_equal"
	// OpIncr is INCR key: the fencing-token counter.
	OpIncr KeyOp = "incr"
)

// KeyErr is how an expiring-key operation failed; "" is success.
type KeyErr string

// The failures the expiring-key specification tells apart; any other
// fails it.
const (
	KeyOK KeyErr = ""
	// KeyNotInteger: INCR of a value that is not a 64-bit integer (or
	// would overflow); legal only then, and changes nothing.
	KeyNotInteger KeyErr = "not_integer"
	// KeyBadRequest: refused without effect (a TTL out of range, a
	// malformed command); always legal.
	KeyBadRequest KeyErr = "bad_request"
)

// KeyInput is a command on one key.
type KeyInput struct {
	Op     KeyOp
	Client string
	Key    string
	Value  string        // set_nx_px: the value; *_if_equal: the value compared
	TTL    time.Duration // set_nx_px, pexpire_if_equal
}

// KeyOutput is the server's reply.
type KeyOutput struct {
	Err KeyErr
	// OK: set_nx_px set the key; del_if_equal and pexpire_if_equal acted
	// (replied 1); get found the key.
	OK    bool
	Value string // get: the value found
	N     int64  // incr: the value after the increment
	// ServerTime is the server's clock reading when it ran the command:
	// the specification's time.
	ServerTime time.Duration
}

// ExpiringKey returns the specification of a key-value server with
// server-side expiry (a Redis lock) as a porcupine model, partitioned by
// key; inputs are KeyInput and outputs KeyOutput (or pointers to them), or
// the history's operations and replies (see historyKeyInput).
//
// Time is the server's clock as carried in each reply (ServerTime, t
// below); one server runs a key's commands one at a time on a clock that
// never goes back, so every step requires t to be at least the last seen.
// A key set or re-expired at t with ttl expires ttl later: as in Redis, it
// is still there at t+ttl exactly and gone after it.
//   - set_nx_px succeeds if and only if the key is absent (or expired) at t;
//     then the key holds value until t+ttl.
//   - get finds the key if and only if it is present, with its value.
//   - del_if_equal and pexpire_if_equal act if and only if the key is
//     present with the value compared: the key goes, or expires ttl after t.
//   - incr of an absent key sets it to 1 with no expiry; of a present one,
//     adds one to its integer value and keeps its expiry; of a value that
//     is not an integer, fails with KeyNotInteger.
//
// KeyBadRequest is legal for every command. What it ignores: Redis's
// millisecond granularity and its other commands, replication and failover
// (a replica promoted without the key breaks the lock, and the
// specification then rejects the history, as it should), and that INCR
// values are strings.
func ExpiringKey() porcupine.Model {
	return partitionedBy(porcupine.Model{
		Init: func() any { return keyState{} },
		Step: func(state, input, output any) (bool, any) {
			next, why := keyStep(state.(keyState), keyInput(input), keyOutput(output))
			return why == "", next
		},
		Equal: func(a, b any) bool { return a.(keyState) == b.(keyState) },
		Hash: func(state any) uint64 {
			s := state.(keyState)
			return uint64(fnvOffset.u64(b2u(s.present)).str(s.value).u64(b2u(s.expires)).u64(uint64(s.expiresAt)).u64(uint64(s.lastT)))
		},
		DescribeOperation: func(input, output any) string { return describeKeyOp(keyInput(input), keyOutput(output)) },
		DescribeState:     func(state any) string { return state.(keyState).String() },
	}, keyOf)
}

// keyOf is ExpiringKey's partition key: a KeyInput's key.
func keyOf(input any) string { return keyInput(input).Key }

// ExpiringKeySpec is ExpiringKey with its name and Explain.
func ExpiringKeySpec() Spec {
	return Spec{Name: "expiring-key", Model: ExpiringKey(), Explain: func(state, input, output any) string {
		_, why := keyStep(state.(keyState), keyInput(input), keyOutput(output))
		return why
	}, Key: keyOf}
}

func keyInput(v any) KeyInput {
	switch x := v.(type) {
	case KeyInput:
		return x
	case *KeyInput:
		return *x
	case *history.Operation:
		return historyKeyInput(x)
	case history.Operation:
		return historyKeyInput(&x)
	}
	panic(fmt.Sprintf("model: key-input-type: input is %T, not KeyInput", v))
}

func keyOutput(v any) KeyOutput {
	switch x := v.(type) {
	case KeyOutput:
		return x
	case *KeyOutput:
		return *x
	case *history.Payload:
		return historyKeyOutput(x)
	case history.Payload:
		return historyKeyOutput(&x)
	}
	panic(fmt.Sprintf("model: key-output-type: output is %T, not KeyOutput", v))
}

// keyState is one key. An absent key is the zero state but for lastT, so
// that == is equality.
type keyState struct {
	present   bool
	value     string
	expires   bool          // the key has a TTL
	expiresAt time.Duration // the last reading at which it is still present
	lastT     time.Duration // the latest server reading seen
}

// String describes the state, for example `"tok-a" until 8s; t=5s`.
func (s keyState) String() string {
	switch {
	case !s.present:
		return fmt.Sprintf("absent; t=%v", s.lastT)
	case s.expires:
		return fmt.Sprintf("%s until %v; t=%v", quote(s.value), s.expiresAt, s.lastT)
	}
	return fmt.Sprintf("%s; t=%v", quote(s.value), s.lastT)
}

// keyStep applies one command to s: the next state, and "" if the command
// is legal in s, or why not.
func keyStep(s keyState, in KeyInput, out KeyOutput) (keyState, string) {
	t := out.ServerTime
	if t < s.lastT {
		return s, fmt.Sprintf("server time went backwards: t=%v after t=%v", t, s.lastT)
	}
	if s.present && s.expires && t > s.expiresAt {
		s = keyState{} // expired: gone, as if deleted
	}
	s.lastT = t
	if out.Err == KeyBadRequest {
		return s, ""
	}
	if out.Err != KeyOK && (in.Op != OpIncr || out.Err != KeyNotInteger) {
		return s, fmt.Sprintf("%v cannot fail with %v", in.Op, out.Err)
	}
	matches := s.present && s.value == in.Value
	switch in.Op {
	case OpSetNXPX:
		if out.OK == s.present {
			return s, fmt.Sprintf("set_nx_px %s, but the key is %s", okWord(out.OK, "set", "not set"), s)
		}
		if out.OK {
			s = keyState{present: true, value: in.Value, expires: true, expiresAt: saturatingAdd(t, in.TTL), lastT: t}
		}
	case OpGet:
		if out.OK != s.present || (out.OK && out.Value != s.value) {
			return s, fmt.Sprintf("get %s, but the key is %s", okWord(out.OK, quote(out.Value), "found nothing"), s)
		}
	case OpDelIfEqual, OpPExpireIfEqual:
		if out.OK != matches {
			return s, fmt.Sprintf("%v %s %s, but the key is %s", in.Op, quote(in.Value), okWord(out.OK, "acted", "did not act"), s)
		}
		if out.OK && in.Op == OpDelIfEqual {
			s = keyState{lastT: t}
		} else if out.OK {
			s.expires, s.expiresAt = true, saturatingAdd(t, in.TTL)
		}
	case OpIncr:
		return incr(s, out)
	default:
		return s, fmt.Sprintf("%v is not an expiring-key command", in.Op)
	}
	return s, ""
}

// incr adds one to the key's integer value, or fails on a value that is
// not one.
func incr(s keyState, out KeyOutput) (keyState, string) {
	var n int64
	if s.present {
		v, err := strconv.ParseInt(s.value, 10, 64)
		if err != nil || v == 1<<63-1 {
			if out.Err != KeyNotInteger {
				return s, fmt.Sprintf("incr succeeded, but the key holds %s, not an integer below the maximum", quote(s.value))
			}
			return s, ""
		}
		n = v
	}
	switch {
	case out.Err == KeyNotInteger:
		return s, fmt.Sprintf("incr failed as not an integer, but the key is %s", s)
	case out.N != n+1:
		return s, fmt.Sprintf("incr returned %d, but the key is %s", out.N, s)
	}
	s.present, s.value = true, strconv.FormatInt(n+1, 10)
	return s, ""
}

func okWord(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}

// saturatingAdd returns t+d, or the largest reading if that overflows.
func saturatingAdd(t, d time.Duration) time.Duration {
	if d > 0 && t > 1<<63-1-d {
		return 1<<63 - 1
	}
	return t + d
}

// describeKeyOp describes a command, for example
// `set_nx_px(a, "lock"="tok-a", ttl 3s) -> set @t=5s`.
func describeKeyOp(in KeyInput, out KeyOutput) string {
	var call, result string
	switch in.Op {
	case OpSetNXPX:
		call, result = fmt.Sprintf("%s=%s, ttl %v", quote(in.Key), quote(in.Value), in.TTL), okWord(out.OK, "set", "not set")
	case OpGet:
		call, result = quote(in.Key), okWord(out.OK, quote(out.Value), "nil")
	case OpDelIfEqual:
		call, result = fmt.Sprintf("%s==%s", quote(in.Key), quote(in.Value)), okWord(out.OK, "deleted", "0")
	case OpPExpireIfEqual:
		call, result = fmt.Sprintf("%s==%s, ttl %v", quote(in.Key), quote(in.Value), in.TTL), okWord(out.OK, "extended", "0")
	case OpIncr:
		call, result = quote(in.Key), strconv.FormatInt(out.N, 10)
	default:
		call = quote(in.Key)
	}
	if out.Err != KeyOK {
		result = string(out.Err)
	}
	return fmt.Sprintf("%v(%s, %s) -> %s @t=%v", in.Op, in.Client, call, result, out.ServerTime)
}
