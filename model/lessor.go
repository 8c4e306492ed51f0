package model

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// LessorOp names an operation of an etcd-style lessor and key-value store.
type LessorOp string

// The lessor's operations.
const (
	OpGrant       LessorOp = "grant"     // LeaseGrant(ttl) -> lease id
	OpKeepAlive   LessorOp = "keepalive" // LeaseKeepAlive(id) -> TTL, or not found
	OpLeaseRevoke LessorOp = "revoke"    // LeaseRevoke(id): deletes the keys attached
	OpPut         LessorOp = "put"       // Put(key, value, lease)
	// OpCreate is a transaction that puts key only if it does not exist:
	// If(CreateRevision(key) == 0).Then(Put(key, value, lease)).
	OpCreate LessorOp = "create"
	OpGetKey LessorOp = "get" // Range(key)
)

// LessorErr is how a lessor operation failed; "" is success.
type LessorErr string

// The failures the lessor specification tells apart; any other fails it.
const (
	LessorOK LessorErr = ""
	// LessorLeaseNotFound: keepalive or revoke of a lease that does not
	// exist (never granted, revoked or expired), or a put attached to one.
	LessorLeaseNotFound LessorErr = "lease_not_found"
	// LessorBadRequest: refused without effect; always legal.
	LessorBadRequest LessorErr = "bad_request"
)

// LessorInput is a request to the lessor.
type LessorInput struct {
	Op     LessorOp
	Client string
	Key    string        // put, create, get
	Value  string        // put, create
	Lease  int64         // keepalive, revoke: the lease; put, create: the lease to attach (0: none)
	TTL    time.Duration // grant: the TTL asked for
}

// LessorOutput is the server's reply.
type LessorOutput struct {
	Err LessorErr
	// OK: create put the key; get found it.
	OK    bool
	Lease int64         // grant: the new lease's id
	TTL   time.Duration // grant, keepalive: the lease's TTL
	// Revision is the store's revision after the operation (etcd's header
	// revision): put and create that put return the new revision.
	Revision int64
	// Value, CreateRevision, ModRevision and KeyLease describe the key a
	// get found.
	Value                       string
	CreateRevision, ModRevision int64
	KeyLease                    int64
	// ServerTime is the lessor's clock reading when it ran the request: the
	// specification's time.
	ServerTime time.Duration
}

// Lessor returns the specification of an etcd-style lessor with a
// key-value store as a porcupine model, inputs LessorInput and outputs
// LessorOutput (or pointers to them). It has no partitions: a lease spans
// keys and the revision is global.
//
// Time is the lessor's clock as carried in each reply (ServerTime, t
// below), which never goes back. A lease granted or kept alive at t for ttl
// expires at t+ttl: before each step at t, every lease whose expiry is at
// or before t is revoked, earliest first.
//   - grant returns a lease id not in use, and the TTL granted (at least
//     one nanosecond).
//   - keepalive of a live lease returns its TTL and restarts it; otherwise
//     LessorLeaseNotFound.
//   - revoke of a live lease deletes it and the keys attached to it;
//     otherwise LessorLeaseNotFound.
//   - put writes the key, attached to the lease given (0: none), which must
//     be live, else LessorLeaseNotFound.
//   - create puts the key only if it does not exist, and says whether.
//   - Each change to the keys (a put, a revocation or expiry that deleted
//     at least one key) adds one to the revision. A put sets the key's
//     ModRevision to the new revision, and its CreateRevision too if the
//     key did not exist. The replies to put, create and get carry the
//     revision after them.
//   - get returns the key's value, revisions and lease, or OK false.
//
// LessorBadRequest is legal for every operation. What it ignores: etcd
// revokes expired leases late (the leader checks every 500ms and the
// revocation goes through raft), which here happens exactly at expiry on
// the server's readings; ranges, deletes, watches, compaction, other
// transaction shapes, and the minimum TTL.
func Lessor() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return lessorState{} },
		Step: func(state, input, output any) (bool, any) {
			next, why := lessorStep(state.(lessorState), lessorInput(input), lessorOutput(output))
			return why == "", next
		},
		Equal: func(a, b any) bool { return a.(lessorState).equal(b.(lessorState)) },
		Hash: func(state any) uint64 {
			s := state.(lessorState)
			return uint64(fnvOffset.u64(uint64(s.rev)).u64(uint64(len(s.leases))).u64(uint64(len(s.keys))).u64(uint64(s.lastT)))
		},
		DescribeOperation: func(input, output any) string {
			return describeLessorOp(lessorInput(input), lessorOutput(output))
		},
		DescribeState: func(state any) string { return state.(lessorState).String() },
	}
}

// LessorSpec is Lessor with its name and Explain.
func LessorSpec() Spec {
	return Spec{Name: "lessor", Model: Lessor(), Explain: func(state, input, output any) string {
		_, why := lessorStep(state.(lessorState), lessorInput(input), lessorOutput(output))
		return why
	}}
}

func lessorInput(v any) LessorInput {
	switch x := v.(type) {
	case LessorInput:
		return x
	case *LessorInput:
		return *x
	}
	panic(fmt.Sprintf("model: lessor-input-type: input is %T, not LessorInput", v))
}

func lessorOutput(v any) LessorOutput {
	switch x := v.(type) {
	case LessorOutput:
		return x
	case *LessorOutput:
		return *x
	}
	panic(fmt.Sprintf("model: lessor-output-type: output is %T, not LessorOutput", v))
}

// lessorState is the whole store. It is a value: steps copy its slices
// before changing them.
type lessorState struct {
	rev    int64
	leases []lessorLease // sorted by id
	keys   []lessorKey   // sorted by key
	lastT  time.Duration
}

type lessorLease struct {
	id        int64
	ttl       time.Duration
	expiresAt time.Duration
}

type lessorKey struct {
	key, value  string
	create, mod int64
	lease       int64
}

func (s lessorState) equal(o lessorState) bool {
	return s.rev == o.rev && s.lastT == o.lastT && slices.Equal(s.leases, o.leases) && slices.Equal(s.keys, o.keys)
}

func (s lessorState) lease(id int64) (int, bool) {
	return slices.BinarySearchFunc(s.leases, id, func(l lessorLease, id int64) int { return compareInt(l.id, id) })
}

func (s lessorState) key(k string) (int, bool) {
	return slices.BinarySearchFunc(s.keys, k, func(e lessorKey, k string) int { return strings.Compare(e.key, k) })
}

func compareInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// revoke deletes lease i and its keys, adding one to the revision if it
// deleted any.
func (s lessorState) revoke(i int) lessorState {
	id := s.leases[i].id
	s.leases = slices.Delete(slices.Clone(s.leases), i, i+1)
	kept := slices.DeleteFunc(slices.Clone(s.keys), func(k lessorKey) bool { return k.lease == id })
	if len(kept) < len(s.keys) {
		s.rev++
	}
	s.keys = kept
	return s
}

// expire revokes every lease expired at t, earliest first.
func (s lessorState) expire(t time.Duration) lessorState {
	for {
		first := -1
		for i, l := range s.leases {
			if l.expiresAt <= t && (first < 0 || l.expiresAt < s.leases[first].expiresAt) {
				first = i
			}
		}
		if first < 0 {
			return s
		}
		s = s.revoke(first)
	}
}

// put writes key, attached to lease, at a new revision.
func (s lessorState) put(key, value string, lease int64) lessorState {
	s.rev++
	i, found := s.key(key)
	s.keys = slices.Clone(s.keys)
	if found {
		s.keys[i].value, s.keys[i].mod, s.keys[i].lease = value, s.rev, lease
	} else {
		s.keys = slices.Insert(s.keys, i, lessorKey{key: key, value: value, create: s.rev, mod: s.rev, lease: lease})
	}
	return s
}

// String describes the state, for example
// `rev 4; lease 7 ttl 3s until 9s; "k"="v" (create 3, mod 4, lease 7); t=6s`.
func (s lessorState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rev %d", s.rev)
	for _, l := range s.leases {
		fmt.Fprintf(&b, "; lease %d ttl %v until %v", l.id, l.ttl, l.expiresAt)
	}
	for _, k := range s.keys {
		fmt.Fprintf(&b, "; %s=%s (create %d, mod %d, lease %d)", quote(k.key), quote(k.value), k.create, k.mod, k.lease)
	}
	fmt.Fprintf(&b, "; t=%v", s.lastT)
	return b.String()
}

// lessorStep applies one operation to s: the next state, and "" if the
// operation is legal in s, or why not.
func lessorStep(s lessorState, in LessorInput, out LessorOutput) (lessorState, string) {
	t := out.ServerTime
	if t < s.lastT {
		return s, fmt.Sprintf("server time went backwards: t=%v after t=%v", t, s.lastT)
	}
	s = s.expire(t)
	s.lastT = t
	if out.Err == LessorBadRequest {
		return s, ""
	}
	next, want := lessorApply(s, in, out)
	if want == "?" {
		return s, fmt.Sprintf("%v is not a lessor operation", in.Op)
	}
	if out.Err != want {
		return s, fmt.Sprintf("%v %s, but the store is %s", in.Op, outcome(string(out.Err)), s)
	}
	if why := lessorReply(s, next, in, out); why != "" {
		return s, why
	}
	return next, ""
}

// lessorApply returns the state after in and the only legal error ("?" if
// in is not a lessor operation). For grant, the id is the reply's.
func lessorApply(s lessorState, in LessorInput, out LessorOutput) (lessorState, LessorErr) {
	i, live := s.lease(in.Lease)
	switch in.Op {
	case OpGrant:
		i, taken := s.lease(out.Lease)
		if taken || out.Lease <= 0 || out.TTL <= 0 {
			return s, LessorOK // not a grant: lessorReply says why
		}
		s.leases = slices.Insert(slices.Clone(s.leases), i, lessorLease{id: out.Lease, ttl: out.TTL, expiresAt: saturatingAdd(s.lastT, out.TTL)})
		return s, LessorOK
	case OpKeepAlive, OpLeaseRevoke:
		if !live {
			return s, LessorLeaseNotFound
		}
		if in.Op == OpLeaseRevoke {
			return s.revoke(i), LessorOK
		}
		s.leases = slices.Clone(s.leases)
		s.leases[i].expiresAt = saturatingAdd(s.lastT, s.leases[i].ttl)
		return s, LessorOK
	case OpPut, OpCreate:
		if _, exists := s.key(in.Key); in.Op == OpCreate && exists {
			return s, LessorOK // the comparison fails: nothing happens
		}
		if in.Lease != 0 && !live {
			return s, LessorLeaseNotFound
		}
		return s.put(in.Key, in.Value, in.Lease), LessorOK
	case OpGetKey:
		return s, LessorOK
	}
	return s, "?"
}

// lessorReply says what is wrong with a successful reply that moved the
// store from s to next, or "".
func lessorReply(s, next lessorState, in LessorInput, out LessorOutput) string {
	if out.Err != LessorOK {
		return ""
	}
	switch in.Op {
	case OpGrant:
		if _, taken := s.lease(out.Lease); taken || out.Lease <= 0 || out.TTL <= 0 {
			return fmt.Sprintf("grant returned lease %d ttl %v, but a new lease needs a free id above 0 and a TTL: %s", out.Lease, out.TTL, s)
		}
	case OpKeepAlive:
		if i, _ := s.lease(in.Lease); out.TTL != s.leases[i].ttl {
			return fmt.Sprintf("keepalive of lease %d returned ttl %v, but it was granted %v", in.Lease, out.TTL, s.leases[i].ttl)
		}
	case OpPut, OpCreate:
		put := next.rev != s.rev
		if in.Op == OpCreate && out.OK != put {
			return fmt.Sprintf("create of %s %s, but the store is %s", quote(in.Key), okWord(out.OK, "put it", "did not"), s)
		}
		if out.Revision != next.rev {
			return fmt.Sprintf("%v returned revision %d, but it is %d", in.Op, out.Revision, next.rev)
		}
	case OpGetKey:
		i, found := s.key(in.Key)
		var k lessorKey
		if found {
			k = s.keys[i]
		}
		if out.OK != found || out.Value != k.value || out.CreateRevision != k.create || out.ModRevision != k.mod ||
			out.KeyLease != k.lease || out.Revision != s.rev {
			return fmt.Sprintf("get %s returned %s at revision %d, but the store is %s", quote(in.Key),
				describeLessorKey(out), out.Revision, s)
		}
	}
	return ""
}

func describeLessorKey(out LessorOutput) string {
	if !out.OK {
		return "nothing"
	}
	return fmt.Sprintf("%s (create %d, mod %d, lease %d)", quote(out.Value), out.CreateRevision, out.ModRevision, out.KeyLease)
}

// describeLessorOp describes an operation, for example
// `put(a, "k"="v", lease 7) -> rev 5 @t=3s`.
func describeLessorOp(in LessorInput, out LessorOutput) string {
	var call, result string
	switch in.Op {
	case OpGrant:
		call, result = fmt.Sprintf("ttl %v", in.TTL), fmt.Sprintf("lease %d ttl %v", out.Lease, out.TTL)
	case OpKeepAlive:
		call, result = fmt.Sprintf("lease %d", in.Lease), fmt.Sprintf("ttl %v", out.TTL)
	case OpLeaseRevoke:
		call, result = fmt.Sprintf("lease %d", in.Lease), fmt.Sprintf("rev %d", out.Revision)
	case OpPut, OpCreate:
		call = fmt.Sprintf("%s=%s, lease %d", quote(in.Key), quote(in.Value), in.Lease)
		result = fmt.Sprintf("rev %d", out.Revision)
		if in.Op == OpCreate && !out.OK {
			result = fmt.Sprintf("exists, rev %d", out.Revision)
		}
	case OpGetKey:
		call, result = quote(in.Key), fmt.Sprintf("%s at rev %d", describeLessorKey(out), out.Revision)
	}
	if out.Err != LessorOK {
		result = string(out.Err)
	}
	return fmt.Sprintf("%v(%s, %s) -> %s @t=%v", in.Op, in.Client, call, result, out.ServerTime)
}
