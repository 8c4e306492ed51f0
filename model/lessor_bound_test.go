package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/history"
)

func TestLessorBoundGoneBy(t *testing.T) {
	const s = time.Second
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	members := []string{"g1", "g2", "g3"}
	term := func(server string, start, end time.Duration) history.LeaderTerm {
		return history.LeaderTerm{Server: server, Members: members, Term: 1, Start: history.Time(start),
			End: history.Time(end), Extension: s, CheckpointInterval: 2500 * time.Millisecond, CheckPeriod: ms(100)}
	}
	pause := func(node string, from, to time.Duration) history.FaultWindow {
		return history.FaultWindow{Kind: history.FaultPause, Nodes: []string{node}, Start: history.Time(from),
			End: history.Time(to)}
	}
	need := ms(100) + LessorBoundSlack // a check period and the slack, rho 0
	// Three terms: g1 [0, 13 s], g2 [14 s, 18 s], g3 [19 s, 60 s].
	churn := []history.LeaderTerm{term("g1", 0, 13*s), term("g2", 14*s, 18*s), term("g3", 19*s, 60*s)}
	tests := []struct {
		name    string
		terms   []history.LeaderTerm
		faults  []history.FaultWindow
		rhoPPB  int64
		renewed time.Duration
		want    time.Duration
		noBound bool
		changes int
	}{
		{name: "no leader terms", renewed: 10 * s, noBound: true},
		{name: "renewed before any term", terms: []history.LeaderTerm{term("g1", 5*s, 60*s)}, renewed: 4 * s, noBound: true},
		{name: "one term: the TTL, a check and the slack", terms: []history.LeaderTerm{term("g1", 0, 60*s)},
			renewed: 10 * s, want: 15*s + need},
		{name: "early in a term: the promotion's TTL and extension", terms: []history.LeaderTerm{term("g1", 0, 60*s)},
			renewed: ms(500), want: 6*s + need},
		{name: "drift: the leader's clock may run slow by rho", terms: []history.LeaderTerm{term("g1", 0, 60*s)},
			rhoPPB: 10_000_000, renewed: 10 * s,
			want: 10*s + 5050505051 + 101010102 + LessorBoundSlack},
		// g2 restores 5 s + 1 s at 14 s (deadline 20 s, past its end) and
		// checkpoints at 16.5 s: 3.5 s left. g3 restores 3.5 s + 1 s at
		// 19 s: 23.5 s.
		{name: "checkpoints shrink what the next leader restores", terms: churn, renewed: 10 * s,
			want: 23500*ms(1) + need, changes: 2},
		{name: "a member faulted at the checkpoint: it does not count", terms: churn, renewed: 10 * s,
			faults: []history.FaultWindow{pause("g1", 16*s, 17*s)}, want: 25*s + need, changes: 2},
		{name: "a holder's fault does not matter", terms: churn, renewed: 10 * s,
			faults: []history.FaultWindow{pause("h1", 0, 60*s)}, want: 23500*ms(1) + need, changes: 2},
		{name: "drift only moves clocks", terms: churn, renewed: 10 * s,
			faults: []history.FaultWindow{{Kind: history.FaultDrift, Nodes: []string{"g2"}, Start: 0, End: history.Time(60 * s)}},
			want:   23500*ms(1) + need, changes: 2},
		{name: "a partition counts against every member", terms: churn, renewed: 10 * s,
			faults: []history.FaultWindow{{Kind: history.FaultPartition, Start: history.Time(16 * s), End: history.Time(17 * s)}},
			want:   25*s + need, changes: 2},
		{name: "the leader paused at the deadline revokes on resuming",
			terms: []history.LeaderTerm{term("g1", 0, 60*s)}, renewed: 10 * s,
			faults: []history.FaultWindow{pause("g1", 14900*ms(1), 16*s)}, want: 16*s + 1 + need},
		{name: "a quorum of members lost at the deadline",
			terms: []history.LeaderTerm{term("g1", 0, 60*s)}, renewed: 10 * s,
			faults: []history.FaultWindow{pause("g2", 14*s, 17*s), pause("g3", 15*s, 16*s)}, want: 17*s + 1 + need},
		{name: "one follower lost: the leader keeps its quorum",
			terms: []history.LeaderTerm{term("g1", 0, 60*s)}, renewed: 10 * s,
			faults: []history.FaultWindow{pause("g2", 14*s, 17*s)}, want: 15*s + need},
		{name: "the last leader paused until the run ends", terms: []history.LeaderTerm{term("g1", 0, 60*s)},
			renewed: 10 * s, faults: []history.FaultWindow{pause("g1", 14*s, 60*s)}, noBound: true},
		{name: "no checkpoints: every leader restores the full TTL", renewed: 10 * s, changes: 2,
			terms: func() []history.LeaderTerm {
				out := []history.LeaderTerm{term("g1", 0, 13*s), term("g2", 14*s, 18*s), term("g3", 19*s, 60*s)}
				for i := range out {
					out[i].CheckpointInterval = 0
				}
				return out
			}(), want: 25*s + need},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewLessorBound(tt.terms, tt.faults, tt.rhoPPB)
			got, ok := b.GoneBy(tt.renewed, 5*s)
			if tt.noBound {
				assert.False(t, ok, "bound %v", got)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.changes, b.LeaderChanges(tt.renewed, got))
		})
	}
}

// TestLessorBoundChurn: under leader changes every 4.5 s, each term long
// enough for one checkpoint, a lease no one renews is revoked within a
// few terms; without checkpoints it would outlive every term.
func TestLessorBoundChurn(t *testing.T) {
	members := []string{"g1", "g2", "g3"}
	var terms []history.LeaderTerm
	for i := range 12 {
		start := time.Duration(i)*4500*time.Millisecond + 1500*time.Millisecond
		terms = append(terms, history.LeaderTerm{Server: members[i%3], Members: members, Term: uint64(i + 1),
			Start: history.Time(start), End: history.Time(start + 3*time.Second), Extension: time.Second,
			CheckpointInterval: 2500 * time.Millisecond, CheckPeriod: 100 * time.Millisecond})
	}
	b := NewLessorBound(terms, nil, 10_000_000)
	got, ok := b.GoneBy(2*time.Second, 5*time.Second)
	require.True(t, ok)
	assert.Less(t, got, 20*time.Second)
	assert.GreaterOrEqual(t, b.LeaderChanges(2*time.Second, got), 2)
	for i := range terms {
		terms[i].CheckpointInterval = 0
	}
	_, ok = NewLessorBound(terms, nil, 10_000_000).GoneBy(2*time.Second, 5*time.Second)
	assert.False(t, ok, "without checkpoints no term is long enough to revoke it")
}

// TestBoundedSpec: a get that finds a key attached to a lease long after
// the leader terms must have seen it revoked is illegal under the bounded
// specification, legal under the window alone, and legal when a keepalive
// renewed the lease in between.
func TestBoundedSpec(t *testing.T) {
	const s = time.Second
	terms := []history.LeaderTerm{{Server: "g1", Members: []string{"g1", "g2", "g3"}, Term: 2, Start: 0,
		End: history.Time(60 * s), Extension: s, CheckpointInterval: 2500 * time.Millisecond, CheckPeriod: 100 * time.Millisecond}}
	op := func(client string, call, processed time.Duration, in, out history.Payload) porcupine.Operation {
		o := &history.Operation{Client: client, Server: "g1", Call: history.Time(call), Processed: history.Time(processed),
			Return: history.Time(processed + time.Millisecond), Input: in, Output: out}
		return porcupine.Operation{ClientId: len(client), Input: o, Call: int64(call), Output: &o.Output,
			Return: int64(o.Return)}
	}
	grant := op("h1", s, s+time.Millisecond, history.Payload{Kind: "grant", TTL: 5 * s},
		history.Payload{Kind: "grant_reply", Lease: 7, TTL: 5 * s})
	create := op("h1", 2*s, 2*s+time.Millisecond, history.Payload{Kind: "create", Key: "lock", Value: "h1", Lease: 7},
		history.Payload{Kind: "create_reply", OK: true, Revision: 1})
	get := func(at time.Duration) porcupine.Operation {
		return op("h22", at, at+time.Millisecond, history.Payload{Kind: "get", Key: "lock"},
			history.Payload{Kind: "get_reply", OK: true, Value: "h1", Lease: 7, Token: 1, Version: "1", Revision: 1})
	}
	keepalive := op("h1", 5*s, 5*s+time.Millisecond, history.Payload{Kind: "keepalive", Lease: 7},
		history.Payload{Kind: "keepalive_reply", TTL: 5 * s})
	spec := LessorWindowSpec(10_000_000)
	bounded := Bounded(spec, NewLessorBound(terms, nil, 10_000_000))
	tests := []struct {
		name string
		spec Spec
		ops  []porcupine.Operation
		want bool // linearizable
	}{
		{"within the bound", bounded, []porcupine.Operation{grant, create, get(5 * s)}, true},
		{"past the bound", bounded, []porcupine.Operation{grant, create, get(30 * s)}, false},
		{"the window alone does not bound it", spec, []porcupine.Operation{grant, create, get(30 * s)}, true},
		{"renewed in between", bounded, []porcupine.Operation{grant, create, keepalive, get(9 * s)}, true},
		{"a keepalive past the bound", bounded, []porcupine.Operation{grant, create,
			op("h1", 9*s, 9*s+time.Millisecond, history.Payload{Kind: "keepalive", Lease: 7},
				history.Payload{Kind: "keepalive_reply", TTL: 5 * s})}, false},
		{"renewed, then past the bound", bounded, []porcupine.Operation{grant, create, keepalive, get(30 * s)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := porcupine.CheckOperations(tt.spec.Model, tt.ops); got != tt.want {
				var st any = tt.spec.Model.Init()
				for _, o := range tt.ops {
					t.Log(tt.spec.Explain(st, o.Input, o.Output))
					_, st = tt.spec.Model.Step(st, o.Input, o.Output)
				}
				t.Fatalf("linearizable %v, want %v", got, tt.want)
			}
		})
	}
	var s0 any = bounded.Model.Init()
	for _, o := range []porcupine.Operation{grant, create} {
		_, s0 = bounded.Model.Step(s0, o.Input, o.Output)
	}
	assert.Contains(t, bounded.Explain(s0, get(30*s).Input, get(30*s).Output),
		"lease 7 outlived its bound 6.411616163s after 0 leader changes: renewed at 1.001s")
	assert.Equal(t, spec.Name, bounded.Name)
	assert.Equal(t, spec.Name, Bounded(spec, NewLessorBound(nil, nil, 0)).Name)
}

// TestLessorBoundNeverBeforeTheWindow: whatever the leader terms and
// faults, the bound never ends a lease before the window of
// LessorWindowSpec does (etcd's lease lives at least its TTL after its
// last renewal), so Bounded cannot refuse what the window must accept.
func TestLessorBoundNeverBeforeTheWindow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		r := rand.New(rand.NewPCG(seed, 1))
		terms, faults := randomTerms(r)
		rho := rapid.Int64Range(0, 50_000_000).Draw(t, "rhoPPB")
		renewed := time.Duration(rapid.Int64Range(1, int64(30*time.Second)).Draw(t, "renewed"))
		ttl := time.Duration(rapid.Int64Range(int64(time.Millisecond), int64(10*time.Second)).Draw(t, "ttl"))
		gone, ok := NewLessorBound(terms, faults, rho).GoneBy(renewed, ttl)
		if ok && gone < renewed+liveLow(ttl, rho) {
			t.Fatalf("bound %v before the window's end %v (renewed %v, ttl %v, terms %+v, faults %+v)",
				gone, renewed+liveLow(ttl, rho), renewed, ttl, terms, faults)
		}
	})
}
