package model

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

func TestSpecForNamesTheSpecifications(t *testing.T) {
	l := history.Lease{TTL: ttl, RhoPPB: 10_000_000, HoldPPB: 10_000_000}
	for _, tc := range []struct{ name, want, err string }{
		{"", "lease-store", ""},
		{"lease-store", "lease-store", ""},
		{"lease-store/holder-budgets", "lease-store", ""},
		{"fenced-register", "fenced-register", ""},
		{"expiring-key", "expiring-key", ""},
		{"cas-record", "cas-record", ""},
		{"lessor", "lessor", ""},
		{"zookeeper-session", "zookeeper-session", ""},
		{"consul-session", "consul-session", ""},
		{"nope", "", `no specification named "nope" (want one of lease-store, expiring-key, cas-record, lessor, ` +
			`zookeeper-session, consul-session, fenced-register)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, err := SpecFor(tc.name, l)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, spec.Name)
		})
	}
}

// The session specifications read the holds the history declares: the
// invalidation bound (HoldPPB) and Consul's lock-delay (LockDelay).
func TestSpecForReadsTheDeclaredHolds(t *testing.T) {
	l := history.Lease{TTL: 2 * time.Second, HoldPPB: 500_000_000, LockDelay: time.Second}
	zkSpec, err := SpecFor("zookeeper-session", l)
	require.NoError(t, err)
	open := zkOpen(1, 0).with(func(o *history.Payload) { o.TTL = 2 * time.Second })
	run := func(spec Spec, ps ...pair) bool {
		state := spec.Model.Init()
		for _, p := range ps {
			legal, next := spec.Model.Step(state, p.in, p.out)
			if !legal {
				return false
			}
			state = next
		}
		return true
	}
	assert.True(t, run(zkSpec, open, zk(OpZKPing, 1, "", "", 2.9)), "inside the declared bound of 1s past the timeout")
	assert.False(t, run(zkSpec, open, zk(OpZKPing, 1, "", "", 3.1)), "past the declared bound")
	cSpec, err := SpecFor("consul-session", l)
	require.NoError(t, err)
	setup := []pair{csCreate("a", 0), csCreate("b", 0), cs(OpConsulAcquire, "a", "k", true, 0),
		cs(OpConsulSessionDestroy, "a", "", true, 1)}
	assert.True(t, run(cSpec, append(setup, cs(OpConsulAcquire, "b", "k", true, 2))...), "after the declared lock-delay")
	assert.False(t, run(cSpec, append(setup, cs(OpConsulAcquire, "b", "k", true, 1.9))...), "inside the declared lock-delay")
}

// The lease store's policy is the one the lease configuration declares: a
// grant at the TTL after another is legal when the store holds a lease for
// exactly its TTL, illegal when it holds it rho longer.
func TestSpecForTakesThePolicyFromTheLease(t *testing.T) {
	first, second := grant("h1", 1, 1, 0, ""), grant("h2", 6, 2, 0, "")
	for _, tc := range []struct {
		hold int64
		why  string
	}{{0, ""}, {10_000_000, "h1 holds tok 1 until g=6.05s"}} {
		spec, err := SpecFor("lease-store", history.Lease{TTL: ttl, RhoPPB: 10_000_000, HoldPPB: tc.hold})
		require.NoError(t, err)
		legal, why := runSteps(t, spec, []step{first, second})
		assert.Equal(t, tc.why == "", legal, why)
		assert.Contains(t, why, tc.why)
	}
}

// historyKey returns an expiring-key command and its reply as a history
// records them (history.Operation, history.Payload).
func historyKey(in KeyInput, out KeyOutput) (history.Operation, history.Payload) {
	return history.Operation{Client: in.Client, Server: "redis",
			Input: history.Payload{Kind: string(in.Op), Holder: in.Client, Key: in.Key, Value: in.Value, TTL: in.TTL}},
		history.Payload{Kind: string(in.Op) + replySuffix, Err: string(out.Err), OK: out.OK, Value: out.Value,
			Revision: out.N, Clock: out.ServerTime}
}

// The expiring key reads the history's operations as it reads its own
// inputs: the same random histories, drawn from the same seed, get the
// same verdicts from plain porcupine, the partitioned model and a brute
// force search whichever form they come in.
func TestExpiringKeyReadsHistoryOperations(t *testing.T) {
	g := keyGen()
	asHistory := opGen{
		spec: g.spec,
		key:  func(in any) string { return keyInput(in).Key },
		input: func(r *rand.Rand) any {
			o, _ := historyKey(g.input(r).(KeyInput), KeyOutput{})
			return &o
		},
		output: func(r *rand.Rand, in any, now int64, state any) (any, int64) {
			out, clock := g.output(r, in, now, state)
			_, p := historyKey(keyInput(in), out.(KeyOutput))
			return &p, clock
		},
	}
	want := differential(t, g, 11, histories(), 8)
	got := differential(t, asHistory, 11, histories(), 8)
	assert.Equal(t, want, got, "the same verdicts in either form")
	assert.Greater(t, got.ok, minVerdicts())
	assert.Greater(t, got.illegal, minVerdicts())
	o, p := historyKey(KeyInput{Op: OpIncr, Client: "a", Key: "fence"}, KeyOutput{N: 7, ServerTime: time.Second})
	assert.Equal(t, `incr(a, "fence") -> 7 @t=1s`, g.spec.Model.DescribeOperation(&o, &p))
}

// The compare-and-swap record reads the history's operations: the record
// in Holder, HolderIncarnation, TTL, Token and the times in Value.
func TestCASRecordReadsHistoryOperations(t *testing.T) {
	rec := func(holder string, renew int) history.Payload {
		return history.Payload{Holder: holder, HolderIncarnation: 1, TTL: 15 * time.Second, Token: 2,
			Value: "acquire=1000 renew=" + fmt.Sprint(renew)}
	}
	op := func(kind, client, version string, in, out history.Payload) pair {
		in.Kind, in.Resource, in.Version = kind, "ns/lock", version
		out.Kind = kind + replySuffix
		return pair{&history.Operation{Client: client, Server: "api", Input: in}, &out}
	}
	created := op("create", "a", "", rec("a", 1000), history.Payload{Version: "1"})
	read := op("get", "b", "", history.Payload{}, rec("a", 1000))
	read.out.(*history.Payload).Version = "1"
	stale := op("get", "b", "", history.Payload{}, rec("a", 2000))
	stale.out.(*history.Payload).Version = "1"
	conflict := op("update", "b", "0", rec("b", 5000), history.Payload{Err: "conflict"})
	lost := op("update", "b", "0", rec("b", 5000), history.Payload{Version: "2"})
	runCases(t, CASRecordSpec(), []specCase{
		{"a get returns the record written", []pair{created, read}, ""},
		{"a get returns another renew time", []pair{created, stale}, "get returned v1"},
		{"an update at a stale version conflicts", []pair{created, conflict}, ""},
		{"an update at a stale version applies", []pair{created, lost}, "update succeeded, but the record is v1"},
	})
	r := historyRecord(&history.Payload{Holder: "a", Value: "something else"})
	assert.Equal(t, LeaseRecord{HolderIdentity: "a"}, r, "a Value in another form reads as no times")
}
