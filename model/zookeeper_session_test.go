package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
)

// zkPolicy holds a session up to one second past its timeout (a 1 s tick).
var zkPolicy = LeasePolicy{HoldPPB: 333_333_334}

// zk is a ZooKeeper request of kind on session (0: none) and its reply at
// server reading t seconds.
func zk(kind string, session uint64, key, value string, t float64) pair {
	return pair{&history.Operation{Client: "c", Input: history.Payload{Kind: kind, Lease: session, Key: key, Value: value}},
		&history.Payload{Kind: kind + replySuffix, Clock: sec(t), Lease: session}}
}

// with sets the reply's fields.
func (p pair) with(f func(out *history.Payload)) pair {
	out := *p.out.(*history.Payload)
	f(&out)
	return pair{p.in, &out}
}

func zkOpen(id uint64, t float64) pair {
	return zk(OpZKConnect, 0, "", "", t).with(func(o *history.Payload) { o.Lease, o.TTL = id, 3*time.Second })
}

func zkCreate(id uint64, key, mode string, got string, t float64) pair {
	return zk(OpZKCreate, id, key, mode, t).with(func(o *history.Payload) { o.Key = got })
}

func zkChildren(id uint64, key string, t float64, names ...string) pair {
	return zk(OpZKChildren, id, key, "", t).with(func(o *history.Payload) {
		for _, n := range names {
			o.Keys = append(o.Keys, history.KV{Key: n})
		}
	})
}

func zkErr(p pair, err string) pair { return p.with(func(o *history.Payload) { o.Err = err }) }

// zkRestart is a restart at t whose previous life last served at lost,
// reopening ids.
func zkRestart(lost, t float64, ids ...string) pair {
	p := zk(OpZKRestart, 0, "", "", t).with(func(o *history.Payload) {
		for _, id := range ids {
			o.Keys = append(o.Keys, history.KV{Key: id})
		}
	})
	p.in.(*history.Operation).Input.Clock = sec(lost)
	return p
}

func TestZooKeeperSessionRules(t *testing.T) {
	lock := func(id uint64, seq string, t float64) pair {
		return zkCreate(id, "/l/n-", ZKEphemeralSequential, "/l/n-"+seq, t)
	}
	setup := []pair{zkOpen(1, 0), zkCreate(1, "/l", ZKPersistent, "/l", 0), lock(1, "0000000000", 1), zkOpen(2, 3)}
	with := func(ops ...pair) []pair { return append(append([]pair{}, setup...), ops...) }
	runCases(t, ZooKeeperSessionSpec(zkPolicy), []specCase{
		{"an ephemeral is listed while its session lives", with(zkChildren(2, "/l", 3.5, "n-0000000000")), ""},
		{"an ephemeral survives its session's expiry", with(zkChildren(2, "/l", 5.5, "n-0000000000")),
			"lists n-0000000000, which is not in the tree"},
		{"an ephemeral survives, seen by exists", with(zk(OpZKExists, 2, "/l/n-0000000000", "", 5.5).with(func(o *history.Payload) {
			o.OK, o.Lease = true, 1
		})), "exists /l/n-0000000000 found a node, but there is none"},
		{"an ephemeral gone before its session's timeout", with(zkChildren(2, "/l", 3.5)), "before its timeout"},
		{"an ephemeral gone inside the bound", with(zkChildren(2, "/l", 4.5)), ""},
		{"an ephemeral gone after the bound", with(zkChildren(2, "/l", 6)), ""},
		{"a ping renews the session", with(zk(OpZKPing, 1, "", "", 3.5), zkChildren(2, "/l", 6, "n-0000000000")), ""},
		{"a request of an expired session", with(zk(OpZKPing, 1, "", "", 5.5)), "session 0x1 is seen valid at t=5.5s, but it was invalidated by 5.000000002s"},
		{"once seen gone, never seen again", with(zkChildren(2, "/l", 4.2), zkChildren(2, "/l", 4.3, "n-0000000000")),
			"not in the tree"},
		{"seen alive inside the bound, then renewed", with(zkChildren(2, "/l", 4.2, "n-0000000000"), zk(OpZKPing, 1, "", "", 4.3),
			zkChildren(2, "/l", 7, "n-0000000000")), ""},
		{"a reconnect to an expired session", with(zkErr(zk(OpZKConnect, 1, "", "", 5), ZKSessionExpired)), ""},
		{"a reconnect refused before the timeout", with(zkErr(zk(OpZKConnect, 1, "", "", 3), ZKSessionExpired)), "before its timeout"},
		{"a close removes the ephemerals at once", with(zk(OpZKClose, 1, "", "", 3), zkChildren(2, "/l", 3)), ""},
		{"an ephemeral survives a close", with(zk(OpZKClose, 1, "", "", 3), zkChildren(2, "/l", 3, "n-0000000000")), "not in the tree"},
		{"sequence numbers increase", with(lock(2, "0000000003", 3)), ""},
		{"a sequence number repeats", with(lock(2, "0000000000", 3)), "not above 0"},
		{"a sequence number without ten digits", with(lock(2, "17", 3)), "digits appended"},
		{"exists names the owner", with(zk(OpZKExists, 2, "/l/n-0000000000", "", 3).with(func(o *history.Payload) {
			o.OK, o.Lease = true, 1
		})), ""},
		{"exists names another owner", with(zk(OpZKExists, 2, "/l/n-0000000000", "", 3).with(func(o *history.Payload) {
			o.OK, o.Lease = true, 2
		})), "its owner is \"0x1\""},
		{"a delete of a persistent node with children", with(zk(OpZKDelete, 2, "/l", "", 3)), "has children"},
		{"a delete of the ephemeral, then it is gone", with(zk(OpZKDelete, 2, "/l/n-0000000000", "", 3), zkChildren(2, "/l", 3)), ""},
		{"a persistent node missing", with(zkChildren(2, "/", 3)), "/l is missing"},
		{"a create under no parent", []pair{zkOpen(1, 0), zkCreate(1, "/x/y", ZKPersistent, "/x/y", 0)}, "parent /x does not exist"},
		{"node exists on a free path", with(zkErr(zkCreate(2, "/e", ZKEphemeral, "", 3), ZKNodeExists)), "no such node exists"},
		{"a restart reopens a live session", with(zk(OpZKRestart, 0, "", "", 3).with(func(o *history.Payload) {
			o.Keys = []history.KV{{Key: "0x1"}, {Key: "0x2"}}
		}), zkChildren(2, "/l", 5.5, "n-0000000000")), ""},
		{"a restart drops a session before its timeout", with(zk(OpZKRestart, 0, "", "", 3).with(func(o *history.Payload) {
			o.Keys = []history.KV{{Key: "0x2"}}
		})), "did not reopen it"},
		{"a restart after a long stop reopens a session whose bound fell in it", with(zkRestart(4.5, 30, "0x1", "0x2"),
			zkChildren(2, "/l", 31, "n-0000000000")), ""},
		{"a restart reopens a session whose bound fell while it served", with(zkRestart(5.5, 30, "0x1", "0x2")),
			"the restart reopened it: session 0x1 is seen valid at t=5.5s"},
		{"server time goes backwards", with(zk(OpZKPing, 2, "", "", 0.5)), "went backwards"},
		{"a session never opened", with(zk(OpZKPing, 7, "", "", 3)), "never opened"},
	})
}

// zkGen draws ZooKeeper operations on two sessions with a 3 s timeout, a
// lock directory /l with ephemeral sequential children, an ephemeral /e,
// restarts, and server readings in whole seconds. With the state in hand
// it draws replies close to the tree's, so that most sequences continue.
func zkGen() opGen {
	return opGen{
		spec:  ZooKeeperSessionSpec(zkPolicy),
		key:   func(any) string { return "" },
		setup: []pair{zkOpen(1, 0), zkCreate(1, "/l", ZKPersistent, "/l", 0)},
		input: func(r *rand.Rand) any {
			id := uint64(1 + r.IntN(2))
			in := history.Payload{Lease: id}
			switch r.IntN(12) {
			case 0:
				in = history.Payload{Kind: OpZKConnect, TTL: 3 * time.Second}
			case 1:
				in.Kind = OpZKConnect
			case 2:
				in.Kind = pick(r, OpZKPing, OpZKRequest, OpZKClose)
			case 3:
				in.Kind, in.Key = OpZKCreate, "/l"
			case 4, 5:
				in.Kind, in.Key, in.Value = OpZKCreate, "/l/n-", ZKEphemeralSequential
			case 6:
				in.Kind, in.Key, in.Value = OpZKCreate, "/e", ZKEphemeral
			case 7:
				in.Kind, in.Key = OpZKDelete, pick(r, "/e", "/l/n-0000000000", "/l/n-0000000001", "/l")
			case 8:
				in.Kind, in.Key = OpZKExists, pick(r, "/e", "/l/n-0000000000", "/l")
			case 9, 10:
				in.Kind, in.Key = OpZKChildren, "/l"
			default: // the previous life last served 0-6 s in (later than the restart: up to it)
				in = history.Payload{Kind: OpZKRestart, Clock: time.Duration(r.IntN(7)) * time.Second}
			}
			return &history.Operation{Client: fmt.Sprint("c", id), Input: in}
		},
		output: func(r *rand.Rand, input any, now int64, state any) (any, int64) {
			clock := now + pick[int64](r, 0, 0, 0, 1, 1, 2, 3, 5)
			in := &input.(*history.Operation).Input
			out := &history.Payload{Kind: in.Kind + replySuffix, Clock: time.Duration(clock) * time.Second}
			s, known := state.(zkState)
			switch in.Kind {
			case OpZKConnect:
				out.Lease, out.TTL = uint64(1+r.IntN(3)), 3*time.Second
				if in.Lease != 0 {
					out.Lease, out.Err = in.Lease, pick(r, "", ZKSessionExpired)
				}
			case OpZKCreate, OpZKDelete:
				out.Err = pick(r, "", "", "", ZKNoNode, ZKNodeExists, ZKNotEmpty, "bad_version")
				out.Key = in.Key
				if in.Value == ZKEphemeralSequential {
					n := int64(r.IntN(4))
					if i := s.node("/l"); known && i >= 0 {
						n = s.nodes[i].seq + int64(1+r.IntN(2))
					}
					out.Key = fmt.Sprintf("/l/n-%010d", n)
				}
			case OpZKExists:
				out.OK, out.Lease = r.IntN(2) == 0, uint64(r.IntN(3))
				if i := s.node(in.Key); known && i >= 0 && r.IntN(3) > 0 {
					out.OK, out.Lease = true, zkOwnerID(s.nodes[i].owner)
				}
			case OpZKChildren:
				out.Keys = zkGenChildren(r, s, known)
			case OpZKRestart:
				for _, id := range []string{"0x1", "0x2"} {
					i := sessionIndex(s.sessions, id)
					if (!known && r.IntN(3) > 0) || (known && i >= 0 && !s.sessions[i].dead && r.IntN(4) > 0) {
						out.Keys = append(out.Keys, history.KV{Key: id})
					}
				}
			}
			return out, clock
		},
	}
}

// zkOwnerID reads back an owner's session id (0 for none).
func zkOwnerID(owner string) uint64 {
	var id uint64
	if owner != "" {
		fmt.Sscanf(owner, "0x%x", &id)
	}
	return id
}

// zkGenChildren draws the children of /l: the known ones, some dropped,
// or (without the state) a few names.
func zkGenChildren(r *rand.Rand, s zkState, known bool) []history.KV {
	var out []history.KV
	if !known {
		for i := range r.IntN(3) {
			out = append(out, history.KV{Key: fmt.Sprintf("n-%010d", i)})
		}
		return out
	}
	for _, n := range s.nodes {
		if zkParent(n.path) == "/l" && (n.owner == "" || r.IntN(4) > 0) {
			out = append(out, history.KV{Key: n.path[len("/l/"):]})
		}
	}
	return out
}

func TestZooKeeperSessionDifferential(t *testing.T) {
	c := differential(t, zkGen(), 41, histories(), 8)
	t.Logf("%d linearizable, %d illegal", c.ok, c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}
