package model

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
)

// consulPolicy invalidates a session up to one TTL past its TTL (Consul's
// leader waits twice the TTL), and consulDelay is every session's
// lock-delay.
var consulPolicy = LeasePolicy{HoldPPB: 999_999_999}

const consulDelay = time.Second

// cs is a Consul request of kind by session on key, answered ok at server
// reading t seconds.
func cs(kind, session, key string, ok bool, t float64) pair {
	return pair{&history.Operation{Client: "c", Input: history.Payload{Kind: kind, Holder: session, Key: key}},
		&history.Payload{Kind: kind + replySuffix, OK: ok, Clock: sec(t)}}
}

func csCreate(id string, t float64) pair {
	p := cs(OpConsulSessionCreate, "", "", true, t)
	p.in.(*history.Operation).Input.TTL = 2 * time.Second
	return p.with(func(o *history.Payload) { o.Holder = id })
}

func csGet(key, holder string, lockIndex uint64, t float64) pair {
	return cs(OpConsulGet, "", key, true, t).with(func(o *history.Payload) { o.Holder, o.Token = holder, lockIndex })
}

// csFailover is a failover at t whose previous leader last served at
// lost, renewing ids.
func csFailover(lost, t float64, ids ...string) pair {
	p := cs(OpConsulFailover, "", "", true, t).with(func(o *history.Payload) {
		for _, id := range ids {
			o.Keys = append(o.Keys, history.KV{Key: id})
		}
	})
	p.in.(*history.Operation).Input.Clock = sec(lost)
	return p
}

func TestConsulSessionRules(t *testing.T) {
	setup := []pair{csCreate("a", 0), csCreate("b", 0), cs(OpConsulAcquire, "a", "k", true, 0)}
	with := func(ops ...pair) []pair { return append(append([]pair{}, setup...), ops...) }
	renewB := cs(OpConsulSessionRenew, "b", "", true, 1.5)
	runCases(t, ConsulSessionSpec(consulPolicy, consulDelay), []specCase{
		{"the holder is read", with(csGet("k", "a", 1, 1)), ""},
		{"another session is refused", with(cs(OpConsulAcquire, "b", "k", false, 1)), ""},
		{"another session acquires a held key", with(cs(OpConsulAcquire, "b", "k", true, 1)), "before its timeout"},
		{"the holder acquires again", with(cs(OpConsulAcquire, "a", "k", true, 1)), ""},
		{"the lock is free before the TTL", with(csGet("k", "", 1, 1.5)), "before its timeout"},
		{"the lock is free inside the bound", with(csGet("k", "", 1, 3)), ""},
		{"the lock held past the bound", with(renewB, csGet("k", "a", 1, 4.5)), "says holder a, but it has none"},
		{"acquired after the bound and the delay", with(renewB, cs(OpConsulAcquire, "b", "k", true, 5)), ""},
		{"acquired inside the lock-delay", with(renewB, cs(OpConsulAcquire, "b", "k", true, 2.5)),
			"inside the lock-delay 1s of a's invalidation"},
		{"acquired inside the lock-delay after a destroy", with(cs(OpConsulSessionDestroy, "a", "", true, 1),
			cs(OpConsulAcquire, "b", "k", true, 1.5)), "inside the lock-delay"},
		{"acquired after the lock-delay of a destroy", with(cs(OpConsulSessionDestroy, "a", "", true, 1),
			cs(OpConsulAcquire, "b", "k", true, 2)), ""},
		{"refused inside the lock-delay", with(cs(OpConsulSessionDestroy, "a", "", true, 1),
			cs(OpConsulAcquire, "b", "k", false, 1.5)), ""},
		{"refused after the lock-delay", with(cs(OpConsulSessionDestroy, "a", "", true, 1),
			cs(OpConsulAcquire, "b", "k", false, 2.5)), "refused at t=2.5s for a lock-delay"},
		{"a release sets no lock-delay", with(cs(OpConsulRelease, "a", "k", true, 1), cs(OpConsulAcquire, "b", "k", true, 1)), ""},
		{"refused after a release", with(cs(OpConsulRelease, "a", "k", true, 1), cs(OpConsulAcquire, "b", "k", false, 1)),
			"the key is free and no lock-delay is in force"},
		{"a release by another", with(cs(OpConsulRelease, "b", "k", true, 1)), "holder is \"a\""},
		{"the lock index rises with a new holder", with(cs(OpConsulSessionDestroy, "a", "", true, 1),
			cs(OpConsulAcquire, "b", "k", true, 2), csGet("k", "b", 2, 2)), ""},
		{"the lock index stays", with(cs(OpConsulSessionDestroy, "a", "", true, 1),
			cs(OpConsulAcquire, "b", "k", true, 2), csGet("k", "b", 1, 2)), "lock index 1, but it is 2"},
		{"a renewal keeps the lock", with(cs(OpConsulSessionRenew, "a", "", true, 1.5), csGet("k", "a", 1, 4)), ""},
		{"a renewal not found before the TTL", with(pair{cs(OpConsulSessionRenew, "a", "", false, 1).in,
			&history.Payload{Kind: OpConsulSessionRenew + replySuffix, Err: ConsulNotFound, Clock: sec(1)}}), "before its timeout"},
		{"an acquire under an invalid session", with(pair{cs(OpConsulAcquire, "b", "k", false, 5).in,
			&history.Payload{Kind: OpConsulAcquire + replySuffix, Err: ConsulInvalidSession, Clock: sec(5)}}), ""},
		{"a failover renews", with(cs(OpConsulFailover, "", "", true, 1.5).with(func(o *history.Payload) {
			o.Keys = []history.KV{{Key: "a"}, {Key: "b"}}
		}), csGet("k", "a", 1, 5)), ""},
		{"a failover drops a session before its TTL", with(cs(OpConsulFailover, "", "", true, 1.5).with(func(o *history.Payload) {
			o.Keys = []history.KV{{Key: "b"}}
		})), "did not renew it"},
		{"a failover after a long outage renews a session whose bound fell in it", with(csFailover(3.5, 30, "a", "b"),
			csGet("k", "a", 1, 31)), ""},
		{"a failover renews a session whose bound fell while the leader served", with(renewB, csFailover(4.5, 30, "a", "b")),
			"the failover renewed it: session a is seen valid at t=4.5s"},
		{"a delete frees the key", with(cs(OpConsulDelete, "", "k", true, 1), cs(OpConsulGet, "", "k", false, 1)), ""},
		{"a key found that was never written", []pair{cs(OpConsulGet, "", "x", true, 0)}, "the key exists: false"},
	})
}

// consulGen draws Consul operations on sessions a, b and c (2 s TTL,
// up to 2 s more, 1 s lock-delay), one lock key and failovers, with
// server readings in half seconds. With the state in hand it names the
// key's holder and lock index as they are, most of the time.
func consulGen() opGen {
	return opGen{
		spec:  ConsulSessionSpec(consulPolicy, consulDelay),
		key:   func(any) string { return "" },
		setup: []pair{csCreate("a", 0), csCreate("b", 0)},
		input: func(r *rand.Rand) any {
			id := pick(r, "a", "b", "c")
			in := history.Payload{Holder: id, Key: "k"}
			switch r.IntN(12) {
			case 0:
				in = history.Payload{Kind: OpConsulSessionCreate, TTL: 2 * time.Second}
			case 1, 2:
				in.Kind = OpConsulSessionRenew
			case 3:
				in.Kind = pick(r, OpConsulSessionDestroy, OpConsulSessionInfo)
			case 4, 5, 6:
				in.Kind = OpConsulAcquire
			case 7:
				in.Kind = OpConsulRelease
			case 8, 9:
				in.Kind = OpConsulGet
			case 10:
				in.Kind = pick(r, OpConsulPut, OpConsulDelete)
			default: // the previous leader last served 0-3 s in (later than the failover: up to it)
				in = history.Payload{Kind: OpConsulFailover, Clock: time.Duration(r.IntN(7)) * time.Second / 2}
			}
			return &history.Operation{Client: id, Input: in}
		},
		output: func(r *rand.Rand, input any, now int64, state any) (any, int64) {
			clock := now + pick[int64](r, 0, 0, 1, 1, 2, 3, 5)
			in := &input.(*history.Operation).Input
			out := &history.Payload{Kind: in.Kind + replySuffix, Clock: time.Duration(clock) * time.Second / 2,
				OK: r.IntN(2) == 0}
			s, known := state.(consulState)
			switch in.Kind {
			case OpConsulSessionCreate:
				out.Holder = pick(r, "a", "b", "c")
			case OpConsulSessionRenew:
				out.Err = pick(r, "", ConsulNotFound)
			case OpConsulAcquire:
				out.Err = pick(r, "", "", "", ConsulInvalidSession)
			case OpConsulGet:
				out.Holder, out.Token = pick(r, "", "a", "b"), uint64(r.IntN(3))
				if i := slices.IndexFunc(s.keys, func(k consulKey) bool { return k.key == in.Key }); known && i >= 0 && r.IntN(3) > 0 {
					k := s.keys[i]
					out.OK, out.Holder, out.Token = k.exists, k.holder, uint64(k.lockIndex)
				}
			case OpConsulFailover:
				for _, id := range []string{"a", "b", "c"} {
					i := sessionIndex(s.sessions, id)
					if (!known && r.IntN(2) == 0) || (known && i >= 0 && !s.sessions[i].dead && r.IntN(4) > 0) {
						out.Keys = append(out.Keys, history.KV{Key: id})
					}
				}
			}
			return out, clock
		},
	}
}

func TestConsulSessionDifferential(t *testing.T) {
	c := differential(t, consulGen(), 43, histories(), 8)
	t.Logf("%d linearizable, %d illegal", c.ok, c.illegal)
	assert.Greater(t, c.ok, minVerdicts())
	assert.Greater(t, c.illegal, minVerdicts())
}
