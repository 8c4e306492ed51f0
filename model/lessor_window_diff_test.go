package model

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// The differential harness for the specifications that judge a replicated
// lessor (LessorWindowSpec, and Bounded with a LessorBound): random small
// histories of recorded operations, produced by a reference store that
// follows etcd's documented lease semantics exactly (the strict Lessor's
// rules, each operation at the instant its member answered, a lease gone
// exactly TTL after its last renewal), laid out in true time with calls,
// answers and returns, some replies refused with their effect taken or
// not, and two in three of them corrupted (two to four changes). Every history is decided by plain
// porcupine, by porcupine with the specification's partitions (operations
// and events) and by a brute-force search, which must agree; every
// uncorrupted history must be linearizable, since etcd's store could have
// produced it.

// windowTTL is the generated leases' TTL, and windowRho the clocks' drift
// bound the specifications are given.
const (
	windowTTL = 2 * time.Second
	windowRho = 10_000_000 // 1%
)

// refLessor is the reference store: the strict lessor's state and the next
// lease id it grants (ids are never reused, as etcd's are random 63-bit
// numbers).
type refLessor struct {
	s    lessorState
	next int64
}

// answer applies in at true time t and returns the reply etcd's store gives
// (every field a reply of its kind carries). A grant past the ids the
// generator names is refused as a bad request.
func (ref *refLessor) answer(in LessorInput, t time.Duration) LessorOutput {
	s := ref.s.expire(t)
	s.lastT = t
	out := LessorOutput{ServerTime: t}
	if in.Op == OpGrant {
		if ref.next > 3 {
			ref.s = s
			return LessorOutput{Err: LessorBadRequest, ServerTime: t}
		}
		out.Lease, out.TTL = ref.next, in.TTL
		ref.next++
	}
	next, err := lessorApply(s, in, out)
	out.Err = err
	if err == LessorOK {
		switch in.Op {
		case OpKeepAlive:
			i, _ := s.lease(in.Lease)
			out.TTL = s.leases[i].ttl
		case OpCreate, OpTaskCheckpoint:
			out.OK = next.rev != s.rev
			if k, ok := s.key(in.Key); in.Op == OpTaskCheckpoint && ok && s.keys[k].value == in.Value {
				out.OK = true // stored already: acknowledged
			}
		}
		if k, ok := s.key(in.Key); ok && (in.Op == OpGetKey || (in.Op == OpCreate && !out.OK)) {
			key := s.keys[k]
			out.OK = in.Op == OpGetKey
			out.Value, out.CreateRevision, out.ModRevision, out.KeyLease = key.value, key.create, key.mod, key.lease
		}
	}
	out.Revision = next.rev
	if err == LessorFenced {
		out.Revision = s.rev
	}
	ref.s = next
	return out
}

// windowInputDraw draws a request: keys k1 and k2, checkpoints of c under
// k1's create revision, and a lease that is none (0), one the store has
// granted (ids below granted), or one it never grants (9). A request never
// names an id before the store grants it: etcd's ids are unique numbers the
// store picks, which a client learns from the grant's reply.
func windowInputDraw(r *rand.Rand, granted int64) LessorInput {
	lease := pick[int64](r, 0, 9)
	if granted > 1 && r.IntN(3) > 0 {
		lease = 1 + r.Int64N(granted-1)
	}
	in := LessorInput{Op: pick(r, OpGrant, OpGrant, OpKeepAlive, OpLeaseRevoke, OpPut, OpCreate, OpCreate, OpGetKey,
		OpGetKey, OpTaskCheckpoint), Client: pick(r, "a1", "b2", "c3"), Key: pick(r, "k1", "k2"),
		Value: pick(r, "u", "v"), Lease: lease, TTL: windowTTL}
	switch in.Op {
	case OpGrant:
		in.Key, in.Value, in.Lease = "", "", 0
	case OpKeepAlive, OpLeaseRevoke:
		in.Key, in.Value = "", ""
	case OpGetKey:
		in.Value, in.Lease = "", 0
	case OpTaskCheckpoint:
		in.Key, in.Value, in.Guard, in.Token, in.Lease = "c", pick(r, "s1", "s2"), "k1", int64(1+r.IntN(4)), 0
	}
	return in
}

// windowPayloads writes a request and its reply as a history records them
// (what historyLessorInput and historyLessorOutput read).
func windowPayloads(in LessorInput, out LessorOutput) (history.Payload, history.Payload) {
	req := history.Payload{Kind: string(in.Op), Key: in.Key, Value: in.Value, Lease: uint64(in.Lease), TTL: in.TTL,
		Resource: in.Guard, Token: uint64(in.Token)}
	rep := history.Payload{Kind: string(in.Op) + replySuffix, Err: string(out.Err), OK: out.OK, Lease: uint64(out.KeyLease),
		TTL: out.TTL, Revision: out.Revision, Value: out.Value, Token: uint64(out.CreateRevision), Clock: out.ServerTime}
	if in.Op == OpGrant {
		rep.Lease = uint64(out.Lease)
	}
	if out.ModRevision != 0 {
		rep.Version = strconv.FormatInt(out.ModRevision, 10)
	}
	return req, rep
}

// windowHistory draws a history of up to maxOps operations from the
// reference store, and says whether it corrupted it.
func windowHistory(r *rand.Rand, maxOps int) ([]porcupine.Operation, bool) {
	const never = 1 << 50
	ref := &refLessor{next: 1}
	n := 1 + r.IntN(maxOps)
	ops := make([]porcupine.Operation, n)
	at := time.Second
	for i := range n {
		at += pick(r, 0, 10*time.Millisecond, 300*time.Millisecond, time.Second, 1990*time.Millisecond, 3*time.Second)
		call := max(time.Millisecond, at-pick(r, 0, 5*time.Millisecond, 200*time.Millisecond, time.Second, 2500*time.Millisecond))
		ret := at + pick(r, 0, 5*time.Millisecond, 200*time.Millisecond, time.Second)
		in := windowInputDraw(r, ref.next)
		var out LessorOutput
		switch r.IntN(14) {
		case 0: // refused without effect
			out = LessorOutput{Err: LessorBadRequest, ServerTime: at}
		case 1: // a member that is not (or no longer) the leader: the request may have committed
			if r.IntN(2) == 0 {
				ref.answer(in, at)
			}
			out = LessorOutput{Err: "not_leader", ServerTime: at}
		default:
			out = ref.answer(in, at)
		}
		rq, rp := windowPayloads(in, out)
		o := &history.Operation{Client: in.Client, Server: "g1", ID: uint64(i + 1), Call: history.Time(call),
			Processed: history.Time(at), Return: history.Time(ret), Input: rq, Output: rp}
		if r.IntN(12) == 0 {
			ret = never // the reply never reached its client
		}
		ops[i] = porcupine.Operation{ClientId: int(in.Client[1] - '0'), Input: o, Output: &o.Output, Call: int64(call),
			Return: int64(ret)}
	}
	if r.IntN(3) == 0 {
		return ops, false
	}
	for range 2 + r.IntN(3) {
		corruptWindowOp(r, ops[r.IntN(n)])
	}
	return ops, true
}

// corruptWindowOp changes one thing about an operation: its reply's error,
// OK, revision, lease, value or create revision, or when its member
// answered (within its call and return).
func corruptWindowOp(r *rand.Rand, op porcupine.Operation) {
	o := op.Input.(*history.Operation)
	p := &o.Output
	switch r.IntN(7) {
	case 0:
		p.Err = pick(r, "", string(LessorLeaseNotFound), string(LessorFenced))
	case 1:
		p.OK = !p.OK
	case 2:
		p.Revision += pick[int64](r, -1, 1, 2)
	case 3:
		p.Lease = uint64(r.IntN(4))
	case 4:
		p.Value = pick(r, "", "u", "v", "s1", "s2")
	case 5:
		p.Token = uint64(r.IntN(5))
	case 6:
		lo, hi := int64(o.Call), min(op.Return, int64(o.Processed)+int64(3*time.Second))
		o.Processed = history.Time(lo + r.Int64N(hi-lo+1))
		p.Clock = time.Duration(o.Processed)
	}
}

// randomTerms draws leader terms of members g1-g3 over the first 30 s and
// fault windows on them, as a recorded history declares them.
func randomTerms(r *rand.Rand) ([]history.LeaderTerm, []history.FaultWindow) {
	members := []string{"g1", "g2", "g3"}
	var terms []history.LeaderTerm
	start := time.Duration(r.Int64N(int64(2 * time.Second)))
	for i := range 1 + r.IntN(4) {
		length := time.Duration(1+r.IntN(12)) * time.Second
		terms = append(terms, history.LeaderTerm{Server: members[r.IntN(3)], Members: members, Term: uint64(i + 1),
			Start: history.Time(start), End: history.Time(start + length), Extension: time.Second,
			CheckpointInterval: pick(r, 0, time.Second, 1500*time.Millisecond), CheckPeriod: 100 * time.Millisecond})
		start += length + time.Duration(r.Int64N(int64(2*time.Second)))
	}
	var faults []history.FaultWindow
	for range r.IntN(3) {
		from := time.Duration(r.Int64N(int64(30 * time.Second)))
		faults = append(faults, history.FaultWindow{Kind: pick(r, history.FaultPause, history.FaultCrash,
			history.FaultIsolate, history.FaultDrift), Nodes: []string{pick(r, "g1", "g2", "g3")},
			Start: history.Time(from), End: history.Time(from + time.Duration(r.Int64N(int64(5*time.Second))))})
	}
	return terms, faults
}

// windowCounts are a window differential's verdict counts, and how many
// histories the specification without its partitions refused although
// each partition is linearizable (see docs/decisions/0008).
type windowCounts struct {
	counts
	wholeOnly int
}

// windowDifferential checks histories of the specification spec returns for
// a history's terms and faults, and returns the verdict counts. The plain
// porcupine check and the brute force run over the product of the
// history's partitions (one state per component of leases and keys, as
// unpartitioned does for the other specifications), since that is what the
// specification decides; the specification without partitions, which also
// compares revisions and times across components, must never accept what
// the partitions refuse.
func windowDifferential(t *testing.T, seed uint64, spec func(terms []history.LeaderTerm, faults []history.FaultWindow) Spec) windowCounts {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x1e55))
	var c windowCounts
	for h := range histories() {
		terms, faults := randomTerms(r)
		m := spec(terms, faults).Model
		ops, corrupted := windowHistory(r, 7)
		comp := lessorComponents(len(ops), func(i int) (LessorInput, LessorOutput) {
			return windowInput(ops[i].Input), windowOutput(ops[i].Output)
		})
		byOp := make(map[*history.Operation]string, len(ops)) // looked up, never iterated
		for i, op := range ops {
			byOp[op.Input.(*history.Operation)] = comp[i]
		}
		bare := m
		bare.Partition, bare.PartitionEvent = nil, nil
		product := unpartitioned(bare, func(in any) string { return byOp[in.(*history.Operation)] })
		name := fmt.Sprintf("seed %d history %d (terms %+v, faults %+v)", seed, h, terms, faults)
		verdict, agreed := decideEveryWay(t, m, product, ops, name)
		if !agreed {
			return c
		}
		if !corrupted && !assert.Equal(t, porcupine.Ok, verdict, "%s: a history etcd's store produced is refused: %s",
			name, describeOps(m, ops)) {
			return c
		}
		if whole := porcupine.CheckOperations(bare, ops); whole != (verdict == porcupine.Ok) {
			if !assert.False(t, whole, "%s: refused by the partitions, accepted whole: %s", name, describeOps(m, ops)) {
				return c
			}
			c.wholeOnly++
		}
		c.add(verdict)
	}
	return c
}

func TestLessorWindowDifferential(t *testing.T) {
	c := windowDifferential(t, 23, func([]history.LeaderTerm, []history.FaultWindow) Spec { return LessorWindowSpec(windowRho) })
	t.Logf("%d linearizable, %d illegal; %d of the linearizable refused without partitions", c.ok, c.illegal, c.wholeOnly)
	require.Equal(t, histories(), c.ok+c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}

func TestLessorBoundedDifferential(t *testing.T) {
	c := windowDifferential(t, 29, func(terms []history.LeaderTerm, faults []history.FaultWindow) Spec {
		return Bounded(LessorWindowSpec(windowRho), NewLessorBound(terms, faults, windowRho))
	})
	t.Logf("%d linearizable, %d illegal; %d of the linearizable refused without partitions", c.ok, c.illegal, c.wholeOnly)
	require.Equal(t, histories(), c.ok+c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}
