package model

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
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
	// OpTaskCheckpoint is a task checkpoint under a lock's fencing token:
	// a transaction that puts key (attached to no lease) only while
	// another key, the guard (the lock), exists with the token as its
	// create revision, else LessorFenced; and only over a smaller value
	// (values order a holder's checkpoints), else OK false, or OK true
	// without a put when the value is there already (a retry):
	// If(CreateRevision(guard) == token).Then(If(Value(key) < value).Then(
	// Put(key, value))). It is named as leasesim's lease store names a
	// checkpoint, so that the harness and P4-P6 see it as one.
	OpTaskCheckpoint LessorOp = "checkpoint"
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
	// LessorFenced: a checkpoint's comparison failed (the guard key is
	// absent or has another create revision); nothing changed.
	LessorFenced LessorErr = "fenced"
)

// LessorInput is a request to the lessor.
type LessorInput struct {
	Op     LessorOp
	Client string
	Key    string        // put, create, get
	Value  string        // put, create
	Lease  int64         // keepalive, revoke: the lease; put, create: the lease to attach (0: none)
	TTL    time.Duration // grant: the TTL asked for
	// Guard and Token are a fenced put's condition: the guard key's create
	// revision must be Token.
	Guard string
	Token int64
	// at is the true time the operation was processed, as a history
	// records it (LessorWindowSpec's time); 0 for an input built by hand,
	// whose time is then its output's ServerTime. call is when the request
	// was sent (Operation.Call): LessorWindowSpec's earliest time at which
	// it may have taken effect.
	at, call time.Duration
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
	// unsure (LessorWindowSpec only): a put of the key was refused by a
	// member that was not the leader and may have committed, attaching it
	// to another lease, so it may be gone.
	unsure bool
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
	case OpTaskCheckpoint:
		if g, ok := s.key(in.Guard); !ok || s.keys[g].create != in.Token {
			return s, LessorFenced // the comparison fails: nothing happens
		}
		if k, ok := s.key(in.Key); ok && s.keys[k].value >= in.Value {
			return s, LessorOK // stored already (OK) or overtaken (not OK): nothing happens
		}
		return s.put(in.Key, in.Value, 0), LessorOK
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
	case OpPut, OpCreate, OpTaskCheckpoint:
		put := next.rev != s.rev
		if k, ok := s.key(in.Key); in.Op == OpTaskCheckpoint && ok && s.keys[k].value == in.Value {
			put = true // stored already: acknowledged as put
		}
		if in.Op != OpPut && out.OK != put {
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
	case OpTaskCheckpoint:
		call = fmt.Sprintf("%s=%s if create(%s)=%d", quote(in.Key), quote(in.Value), quote(in.Guard), in.Token)
		result = fmt.Sprintf("rev %d", out.Revision)
		if !out.OK {
			result = fmt.Sprintf("fenced, rev %d", out.Revision)
		}
	}
	if out.Err != LessorOK {
		result = string(out.Err)
	}
	return fmt.Sprintf("%v(%s, %s) -> %s @t=%v", in.Op, in.Client, call, result, out.ServerTime)
}

// LessorWindowSpec is the lessor specification as a replicated lessor
// promises it, over a history's operations (*history.Operation inputs,
// *history.Payload outputs, as an implementation's messages describe them:
// the request's Kind is the LessorOp, Key, Value, Lease and TTL; the
// reply's Err, OK, Lease (the new lease, or the key's), Revision, Token
// (the key's create revision) and Value).
//
// A replicated lessor has no one clock: a lease is timed by whichever
// member leads, and a new leader restarts every lease. So its time is the
// true time at which the harness saw a member answer (Operation.Processed),
// and expiry is a window: a lease granted or kept alive at t must stay
// live until t + TTL − ceil(TTL×rho) (its leader's clock may run fast by
// rho), and may be found live or expired after that: etcd promises only
// that a lease is not expired before its TTL since the last keepalive; it
// may outlive it after a leader change (by the election timeout, the
// election, and the revoke's way through the log), which this
// specification does not bound: Bounded adds that bound where the history
// records the leader terms (LessorBound). A refusal other than LessorBadRequest (a replica that is not
// the leader) may still take effect. What is found decides: a keepalive answered "not found", a
// create that put over the key, or a get that did not find it expire the
// lease then, with its keys. Revisions must not go back, and a put's
// reply carries the key's new create revision; expiries the history does
// not show may have raised the revision in between, so revisions are not
// counted exactly. Operations are partitioned by the leases and keys they
// touch.
func LessorWindowSpec(rhoPPB int64) Spec {
	m := porcupine.Model{
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			comp := lessorComponents(len(ops), func(i int) (LessorInput, LessorOutput) {
				return windowInput(ops[i].Input), windowOutput(ops[i].Output)
			})
			return groupByIndex(ops, comp)
		},
		PartitionEvent: func(events []porcupine.Event) [][]porcupine.Event {
			calls := make(map[int]int) // event id -> index of its call; looked up, never iterated
			rets := make(map[int]int)  // event id -> index of its return; looked up, never iterated
			var ids []int
			for i, e := range events {
				if e.Kind == porcupine.CallEvent {
					calls[e.Id] = i
					ids = append(ids, e.Id)
				} else {
					rets[e.Id] = i
				}
			}
			comp := lessorComponents(len(ids), func(i int) (LessorInput, LessorOutput) {
				var out LessorOutput
				if r, ok := rets[ids[i]]; ok {
					out = windowOutput(events[r].Value)
				}
				return windowInput(events[calls[ids[i]]].Value), out
			})
			byID := make(map[int]string, len(ids)) // looked up, never iterated
			for i, id := range ids {
				byID[id] = comp[i]
			}
			return groupBy(events, func(e porcupine.Event) string { return byID[e.Id] })
		},
		Init: func() any { return windowState{} },
		Step: func(state, input, output any) (bool, any) {
			next, why := windowStep(state.(windowState), windowInput(input), windowOutput(output), rhoPPB)
			return why == "", next
		},
		Equal: func(a, b any) bool { return a.(windowState).equal(b.(windowState)) },
		Hash: func(state any) uint64 {
			s := state.(windowState)
			return uint64(fnvOffset.u64(uint64(s.rev)).u64(uint64(len(s.leases))).u64(uint64(len(s.keys))).
				u64(uint64(len(s.revoked))).u64(uint64(s.lastT)))
		},
		DescribeOperation: func(input, output any) string {
			return describeLessorOp(windowInput(input), windowOutput(output))
		},
		DescribeState: func(state any) string { return state.(windowState).String() },
	}
	return Spec{Name: LessorSpec().Name, Model: m, Explain: func(state, input, output any) string {
		_, why := windowStep(state.(windowState), windowInput(input), windowOutput(output), rhoPPB)
		return why
	}}
}

// groupByIndex groups xs by comp[i], in order of first appearance.
func groupByIndex[T any](xs []T, comp []string) [][]T {
	i := -1
	return groupBy(xs, func(T) string { i++; return comp[i] })
}

// lessorComponents names, for each of n operations, the component of the
// leases and keys it touches (operations that share a lease or a key, or
// a key and the lease attached to it, are in one component).
func lessorComponents(n int, op func(i int) (LessorInput, LessorOutput)) []string {
	parent := make(map[string]string) // looked up, never iterated
	var find func(x string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok || p == x {
			parent[x] = x
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	union := func(a, b string) {
		if ra, rb := find(a), find(b); ra != rb {
			parent[ra] = rb
		}
	}
	nodes := make([]string, n)
	for i := range n {
		in, out := op(i)
		lease := in.Lease
		if in.Op == OpGrant {
			lease = out.Lease
		}
		var names []string
		if lease != 0 {
			names = append(names, fmt.Sprintf("lease/%d", lease))
		}
		if in.Key != "" {
			names = append(names, "key/"+in.Key)
		}
		if in.Guard != "" {
			names = append(names, "key/"+in.Guard)
		}
		if (in.Op == OpGetKey || in.Op == OpCreate) && out.KeyLease != 0 {
			names = append(names, fmt.Sprintf("lease/%d", out.KeyLease))
		}
		if len(names) == 0 {
			names = append(names, fmt.Sprintf("op/%d", i))
		}
		for _, x := range names[1:] {
			union(names[0], x)
		}
		nodes[i] = names[0]
	}
	for _, pair := range revisionRegressions(n, op) {
		union(nodes[pair[0]], nodes[pair[1]])
	}
	comp := make([]string, n)
	for i, x := range nodes {
		comp[i] = find(x)
	}
	return comp
}

// revisionRegressions returns pairs of operations (a, b) where a took
// effect before b could (a's answer precedes b's call) and b's reply
// carries a lower revision than a's (or the same, when b is a put that
// raised it): etcd's revision is one store-wide
// logical clock that never goes back, so such a pair is illegal in every
// order, whatever leases and keys they touch. Each b with such an a is
// paired with the a of the highest revision, so that joining each pair's
// components keeps the whole history's verdict (docs/decisions/0008).
func revisionRegressions(n int, op func(i int) (LessorInput, LessorOutput)) [][2]int {
	type timed struct {
		i      int
		lo, hi time.Duration
		rev    int64
		raises bool // a put: its revision is above every earlier one
	}
	var ts []timed
	for i := range n {
		in, out := op(i)
		checked := out.Err == LessorOK || out.Err == LessorLeaseNotFound || (in.Op == OpTaskCheckpoint && out.Err == LessorFenced)
		if !checked || out.Revision == 0 {
			continue
		}
		lo, hi := windowTimes(in, out)
		raises := out.Err == LessorOK && (in.Op == OpPut || (in.Op == OpCreate && out.OK))
		ts = append(ts, timed{i, lo, hi, out.Revision, raises})
	}
	byHi := slices.Clone(ts)
	slices.SortStableFunc(byHi, func(a, b timed) int { return compareInt(int64(a.hi), int64(b.hi)) })
	slices.SortStableFunc(ts, func(a, b timed) int { return compareInt(int64(a.lo), int64(b.lo)) })
	var pairs [][2]int
	best, k := -1, 0
	for _, b := range ts {
		for ; k < len(byHi) && byHi[k].hi < b.lo; k++ {
			if best < 0 || byHi[k].rev > byHi[best].rev {
				best = k
			}
		}
		if best >= 0 && (byHi[best].rev > b.rev || (b.raises && byHi[best].rev == b.rev)) {
			pairs = append(pairs, [2]int{byHi[best].i, b.i})
		}
	}
	return pairs
}

// windowInput reads a lessor request: a LessorInput, or a history
// operation (its time, Processed, rides in the input so that Step sees
// it; see windowTime).
func windowInput(v any) LessorInput {
	switch x := v.(type) {
	case *history.Operation:
		return historyLessorInput(x)
	case history.Operation:
		return historyLessorInput(&x)
	}
	return lessorInput(v)
}

// windowOutput reads a lessor reply: a LessorOutput or a history payload.
func windowOutput(v any) LessorOutput {
	switch x := v.(type) {
	case *history.Payload:
		return historyLessorOutput(x)
	case history.Payload:
		return historyLessorOutput(&x)
	}
	return lessorOutput(v)
}

// historyLessorInput reads a lessor request, with its Processed time as
// the specification's time (LessorInput.at).
func historyLessorInput(o *history.Operation) LessorInput {
	in := &o.Input
	return LessorInput{Op: LessorOp(in.Kind), Client: clientOf(o), Key: in.Key, Value: in.Value,
		Lease: int64(in.Lease), TTL: in.TTL, Guard: in.Resource, Token: int64(in.Token), at: time.Duration(o.Processed),
		call: time.Duration(o.Call)}
}

// historyLessorOutput reads a lessor reply.
func historyLessorOutput(p *history.Payload) LessorOutput {
	out := LessorOutput{Err: LessorErr(p.Err), OK: p.OK, Lease: int64(p.Lease), TTL: p.TTL, Revision: p.Revision,
		Value: p.Value, CreateRevision: int64(p.Token), KeyLease: int64(p.Lease), ServerTime: p.Clock}
	if v, err := strconv.ParseInt(p.Version, 10, 64); err == nil {
		out.ModRevision = v
	}
	return out
}

// windowState is the store as LessorWindowSpec sees it. It is a value:
// steps copy its slices before changing them.
type windowState struct {
	rev     int64
	leases  []windowLease // sorted by id
	keys    []lessorKey   // sorted by key
	revoked []int64       // leases revoked or found expired, sorted
	lastT   time.Duration
}

// windowLease is a lease that must stay live until liveUntil, and may be
// found expired from then on.
type windowLease struct {
	id        int64
	ttl       time.Duration
	liveUntil time.Duration
}

func (s windowState) equal(o windowState) bool {
	return s.rev == o.rev && s.lastT == o.lastT && slices.Equal(s.leases, o.leases) && slices.Equal(s.keys, o.keys) &&
		slices.Equal(s.revoked, o.revoked)
}

// String describes the state, for example
// `rev 4; lease 7 ttl 5s live until 9.95s; "k"="v" (create 3, mod 3, lease 7); t=6s`.
func (s windowState) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rev %d", s.rev)
	for _, l := range s.leases {
		fmt.Fprintf(&b, "; lease %d ttl %v live until %v", l.id, l.ttl, l.liveUntil)
	}
	for _, k := range s.keys {
		fmt.Fprintf(&b, "; %s=%s (create %d, lease %d)", quote(k.key), quote(k.value), k.create, k.lease)
	}
	if len(s.revoked) > 0 {
		fmt.Fprintf(&b, "; %d leases gone", len(s.revoked))
	}
	fmt.Fprintf(&b, "; t=%v", s.lastT)
	return b.String()
}

func (s windowState) lease(id int64) (int, bool) {
	return slices.BinarySearchFunc(s.leases, id, func(l windowLease, id int64) int { return compareInt(l.id, id) })
}

func (s windowState) gone(id int64) bool {
	_, found := slices.BinarySearch(s.revoked, id)
	return found
}

func (s windowState) key(k string) (int, bool) {
	return slices.BinarySearchFunc(s.keys, k, func(e lessorKey, k string) int { return strings.Compare(e.key, k) })
}

// liveLow is the least a lease of ttl must live in true time: its leader's
// clock may run fast by rho.
func liveLow(ttl time.Duration, rhoPPB int64) time.Duration {
	hi, lo := bits.Mul64(uint64(ttl), uint64(rhoPPB))
	q, r := bits.Div64(hi, lo, 1_000_000_000)
	if r != 0 {
		q++
	}
	return ttl - time.Duration(q)
}

// mustLive reports whether lease id must still be live at t.
func (s windowState) mustLive(id int64, t time.Duration) bool {
	i, ok := s.lease(id)
	return ok && t < s.leases[i].liveUntil
}

// expire ends lease id (found expired or revoked) and its keys. Lease 0
// is no lease (etcd's NoLease): nothing ends, and keys attached to no
// lease stay.
func (s windowState) expire(id int64) windowState {
	if id == 0 {
		return s
	}
	if i, ok := s.lease(id); ok {
		s.leases = slices.Delete(slices.Clone(s.leases), i, i+1)
	}
	if !s.gone(id) {
		i, _ := slices.BinarySearch(s.revoked, id)
		s.revoked = slices.Insert(slices.Clone(s.revoked), i, id)
	}
	s.keys = slices.DeleteFunc(slices.Clone(s.keys), func(k lessorKey) bool { return k.lease == id })
	return s
}

// expired ends lease id as an operation that shows it expired (not
// revoked): that operation took effect at the end of its window or later.
func (s windowState) expired(id int64) windowState {
	if i, ok := s.lease(id); ok {
		s.lastT = max(s.lastT, s.leases[i].liveUntil)
	}
	return s.expire(id)
}

// keepLive (re)starts lease id's window at t, adding the lease if the
// history never showed its grant (its proposer may have crashed before it
// answered).
func (s windowState) keepLive(id int64, ttl time.Duration, t time.Duration, rhoPPB int64) windowState {
	l := windowLease{id: id, ttl: ttl, liveUntil: t + liveLow(ttl, rhoPPB)}
	i, ok := s.lease(id)
	s.leases = slices.Clone(s.leases)
	if ok {
		if l.ttl == 0 {
			l.ttl = s.leases[i].ttl
			l.liveUntil = t + liveLow(l.ttl, rhoPPB)
		}
		s.leases[i] = l
	} else {
		s.leases = slices.Insert(s.leases, i, l)
	}
	return s
}

// found accounts for a reply that shows key attached to lease with create
// revision create: the model's key must be that one, or the key it holds
// must belong to a lease that may have expired (and a create the history
// does not show put this one: its proposer crashed before answering).
func (s windowState) found(key string, lease, create int64, value string, t time.Duration) (windowState, string) {
	if i, ok := s.key(key); ok {
		k := s.keys[i]
		if k.lease == lease && (k.create == create || k.create == 0 || create == 0) {
			if k.create == 0 {
				s.keys = slices.Clone(s.keys)
				s.keys[i].create = create // a put left it unknown: the reply shows it
			}
			return s, ""
		}
		if s.keyMustLive(k, t) {
			return s, fmt.Sprintf("%s is attached to lease %d (create %d), which must still be live, but the reply "+
				"shows lease %d (create %d)", quote(key), k.lease, k.create, lease, create)
		}
		s = s.goneKey(k)
	}
	if lease != 0 && s.gone(lease) {
		return s, fmt.Sprintf("%s is attached to lease %d, which had expired or been revoked", quote(key), lease)
	}
	i, _ := s.key(key)
	s.keys = slices.Insert(slices.Clone(s.keys), i, lessorKey{key: key, value: value, create: create, mod: create, lease: lease})
	return s, ""
}

// put accounts for a put of key attached to lease (0: none) that raised
// the revision to rev. etcd's put is unconditional: it replaces the key's
// value and lease whatever lease held it, and keeps the key's create
// revision if the key still existed, else starts it at rev. Where the
// model cannot tell (the key's lease may have expired, or the key may
// exist through an operation the history does not show), the create
// revision is left unknown (0) for the next reply that shows it
// (docs/decisions/0009).
func (s windowState) put(key, value string, lease, rev int64, t time.Duration) windowState {
	i, ok := s.key(key)
	var create int64
	if ok && (s.keys[i].lease == 0 || s.mustLive(s.keys[i].lease, t)) {
		create = s.keys[i].create
	}
	k := lessorKey{key: key, value: value, create: create, mod: rev, lease: lease}
	s.keys = slices.Clone(s.keys)
	if ok {
		s.keys[i] = k
	} else {
		s.keys = slices.Insert(s.keys, i, k)
	}
	return s
}

// keyMustLive reports whether key k must still exist at t: it is attached
// to no lease (nothing in the specification deletes it), or to one that
// must still be live.
func (s windowState) keyMustLive(k lessorKey, t time.Duration) bool {
	if k.unsure {
		return false
	}
	return k.lease == 0 || s.mustLive(k.lease, t)
}

// goneKey ends key k: its lease expired; or, k unsure, a refused put
// replaced it (attaching it to another lease, which may have expired),
// which shows nothing about k's lease (docs/decisions/0009).
func (s windowState) goneKey(k lessorKey) windowState {
	if !k.unsure {
		s = s.expired(k.lease)
	}
	if i, ok := s.key(k.key); ok {
		s.keys = slices.Delete(slices.Clone(s.keys), i, i+1)
	}
	return s
}

// absent accounts for a reply that shows key absent.
func (s windowState) absent(key string, t time.Duration) (windowState, string) {
	i, ok := s.key(key)
	if !ok {
		return s, ""
	}
	k := s.keys[i]
	if s.keyMustLive(k, t) {
		return s, fmt.Sprintf("%s is absent, but it is attached to lease %d, which must still be live", quote(key), k.lease)
	}
	return s.goneKey(k), ""
}

// notFound accounts for a reply that says lease id is not found.
func (s windowState) notFound(id int64, t time.Duration) (windowState, string) {
	if s.mustLive(id, t) {
		i, _ := s.lease(id)
		return s, fmt.Sprintf("lease %d was not found at %v, but it must stay live until %v", id, t, s.leases[i].liveUntil)
	}
	return s.expired(id), ""
}

// windowTimes returns when an operation may have taken effect: from its
// call (lo) to when its member answered (hi). A change through the log
// commits in between; a read returns the state committed at some instant
// in between (its ReadIndex round confirms one after the call; a member
// paused before replying answers long after it); a renewal acts at hi.
// An input built by hand has one time, its reply's ServerTime.
func windowTimes(in LessorInput, out LessorOutput) (lo, hi time.Duration) {
	if in.at == 0 {
		return out.ServerTime, out.ServerTime
	}
	return min(in.call, in.at), in.at
}

// windowStep applies one operation to s: the next state, and "" if the
// operation is legal in s, or why not. Along a linearization operations
// take effect in order of time: s.lastT is the earliest instant at which
// the last one placed may have taken effect, and an operation answered
// before it cannot come after it. Checks that a lease must still be live
// use the latest instant (when the member answered), and a lease's window
// runs from when its leader renewed it (a keepalive's answer; a grant's
// call), never from the place linearization gives it.
func windowStep(s windowState, in LessorInput, out LessorOutput, rhoPPB int64) (windowState, string) {
	lo, t := windowTimes(in, out)
	checkpoint := in.Op == OpTaskCheckpoint && (out.Err == LessorOK || out.Err == LessorFenced)
	switch out.Err {
	case LessorOK, LessorLeaseNotFound:
	case LessorBadRequest:
		return s, "" // refused without effect
	default:
		if checkpoint {
			break
		}
		// Any other refusal (a replica that is not, or no longer, the
		// leader) leaves the request's fate open: it may still commit. A
		// revoke may so end its lease from its call on; a grant or a create
		// that commits shows when a later reply names its lease or key.
		if i, ok := s.lease(in.Lease); ok && in.Op == OpLeaseRevoke && s.leases[i].liveUntil > lo {
			s.leases = slices.Clone(s.leases)
			s.leases[i].liveUntil = lo
		}
		if i, ok := s.key(in.Key); ok && (in.Op == OpPut || in.Op == OpCreate) {
			s.keys = slices.Clone(s.keys)
			s.keys[i].unsure = true // docs/decisions/0009
		}
		return s, ""
	}
	if t < s.lastT {
		return s, fmt.Sprintf("%v answered at %v, but an operation placed before it took effect at %v", in.Op, t, s.lastT)
	}
	s.lastT = max(s.lastT, lo)
	if in.Op == OpKeepAlive && out.Err == LessorOK {
		s.lastT = t // a renewal acts when the leader answers it
	}
	if checkpoint {
		if out.Revision < s.rev && out.Revision != 0 {
			return s, fmt.Sprintf("%v returned revision %d, below %d", in.Op, out.Revision, s.rev)
		}
		next, why := s.fencedPut(in, out, t)
		if why == "" {
			next.rev = max(next.rev, out.Revision)
		}
		return next, why
	}
	if out.Revision < s.rev && out.Revision != 0 {
		return s, fmt.Sprintf("%v returned revision %d, below %d", in.Op, out.Revision, s.rev)
	}
	var why string
	switch in.Op {
	case OpGrant:
		if out.Err != LessorOK {
			return s, "grant failed with " + string(out.Err)
		}
		if s.mustLive(out.Lease, t) || out.Lease <= 0 || out.TTL <= 0 {
			return s, fmt.Sprintf("grant returned lease %d ttl %v, but a new lease needs an id above 0 not in use and a TTL: %s",
				out.Lease, out.TTL, s)
		}
		// etcd refuses only an id in use (lessor.Grant: ErrLeaseExists): one
		// that was revoked, found expired or may have expired is granted
		// anew (docs/decisions/0007).
		if _, known := s.lease(out.Lease); known {
			s = s.expired(out.Lease)
		}
		if s.gone(out.Lease) {
			i, _ := slices.BinarySearch(s.revoked, out.Lease)
			s.revoked = slices.Delete(slices.Clone(s.revoked), i, i+1)
		}
		s = s.keepLive(out.Lease, out.TTL, lo, rhoPPB) // the primary starts it when it applies the grant
	case OpKeepAlive:
		if out.Err == LessorLeaseNotFound {
			s, why = s.notFound(in.Lease, t)
			break
		}
		if s.gone(in.Lease) {
			return s, fmt.Sprintf("keepalive of lease %d succeeded at %v, but it had expired or been revoked", in.Lease, t)
		}
		s = s.keepLive(in.Lease, out.TTL, t, rhoPPB)
	case OpLeaseRevoke:
		if out.Err == LessorLeaseNotFound {
			// Not a sign of early expiry: a client sends a revoke again
			// (the same request) when no member answered it, and an
			// earlier delivery may have revoked the lease.
			s = s.expire(in.Lease)
			break
		}
		if s.gone(in.Lease) {
			return s, fmt.Sprintf("revoke of lease %d succeeded at %v, but it had expired or been revoked", in.Lease, t)
		}
		s = s.expire(in.Lease)
	case OpCreate, OpPut:
		if out.Err == LessorLeaseNotFound {
			s, why = s.notFound(in.Lease, t)
			break
		}
		if in.Op == OpCreate && !out.OK {
			s, why = s.found(in.Key, out.KeyLease, out.CreateRevision, out.Value, t)
			break
		}
		if in.Lease != 0 && s.gone(in.Lease) {
			return s, fmt.Sprintf("%v attached %s to lease %d, which had expired or been revoked", in.Op, quote(in.Key), in.Lease)
		}
		if in.Op == OpCreate {
			if s, why = s.absent(in.Key, t); why != "" {
				return s, "create put over a live key: " + why
			}
		}
		if out.Revision <= s.rev {
			return s, fmt.Sprintf("%v returned revision %d, but a put raises it above %d", in.Op, out.Revision, s.rev)
		}
		if in.Lease != 0 {
			if _, ok := s.lease(in.Lease); !ok {
				s = s.keepLive(in.Lease, 0, lo, rhoPPB) // granted where the history does not show it
			}
		}
		if in.Op == OpPut {
			s = s.put(in.Key, in.Value, in.Lease, out.Revision, t)
			break
		}
		s, why = s.found(in.Key, in.Lease, out.Revision, in.Value, t)
	case OpGetKey:
		if out.OK {
			s, why = s.found(in.Key, out.KeyLease, out.CreateRevision, out.Value, t)
			if why == "" {
				s, why = s.readPlain(in.Key, out)
			}
		} else {
			s, why = s.absent(in.Key, t)
		}
	default:
		return s, fmt.Sprintf("%v is not a lessor operation", in.Op)
	}
	if why != "" {
		return s, why
	}
	s.rev = max(s.rev, out.Revision)
	return s, ""
}

// fencedPut accounts for a checkpoint's reply: it needs the guard key with
// the token as its create revision, and may not be refused (fenced) while
// that key's lease must still be live; it puts only over a smaller value
// (OK false: a value not below it was there). The guard's lease is not in
// the request, so a guard key the model has not seen is not added.
func (s windowState) fencedPut(in LessorInput, out LessorOutput, t time.Duration) (windowState, string) {
	g, ok := s.key(in.Guard)
	var k lessorKey
	if ok {
		k = s.keys[g]
	}
	if out.Err == LessorFenced {
		if ok && k.create == in.Token {
			if s.keyMustLive(k, t) {
				return s, fmt.Sprintf("checkpoint on %s refused, but %s has create revision %d under lease %d, which "+
					"must still be live", quote(in.Key), quote(in.Guard), in.Token, k.lease)
			}
			s = s.expired(k.lease) // the refusal shows the guard gone
		}
		return s, ""
	}
	switch {
	case ok && k.create == 0: // a put left it unknown: the put under the token shows it
		s.keys = slices.Clone(s.keys)
		s.keys[g].create = in.Token
	case ok && k.create > in.Token:
		return s, fmt.Sprintf("checkpoint on %s put under create revision %d of %s, but that key was replaced "+
			"(create %d)", quote(in.Key), in.Token, quote(in.Guard), k.create)
	case ok && k.create < in.Token:
		if s.keyMustLive(k, t) {
			return s, fmt.Sprintf("checkpoint on %s put under create revision %d of %s, but it is attached to lease %d "+
				"(create %d), which must still be live", quote(in.Key), in.Token, quote(in.Guard), k.lease, k.create)
		}
		s = s.expired(k.lease) // replaced by a create the history does not show
	}
	i, exists := s.key(in.Key)
	if !out.OK {
		return s, "" // overtaken: a put of a value not below this one, maybe one the history does not show
	}
	if exists && s.keys[i].value == in.Value {
		return s, "" // stored already: an acknowledgement
	}
	if exists && s.keys[i].value > in.Value {
		return s, fmt.Sprintf("checkpoint put %s over %s, which is not below it", quote(in.Value), quote(s.keys[i].value))
	}
	if out.Revision <= s.rev {
		return s, fmt.Sprintf("checkpoint returned revision %d, but a put raises it above %d", out.Revision, s.rev)
	}
	s.keys = slices.Clone(s.keys)
	if exists {
		s.keys[i].value, s.keys[i].mod, s.keys[i].lease = in.Value, out.Revision, 0
	} else {
		s.keys = slices.Insert(s.keys, i, lessorKey{key: in.Key, value: in.Value, create: out.Revision, mod: out.Revision})
	}
	return s, ""
}

// readPlain checks a get of a key attached to no lease against the model's
// last put of it: an older mod revision, or the same with another value, is
// a stale read (a lost checkpoint); a newer one is a put whose reply the
// history does not show.
func (s windowState) readPlain(key string, out LessorOutput) (windowState, string) {
	i, ok := s.key(key)
	if !ok || s.keys[i].lease != 0 || out.ModRevision == 0 || s.keys[i].mod == 0 {
		return s, ""
	}
	k := s.keys[i]
	switch {
	case out.ModRevision < k.mod || (out.ModRevision == k.mod && out.Value != k.value):
		return s, fmt.Sprintf("get %s returned %s (mod %d), but it was put %s at mod %d", quote(key), quote(out.Value),
			out.ModRevision, quote(k.value), k.mod)
	case out.ModRevision > k.mod:
		s.keys = slices.Clone(s.keys)
		s.keys[i].value, s.keys[i].mod = out.Value, out.ModRevision
	}
	return s, ""
}
