package model

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

func lgrant(id int64, ttl, t float64) pair {
	return pair{LessorInput{Op: OpGrant, TTL: sec(ttl)}, LessorOutput{Lease: id, TTL: sec(ttl), ServerTime: sec(t)}}
}

func llease(op LessorOp, id int64, t float64, err LessorErr, ttl float64) pair {
	return pair{LessorInput{Op: op, Lease: id}, LessorOutput{Err: err, TTL: sec(ttl), ServerTime: sec(t)}}
}

func lput(op LessorOp, key, value string, lease int64, t float64, ok bool, rev int64, err LessorErr) pair {
	return pair{LessorInput{Op: op, Key: key, Value: value, Lease: lease}, LessorOutput{Err: err, OK: ok, Revision: rev, ServerTime: sec(t)}}
}

func lget(key string, t float64, value string, create, mod, lease, rev int64) pair {
	return pair{LessorInput{Op: OpGetKey, Key: key}, LessorOutput{OK: create != 0, Value: value, CreateRevision: create,
		ModRevision: mod, KeyLease: lease, Revision: rev, ServerTime: sec(t)}}
}

func TestLessorRules(t *testing.T) {
	runCases(t, LessorSpec(), []specCase{
		{"grant, attach, read", []pair{lgrant(7, 3, 0), lput(OpPut, "k", "v", 7, 1, false, 1, LessorOK), lget("k", 1, "v", 1, 1, 7, 1)}, ""},
		{"grant a live id", []pair{lgrant(7, 3, 0), lgrant(7, 3, 1)}, "a free id"},
		{"put on a missing lease", []pair{lput(OpPut, "k", "v", 7, 1, false, 0, LessorLeaseNotFound), lget("k", 1, "", 0, 0, 0, 0)}, ""},
		{"put on a missing lease succeeds", []pair{lput(OpPut, "k", "v", 7, 1, false, 1, LessorOK)}, "put succeeded"},
		{"revisions count writes", []pair{lput(OpPut, "k", "a", 0, 0, false, 1, LessorOK), lput(OpPut, "k", "b", 0, 0, false, 2, LessorOK),
			lget("k", 0, "b", 1, 2, 0, 2)}, ""},
		{"a revision skipped", []pair{lput(OpPut, "k", "a", 0, 0, false, 1, LessorOK), lput(OpPut, "k", "b", 0, 0, false, 3, LessorOK)}, "revision 3, but it is 2"},
		{"create when absent", []pair{lput(OpCreate, "k", "a", 0, 0, true, 1, LessorOK)}, ""},
		{"create when present", []pair{lput(OpCreate, "k", "a", 0, 0, true, 1, LessorOK), lput(OpCreate, "k", "b", 0, 0, false, 1, LessorOK)}, ""},
		{"create twice", []pair{lput(OpCreate, "k", "a", 0, 0, true, 1, LessorOK), lput(OpCreate, "k", "b", 0, 0, true, 2, LessorOK)}, "put it"},
		{"expiry deletes attached keys", []pair{lgrant(7, 3, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK),
			lget("k", 3, "", 0, 0, 0, 2), lput(OpCreate, "k", "b", 0, 3, true, 3, LessorOK)}, ""},
		{"a key outlives its lease", []pair{lgrant(7, 3, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK), lget("k", 3, "a", 1, 1, 7, 1)}, "get \"k\""},
		{"keepalive extends", []pair{lgrant(7, 3, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK),
			llease(OpKeepAlive, 7, 2, LessorOK, 3), lget("k", 4.9, "a", 1, 1, 7, 1)}, ""},
		{"keepalive after expiry", []pair{lgrant(7, 3, 0), llease(OpKeepAlive, 7, 3, LessorOK, 3)}, "keepalive succeeded"},
		{"keepalive returns another ttl", []pair{lgrant(7, 3, 0), llease(OpKeepAlive, 7, 1, LessorOK, 5)}, "granted 3s"},
		{"revoke deletes", []pair{lgrant(7, 3, 0), lput(OpPut, "k", "a", 7, 0, false, 1, LessorOK), llease(OpLeaseRevoke, 7, 1, LessorOK, 0),
			lget("k", 1, "", 0, 0, 0, 2), llease(OpLeaseRevoke, 7, 1, LessorLeaseNotFound, 0)}, ""},
		{"time goes backwards", []pair{lgrant(7, 3, 2), lgrant(8, 3, 1)}, "went backwards"},
	})
}

// lessorGen draws operations on two keys and lease ids 1 and 2, with a 3s
// TTL and readings in whole seconds. Given the state, it mostly draws the
// reply the store would give, which a random draw would rarely hit.
func lessorGen() opGen {
	return opGen{
		spec: LessorSpec(),
		key:  func(any) string { return "" },
		input: func(r *rand.Rand) any {
			return LessorInput{Op: pick(r, OpGrant, OpKeepAlive, OpLeaseRevoke, OpPut, OpCreate, OpCreate, OpGetKey, OpGetKey),
				Client: pick(r, "a", "b"), Key: pick(r, "k1", "k2"), Value: pick(r, "u", "v"), Lease: int64(r.IntN(3)), TTL: 3 * time.Second}
		},
		output: func(r *rand.Rand, input any, now int64, state any) (any, int64) {
			clock := now + pick[int64](r, 0, 0, 1, 2, 3)
			out := LessorOutput{Err: pick(r, LessorOK, LessorOK, LessorOK, LessorLeaseNotFound, LessorBadRequest), OK: r.IntN(2) == 0,
				Lease: int64(1 + r.IntN(2)), TTL: 3 * time.Second, Revision: int64(r.IntN(4)), Value: pick(r, "", "u", "v"),
				ServerTime: time.Duration(clock) * time.Second}
			if s, ok := state.(lessorState); ok && r.IntN(4) > 0 {
				out = replyOf(s, lessorInput(input), out)
			}
			return out, clock
		},
	}
}

// replyOf is the store's reply to in from s at out's reading, for the
// fields the specification checks (the error and the id are out's draw).
func replyOf(s lessorState, in LessorInput, out LessorOutput) LessorOutput {
	s = s.expire(out.ServerTime)
	s.lastT = out.ServerTime
	next, _ := lessorApply(s, in, out)
	out.Revision, out.OK = next.rev, next.rev != s.rev
	if i, ok := s.key(in.Key); ok && in.Op == OpGetKey {
		k := s.keys[i]
		out.OK, out.Value, out.CreateRevision, out.ModRevision, out.KeyLease = true, k.value, k.create, k.mod, k.lease
	} else if in.Op == OpGetKey {
		out.OK, out.Value = false, ""
	}
	return out
}

func TestLessorDifferential(t *testing.T) {
	c := differential(t, lessorGen(), 17, histories(), 7)
	t.Logf("%d linearizable, %d illegal", c.ok, c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}

// lexists is a create that found key attached to lease with create
// revision create.
func lexists(key string, lease int64, t float64, create, rev int64) pair {
	return pair{LessorInput{Op: OpCreate, Key: key, Value: "x", Lease: lease},
		LessorOutput{KeyLease: lease, CreateRevision: create, Revision: rev, ServerTime: sec(t)}}
}

func TestLessorWindowRules(t *testing.T) {
	const rho = 10_000_000 // 1%: a 10 s lease must live 9.9 s
	runCases(t, LessorWindowSpec(rho), []specCase{
		{"grant, create, read", []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "v", 7, 1, true, 1, LessorOK),
			lget("k", 2, "v", 1, 1, 7, 1)}, ""},
		{"expired inside the window", []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "v", 7, 1, true, 1, LessorOK),
			llease(OpKeepAlive, 7, 9.95, LessorLeaseNotFound, 0), lget("k", 10, "", 0, 0, 0, 2)}, ""},
		{"expired before the window", []pair{lgrant(7, 10, 0), llease(OpKeepAlive, 7, 9.8, LessorLeaseNotFound, 0)},
			"must stay live until 9.9s"},
		{"keepalive restarts the window", []pair{lgrant(7, 10, 0), llease(OpKeepAlive, 7, 5, LessorOK, 10),
			llease(OpKeepAlive, 7, 14, LessorLeaseNotFound, 0)}, "must stay live until 14.9s"},
		{"outliving the TTL is allowed", []pair{lgrant(7, 10, 0), llease(OpKeepAlive, 7, 30, LessorOK, 10)}, ""},
		{"keepalive after expiry", []pair{lgrant(7, 10, 0), llease(OpKeepAlive, 7, 12, LessorLeaseNotFound, 0),
			llease(OpKeepAlive, 7, 13, LessorOK, 10)}, "had expired or been revoked"},
		{"keepalive after revoke", []pair{lgrant(7, 10, 0), llease(OpLeaseRevoke, 7, 1, LessorOK, 0),
			llease(OpKeepAlive, 7, 2, LessorOK, 10)}, "had expired or been revoked"},
		{"create over a live key", []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK),
			lgrant(8, 10, 2), lput(OpCreate, "k", "b", 8, 3, true, 2, LessorOK)}, "create put over a live key"},
		{"create once the key's lease may have gone", []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK),
			lgrant(8, 10, 2), lput(OpCreate, "k", "b", 8, 11, true, 3, LessorOK)}, ""},
		{"a retried create finds its own key", []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK),
			lexists("k", 7, 2, 1, 1)}, ""},
		{"a create the history missed", []pair{lgrant(7, 10, 0), lexists("k", 7, 2, 1, 1)}, ""},
		{"a key of a revoked lease", []pair{lgrant(7, 10, 0), llease(OpLeaseRevoke, 7, 1, LessorOK, 0),
			lexists("k", 7, 2, 1, 1)}, "had expired or been revoked"},
		{"a live key missing", []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK),
			lget("k", 5, "", 0, 0, 0, 1)}, "must still be live"},
		{"revisions go back", []pair{lput(OpCreate, "k", "a", 0, 0, true, 4, LessorOK), lget("j", 1, "", 0, 0, 0, 3)}, "below 4"},
		{"a refusal is legal", []pair{lgrant(7, 10, 0), llease(OpKeepAlive, 7, 1, "not_leader", 0)}, ""},
		{"a revoke refused by a deposed leader may still commit", []pair{lgrant(7, 10, 0),
			lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK), llease(OpLeaseRevoke, 7, 2, "not_leader", 0),
			lget("k", 3, "", 0, 0, 0, 2)}, ""},
		{"a bad request has no effect", []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK),
			llease(OpLeaseRevoke, 7, 2, LessorBadRequest, 0), lget("k", 3, "", 0, 0, 0, 2)}, "must still be live"},
	})
}

// The lessor's window widens to the drift the clocks had, when a run
// names it: a 10 s lease renewed at 0 may be found expired at 9.5 s only
// under 5% drift.
func TestLessorDriftVariant(t *testing.T) {
	l := history.Lease{TTL: 10 * time.Second, RhoPPB: 10_000_000}
	ops := []pair{lgrant(7, 10, 0), llease(OpKeepAlive, 7, 9.5, LessorLeaseNotFound, 0)}
	for _, tc := range []struct {
		name  string
		legal bool
	}{
		{"lessor", false},
		{LessorDriftVariant(50_000_000), true},
		{"lessor/drift-ppb=nonsense", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := SpecFor(tc.name, l)
			require.NoError(t, err)
			state := spec.Model.Init()
			legal := true
			for _, o := range ops {
				var ok bool
				ok, state = spec.Model.Step(state, o.in, o.out)
				legal = legal && ok
			}
			assert.Equal(t, tc.legal, legal)
		})
	}
}

// lfenced is a checkpoint: a fenced put of key=value under guard's create revision
// token, answered at t with ok and revision rev.
func lfenced(key, value, guard string, token int64, t float64, ok bool, rev int64) pair {
	out := LessorOutput{OK: ok, Revision: rev, ServerTime: sec(t)}
	if !ok {
		out.Err = LessorFenced
	}
	return pair{LessorInput{Op: OpTaskCheckpoint, Key: key, Value: value, Guard: guard, Token: token}, out}
}

// lokfenced is a checkpoint under guard's token that a value not below
// its own overtook: accepted, nothing put.
func lokfenced(key, value, guard string, token int64, t float64, rev int64) pair {
	return pair{LessorInput{Op: OpTaskCheckpoint, Key: key, Value: value, Guard: guard, Token: token},
		LessorOutput{Revision: rev, ServerTime: sec(t)}}
}

// A fenced put is a task checkpoint under a lock's token: it puts only
// while the lock's key has that create revision, and a read of the
// checkpoint must see the latest put.
func TestLessorCheckpoint(t *testing.T) {
	held := []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK)}
	with := func(ps ...pair) []pair { return append(append([]pair{}, held...), ps...) }
	t.Run("strict", func(t *testing.T) {
		runCases(t, LessorSpec(), []specCase{
			{"put under the token", with(lfenced("c", "s1", "k", 1, 2, true, 2), lget("c", 2, "s1", 2, 2, 0, 2)), ""},
			{"refused under another token", with(lfenced("c", "s1", "k", 5, 2, false, 1), lget("c", 2, "", 0, 0, 0, 1)), ""},
			{"put under another token", with(lfenced("c", "s1", "k", 5, 2, true, 2)), "checkpoint succeeded, but"},
			{"refused under the token", with(lfenced("c", "s1", "k", 1, 2, false, 1)), "fenced"},
			{"overtaken by a newer value", with(lfenced("c", "s2", "k", 1, 2, true, 2), lokfenced("c", "s1", "k", 1, 3, 2),
				lget("c", 3, "s2", 2, 2, 0, 2)), ""},
			{"put over a newer value", with(lfenced("c", "s2", "k", 1, 2, true, 2), lfenced("c", "s1", "k", 1, 3, true, 3)), "put it"},
			{"a retry acknowledged", with(lfenced("c", "s2", "k", 1, 2, true, 2), lfenced("c", "s2", "k", 1, 3, true, 2)), ""},
		})
	})
	const rho = 10_000_000
	runCases(t, LessorWindowSpec(rho), []specCase{
		{"put under the token, read back", with(lfenced("c", "s1", "k", 1, 2, true, 2), lfenced("c", "s2", "k", 1, 3, true, 3),
			lget("c", 4, "s2", 2, 3, 0, 3)), ""},
		{"a lost checkpoint", with(lfenced("c", "s1", "k", 1, 2, true, 2), lfenced("c", "s2", "k", 1, 3, true, 3),
			lget("c", 4, "s1", 2, 2, 0, 3)), "but it was put \"s2\" at mod 3"},
		{"a put whose reply is missing", with(lfenced("c", "s1", "k", 1, 2, true, 2), lget("c", 4, "s2", 2, 3, 0, 3)), ""},
		{"refused while the token's lease must live", with(lfenced("c", "s1", "k", 1, 2, false, 1)), "must still be live"},
		{"refused once the lease may have gone", with(lfenced("c", "s1", "k", 1, 12, false, 1),
			lget("k", 13, "", 0, 0, 0, 2)), ""},
		{"put under a token newer than a live key's", with(lfenced("c", "s1", "k", 5, 2, true, 2)), "must still be live"},
		{"put under an older token", with(lfenced("c", "s1", "k", 0, 2, true, 2)), "that key was replaced"},
		{"put under a replaced token", []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK),
			lgrant(8, 10, 11), lput(OpCreate, "k", "b", 8, 12, true, 3, LessorOK), lfenced("c", "s1", "k", 1, 13, true, 4)},
			"that key was replaced"},
		{"a late older checkpoint is overtaken", with(lfenced("c", "s2", "k", 1, 2, true, 2), lokfenced("c", "s1", "k", 1, 3, 2),
			lget("c", 4, "s2", 2, 2, 0, 2)), ""},
		{"a late older checkpoint overwrites", with(lfenced("c", "s2", "k", 1, 2, true, 2), lfenced("c", "s1", "k", 1, 3, true, 3)),
			"not below it"},
		{"a retry acknowledged", with(lfenced("c", "s2", "k", 1, 2, true, 2), lfenced("c", "s2", "k", 1, 3, true, 2)), ""},
		{"put without raising the revision", with(lfenced("c", "s1", "k", 1, 2, true, 1)), "raises it above 1"},
	})
}

// hop is a history operation for LessorWindowSpec: client's request in to
// server, sent at call, answered (processed) at processed, returned at
// ret (seconds), with reply out.
func hop(client, server string, call, processed, ret float64, in, out history.Payload) porcupine.Operation {
	o := &history.Operation{Client: client, Server: server, Call: history.Time(sec(call)),
		Processed: history.Time(sec(processed)), Return: history.Time(sec(ret)), Input: in, Output: out}
	return porcupine.Operation{ClientId: int(client[len(client)-1] - '0'), Input: o, Output: &o.Output,
		Call: int64(o.Call), Return: int64(o.Return)}
}

func hgrant(lease uint64) (history.Payload, history.Payload) {
	return history.Payload{Kind: "grant", TTL: 5 * time.Second},
		history.Payload{Kind: "grant_reply", TTL: 5 * time.Second, Lease: lease}
}

func hcreate(key, value string, lease uint64, rev int64) (history.Payload, history.Payload) {
	return history.Payload{Kind: "create", Key: key, Value: value, Lease: lease},
		history.Payload{Kind: "create_reply", Value: value, Token: uint64(rev), Lease: lease, Revision: rev,
			Version: strconv.FormatInt(rev, 10), OK: true}
}

func hlease(kind string, lease uint64, err string) (history.Payload, history.Payload) {
	out := history.Payload{Kind: kind + "_reply", Err: err}
	if kind == "keepalive" && err == "" {
		out.TTL = 5 * time.Second
	}
	return history.Payload{Kind: kind, Lease: lease}, out
}

func hgetAbsent(key string, rev int64) (history.Payload, history.Payload) {
	return history.Payload{Kind: "get", Key: key}, history.Payload{Kind: "get_reply", Revision: rev}
}

func hgetFound(key, value string, lease uint64, create int64) (history.Payload, history.Payload) {
	return history.Payload{Kind: "get", Key: key}, history.Payload{Kind: "get_reply", Value: value, Token: uint64(create),
		Lease: lease, Revision: create, Version: strconv.FormatInt(create, 10), OK: true}
}

// swarmSeed162 is the part of zoo/etcdraft's swarm seed 162 (before task
// checkpoints) that P3 judged: grantor3, paused from 110.6 s to 122.9 s,
// answered h3's get of 109.1 s on resuming, with the key as it was before
// h1 created it again at 119.3 s; h3's lease 165, last kept alive by the
// leader at 120.32 s, was found expired at 126.24 s, after its window of
// 4.95 s. The get can only go before h1's create, the keepalive after it.
func swarmSeed162(notFoundAt float64) []porcupine.Operation {
	in, out := hgrant(34)
	ops := []porcupine.Operation{hop("h1", "grantor3", 90.9, 90.91, 90.92, in, out)}
	in, out = hcreate("lock", "h1", 34, 13)
	ops = append(ops, hop("h1", "grantor3", 90.927, 90.936, 90.938, in, out))
	in, out = hgrant(165)
	ops = append(ops, hop("h3", "grantor3", 103.157, 103.165, 103.168, in, out))
	in, out = hcreate("lock", "h3", 165, 13)
	out.Value, out.Lease, out.OK = "h1", 34, false // found h1's key
	ops = append(ops, hop("h3", "grantor3", 103.169, 103.177, 103.180, in, out))
	in, out = hgetFound("lock", "h1", 34, 13)
	ops = append(ops, hop("h3", "grantor3", 109.116, 122.910, 126.218, in, out))
	in, out = hgrant(185)
	ops = append(ops, hop("h1", "grantor", 119.264, 119.276, 119.280, in, out))
	in, out = hcreate("lock", "h1", 185, 15)
	ops = append(ops, hop("h1", "grantor", 119.280, 119.290, 119.293, in, out))
	in, out = hlease("keepalive", 165, "")
	ops = append(ops, hop("h3", "grantor", 120.313, 120.321, 120.324, in, out))
	in, out = hlease("keepalive", 165, "lease_not_found")
	return append(ops, hop("h3", "grantor", notFoundAt-0.006, notFoundAt, notFoundAt+0.005, in, out))
}

// thunderingHerdSeed77 is zoo/etcdraft's thundering-herd seed 77 (before
// task checkpoints) around lease 25: h12 released the lock at 43.51 s;
// its revoke reached the leader, which was isolated at 43.515 s and
// answered it not_leader at 45.0 s (the reply never returned), but the
// revoke had committed: the next leader's get at 44.538 s finds the key
// gone, inside the window of the keepalive of 42.22 s. revokeCall is when
// h12 sent the revoke.
func thunderingHerdSeed77(revokeCall float64) []porcupine.Operation {
	in, out := hgrant(25)
	ops := []porcupine.Operation{hop("h2", "grantor", 0.55, 0.559, 0.561, in, out)}
	in, out = hcreate("lock", "h2", 25, 41)
	ops = append(ops, hop("h2", "grantor", 41.5008, 41.5066, 41.5101, in, out))
	in, out = hlease("keepalive", 25, "")
	ops = append(ops, hop("h2", "grantor", 42.2167, 42.2242, 42.2275, in, out))
	in, out = hlease("revoke", 25, "not_leader")
	ops = append(ops, hop("h2", "grantor", revokeCall, max(45, revokeCall+0.01), 120, in, out))
	in, out = hgetAbsent("lock", 42)
	return append(ops, hop("h5", "grantor3", 44.5298, 44.5381, 44.5416, in, out))
}

// grantorRestartSeed178 is zoo/etcdraft's grantor-restart seed 178: w2
// finished task t1 and revoked lease 5 at 6.13 s; the leader crashed at
// 6.137 s with the revoke committed but not answered, and the next leader
// deleted t1 (w1's get at 7.58 s finds it gone, inside the window of the
// keepalive of 5.084 s). The holder sends the revoke again, as the same
// request: one answer not_leader, then lease_not_found. revoke is the kind
// of w2's last two requests ("": none, as before the holder sent it again).
func grantorRestartSeed178(kind string) []porcupine.Operation {
	in, out := hgrant(5)
	ops := []porcupine.Operation{hop("w2", "grantor", 0.0763, 0.0857, 0.0880, in, out)}
	in, out = hcreate("t1", "w2", 5, 2)
	ops = append(ops, hop("w2", "grantor", 0.0880, 0.0986, 0.1020, in, out))
	in, out = hlease("keepalive", 5, "")
	ops = append(ops, hop("w2", "grantor", 5.0763, 5.0840, 5.0888, in, out))
	in, out = hgetAbsent("t1", 8)
	ops = append(ops, hop("w1", "grantor2", 7.5695, 7.5789, 7.5834, in, out))
	if kind == "" {
		return ops
	}
	in, out = hlease(kind, 5, "not_leader")
	ops = append(ops, hop("w2", "grantor2", 6.1303, 6.9653, 6.9681, in, out))
	in, out = hlease(kind, 5, "lease_not_found")
	return append(ops, hop("w2", "grantor2", 6.1303, 7.8190, 7.8239, in, out))
}

// staleRead is a revoke of lease 7 that took effect at 1.01 s, whose reply
// came late (3 s), and a get of its key sent at getCall that still shows
// it: linearizable by calls and returns alone, but the get's state is
// older than its call when the revoke took effect before it.
func staleRead(getCall float64) []porcupine.Operation {
	in, out := hgrant(7)
	ops := []porcupine.Operation{hop("a1", "grantor", 0, 0.01, 0.02, in, out)}
	in, out = hcreate("k", "a", 7, 1)
	ops = append(ops, hop("a1", "grantor", 0.02, 0.03, 0.04, in, out))
	in, out = hlease("revoke", 7, "")
	out.Revision = 2
	ops = append(ops, hop("b2", "grantor", 1, 1.01, 3, in, out))
	in, out = hgetFound("k", "a", 7, 1)
	return append(ops, hop("c3", "grantor2", getCall, 2.5, 2.6, in, out))
}

// LessorWindowSpec times each operation within its call and its answer:
// a renewal acts when the leader answers it, so its window is never moved
// later by the place a linearization gives it (swarm 162); a change
// through the log or a read takes effect between its call and its answer,
// so a refused revoke may have ended its lease from its call on (herd 77)
// and a read cannot show a state older than its call (stale reads).
func TestLessorWindowHistories(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  []porcupine.Operation
		want porcupine.CheckResult
	}{
		{"swarm 162: a late-answered read does not move a later renewal", swarmSeed162(126.237), porcupine.Ok},
		{"swarm 162: not found inside the renewal's window", swarmSeed162(125.2), porcupine.Illegal},
		{"herd 77: a revoke refused late may have taken effect at its call", thunderingHerdSeed77(43.5101), porcupine.Ok},
		{"herd 77: a revoke sent after the read cannot explain it", thunderingHerdSeed77(44.6), porcupine.Illegal},
		{"grantor-restart 178: the revoke sent again is in the history", grantorRestartSeed178("revoke"), porcupine.Ok},
		{"grantor-restart 178: a key gone without a revoke in the history", grantorRestartSeed178(""), porcupine.Illegal},
		{"grantor-restart 178: a keepalive not found is early expiry", grantorRestartSeed178("keepalive"), porcupine.Illegal},
		{"a read sent before the revoke took effect may show the key", staleRead(0.5), porcupine.Ok},
		{"a read sent after the revoke took effect may not", staleRead(2), porcupine.Illegal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, info := porcupine.CheckOperationsVerbose(LessorWindowSpec(10_000_000).Model, tc.ops, 0)
			assert.Equal(t, tc.want, res, "%v", info)
		})
	}
}
