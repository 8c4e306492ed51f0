package checker

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/model"
)

// Crafted histories for P3. The grantor's clock reads true time unless a
// test says otherwise; a 5s lease granted at g holds until g+5.05s.

var linConfig = lease.Config{TTL: 5 * time.Second, Rho: 0.01}.WithDefaults()

const linTTL = 5 * time.Second

// secs returns s seconds of true time.
func secs(s float64) history.Time { return history.Time(s * float64(time.Second)) }

// span is an operation's call, processing and return, in seconds; a
// negative return means the reply never reached the client.
type span struct{ call, at, ret float64 }

const lost = -1

func linOp(server, client string, sp span, in, out lease.Message) history.Operation {
	in.Client, out.Client = lease.Addr(client), lease.Addr(client)
	if in.Resource == "" {
		in.Resource = "lock"
	}
	out.Kind, out.Resource = in.Kind.Reply(), in.Resource
	if server == "grantor" {
		out.GrantorTime = time.Duration(secs(sp.at))
	}
	ret := history.Never
	if sp.ret >= 0 {
		ret = secs(sp.ret)
	}
	return leasewire.NewOperation(client, server, secs(sp.call), secs(sp.at), ret, in, out)
}

// linGrant: client is granted token, handed checkpoint (ckptTok, state).
func linGrant(client string, sp span, token, ckptTok uint64, state string) history.Operation {
	return linOp("grantor", client, sp, lease.Message{Kind: lease.KindAcquire, TTL: linTTL},
		lease.Message{Token: token, TTL: linTTL, Holder: lease.Addr(client), CheckpointToken: ckptTok, State: []byte(state)})
}

// linHeld: client's acquire is refused, naming holder.
func linHeld(client string, sp span, holder string) history.Operation {
	return linOp("grantor", client, sp, lease.Message{Kind: lease.KindAcquire, TTL: linTTL},
		lease.Message{Err: lease.CodeHeld, Holder: lease.Addr(holder)})
}

// linToken: a renew or release of token, answered err.
func linToken(kind lease.Kind, client string, sp span, token uint64, err lease.ErrCode) history.Operation {
	out := lease.Message{Err: err}
	if err == lease.CodeOK {
		out.Token = token
	}
	return linOp("grantor", client, sp, lease.Message{Kind: kind, Token: token}, out)
}

func linCkpt(client string, sp span, token uint64, state string, reqID uint64, err lease.ErrCode) history.Operation {
	return linOp("grantor", client, sp, lease.Message{Kind: lease.KindCheckpoint, Token: token, State: []byte(state), ReqID: reqID},
		lease.Message{Err: err, Token: token, CheckpointToken: token})
}

func linReadCkpt(client string, sp span, token uint64, state string) history.Operation {
	return linOp("grantor", client, sp, lease.Message{Kind: lease.KindReadCheckpoint},
		lease.Message{CheckpointToken: token, State: []byte(state)})
}

// linWrite: client writes value under token; the store answers err, naming
// token outTok.
func linWrite(client string, sp span, token uint64, value string, err lease.ErrCode, outTok uint64) history.Operation {
	return linOp("store", client, sp, lease.Message{Kind: lease.KindWrite, Token: token, Key: "x", Value: []byte(value)},
		lease.Message{Err: err, Token: outTok, Key: "x"})
}

func linRead(client string, sp span, token uint64, value string) history.Operation {
	return linOp("store", client, sp, lease.Message{Kind: lease.KindRead, Key: "x"},
		lease.Message{Token: token, Key: "x", Value: []byte(value)})
}

// withG sets the grantor reading in op's reply.
func withG(op history.Operation, g float64) history.Operation {
	op.Output.Clock = time.Duration(secs(g))
	return op
}

func linHistoryOf(ops ...history.Operation) *history.History {
	return withOps(&history.History{Lease: leasewire.Lease(linConfig), Grantor: "grantor", Resource: "store",
		End: secs(60)}, ops)
}

func TestLinearizability(t *testing.T) {
	const (
		ok      = lease.CodeOK
		expired = lease.CodeLeaseExpired
		fenced  = lease.CodeFenced
	)
	tests := []struct {
		name   string
		ops    []history.Operation
		want   Status
		detail string       // part of the first violation's detail
		at     history.Time // when the blamed operation was processed
	}{
		{"a legal contended history", []history.Operation{
			linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
			linHeld("h2", span{0.5, 0.6, 0.7}, "h1"),
			linToken(lease.KindRenew, "h1", span{1.6, 1.7, 1.8}, 1, ok),
			linCkpt("h1", span{2, 2.1, 2.2}, 1, "3", 5, ok),
			linReadCkpt("h3", span{2.3, 2.4, 2.5}, 1, "3"),
			linWrite("h1", span{2.5, 2.6, 2.7}, 1, "a", ok, 1),
			linToken(lease.KindRelease, "h1", span{3, 3.1, 3.2}, 1, ok),
			linGrant("h2", span{3, 3.3, 3.4}, 2, 1, "3"),
			linWrite("h2", span{3.5, 3.6, 3.7}, 2, "b", ok, 2),
			linWrite("h1", span{3.55, 3.65, 3.75}, 1, "late", fenced, 2),
			linRead("h3", span{4, 4.1, 4.2}, 2, "b"),
		}, OK, "", 0},
		{"renew after expiry succeeds", []history.Operation{
			linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
			linToken(lease.KindRenew, "h1", span{5.1, 5.15, 5.2}, 1, ok),
		}, Violated, `renew(h1, tok 1) -> ok at grantor clock 5.15s cannot be linearised: renew of tok 1 by h1 succeeded at grantor clock 5.15s, but tok 1 expired at grantor clock 5.15s`, secs(5.15)},
		{"release by a stale token succeeds while a newer holder exists", []history.Operation{
			linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
			linGrant("h2", span{5.9, 6, 6.1}, 2, 0, ""),
			linToken(lease.KindRelease, "h1", span{6.5, 7, 7.5}, 1, ok),
		}, Violated, "tok 1 is not the current tok 2 of h2", secs(7)},
		{"two grants overlap in grantor time", []history.Operation{
			linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
			linGrant("h2", span{2, 3, 4}, 2, 0, ""),
		}, Violated, "granted tok 2 to h2 at grantor clock 3s, but h1 holds tok 1 until grantor clock 5.15s", secs(3)},
		{"two concurrent grants overlap in grantor time", []history.Operation{
			linGrant("h1", span{0, 0.1, 2}, 1, 0, ""),
			linGrant("h2", span{0, 0.2, 2}, 2, 0, ""),
		}, Violated, "granted tok 2 to h2 at grantor clock 200ms, but h1 holds tok 1", secs(0.2)},
		{"token not increasing", []history.Operation{
			linGrant("h1", span{0, 0.1, 0.2}, 3, 0, ""),
			linToken(lease.KindRelease, "h1", span{1, 1.1, 1.2}, 3, ok),
			linGrant("h2", span{2, 2.1, 2.2}, 3, 0, ""),
		}, Violated, "granted tok 3 to h2, not above tok 3 issued before", secs(2.1)},
		{"checkpoint from a stale holder accepted", []history.Operation{
			linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
			linGrant("h2", span{5.9, 6, 6.1}, 2, 0, ""),
			linCkpt("h1", span{6.5, 7, 7.5}, 1, "12", 9, ok),
		}, Violated, `checkpoint "12" under tok 1 by h1 accepted at grantor clock 7s, but tok 1 is not the current tok 2 of h2`, secs(7)},
		{"grant hands over an older checkpoint", []history.Operation{
			linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
			linCkpt("h1", span{1, 1.1, 1.2}, 1, "5", 1, ok),
			linCkpt("h1", span{2, 2.1, 2.2}, 1, "9", 2, ok),
			linGrant("h2", span{5.9, 6, 6.1}, 2, 1, "5"),
		}, Violated, `grant handed over checkpoint tok 1 "5", but the latest accepted is tok 1 "9"`, secs(6)},
		{"grantor time goes backwards", []history.Operation{
			withG(linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""), 10),
			withG(linHeld("h2", span{1, 1.1, 1.2}, "h1"), 5),
		}, Violated, "grantor time went backwards: grantor clock 5s after grantor clock 10s", secs(1.1)},
		{"replies that never returned, legal", []history.Operation{
			linGrant("h1", span{0, 0.1, lost}, 1, 0, ""),
			linGrant("h1", span{1, 1.1, 1.2}, 1, 0, ""),
			linHeld("h2", span{2, 2.1, lost}, "h1"),
			linToken(lease.KindRenew, "h1", span{3, 3.1, lost}, 1, ok),
			linWrite("h1", span{3.2, 3.3, lost}, 1, "a", ok, 1),
			linRead("h3", span{4, 4.1, 4.2}, 1, "a"),
			linToken(lease.KindRenew, "h1", span{9, 9.1, lost}, 1, expired),
		}, OK, "", 0},
		{"a grant whose reply never returned still holds", []history.Operation{
			linGrant("h1", span{0, 0.1, lost}, 1, 0, ""),
			linGrant("h2", span{1, 1.1, 1.2}, 2, 0, ""),
		}, Violated, "granted tok 2 to h2 at grantor clock 1.1s, but h1 holds tok 1", secs(1.1)},
		{"fenced register: a stale write accepted", []history.Operation{
			linWrite("h2", span{0, 0.1, 0.2}, 2, "b", ok, 2),
			linWrite("h1", span{1, 1.1, 1.2}, 1, "a", ok, 1),
		}, Violated, `fenced resource "lock": write(h1, tok 1, "x"="a") -> ok cannot be linearised: write under tok 1 by h1 accepted, but tok 2 was accepted before`, secs(1.1)},
		{"fenced register: concurrent writes linearise in token order", []history.Operation{
			linWrite("h1", span{0, 0.5, 1}, 1, "a", ok, 1),
			linWrite("h2", span{0.1, 0.2, 0.9}, 2, "b", ok, 2),
			linRead("h3", span{1.5, 1.6, 1.7}, 2, "b"),
		}, OK, "", 0},
		{"fenced register: a write fenced after a newer one", []history.Operation{
			linWrite("h2", span{0, 0.1, 0.2}, 2, "b", ok, 2),
			linWrite("h1", span{0.05, 0.3, 0.4}, 1, "a", fenced, 2),
			linRead("h3", span{0.5, 0.6, lost}, 2, "b"),
		}, OK, "", 0},
		{"fenced register: a read returns an overwritten value", []history.Operation{
			linWrite("h1", span{0, 0.1, 0.2}, 1, "a", ok, 1),
			linWrite("h2", span{1, 1.1, 1.2}, 2, "b", ok, 2),
			linRead("h3", span{2, 2.1, 2.2}, 1, "a"),
		}, Violated, `read "x" returned tok 1 "a", but the latest write is tok 2 "b"`, secs(2.1)},
		{"no operations: nothing to judge", nil, NotApplicable, "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Linearizability(linHistoryOf(tc.ops...), Options{})
			assert.Equal(t, "P3", r.Property)
			assert.Equal(t, "linearizability", r.Name)
			require.Equal(t, tc.want, r.Status, "%s\n%v", r.Summary, r.Violations)
			if tc.want != Violated {
				assert.Empty(t, r.Violations)
				return
			}
			require.NotEmpty(t, r.Violations)
			v := r.Violations[0]
			assert.Contains(t, v.Detail, tc.detail)
			assert.Equal(t, tc.at, v.At, "blamed the operation processed at %v", v.At)
			assert.Equal(t, "P3", v.Property)
			assert.Contains(t, r.Summary, tc.detail)
			assert.GreaterOrEqual(t, len(v.Evidence), 3, "the op, the state before it, the prefix")
		})
	}
}

func TestLinearizabilityEvidenceNamesTheFaults(t *testing.T) {
	h := linHistoryOf(
		linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
		linGrant("h2", span{2, 3, 4}, 2, 0, ""),
	)
	pause := history.FaultWindow{Kind: history.FaultPause, Nodes: []string{"h1"}, Start: secs(1), End: secs(8)}
	before := history.FaultWindow{Kind: history.FaultCrash, Nodes: []string{"h3"}, Start: secs(0), End: secs(0.5)}
	h.Faults = []history.FaultWindow{before, pause}
	r := Linearizability(h, Options{})
	require.Equal(t, Violated, r.Status)
	require.Len(t, r.Violations, 1)
	v := r.Violations[0]
	assert.Equal(t, []history.FaultWindow{pause}, v.Faults, "the faults active when the grantor granted")
	assert.Equal(t, secs(3), v.At)
	assert.Contains(t, v.Evidence[0], `acquire "lock" by h2`)
	assert.Equal(t, "state before it: held by h1 tok 1 until grantor clock 5.15s; grantor clock 100ms", v.Evidence[1])
	assert.Contains(t, v.Evidence[3], `after: acquire "lock" by h1`)
}

func TestLinearizabilityKeepsResourcesApart(t *testing.T) {
	onOther := func(op history.Operation) history.Operation {
		op.Input.Resource, op.Output.Resource = "other", "other"
		return op
	}
	h := linHistoryOf(
		linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
		onOther(linGrant("h2", span{1, 1.1, 1.2}, 1, 0, "")),
		linWrite("h1", span{1, 1.1, 1.2}, 1, "a", lease.CodeOK, 1),
		onOther(linWrite("h2", span{2, 2.1, 2.2}, 1, "b", lease.CodeOK, 1)),
		// Not operations of P3's models: a list and an unfenced effect.
		linOp("grantor", "r1", span{3, 3.1, 3.2}, lease.Message{Kind: lease.KindList}, lease.Message{}),
		linOp("store", "h1", span{3, 3.1, 3.2}, lease.Message{Kind: lease.KindEffect, Key: "mail"}, lease.Message{}),
	)
	r := Linearizability(h, Options{})
	assert.Equal(t, OK, r.Status, r.Summary)
	assert.Equal(t, "2 lease-store and 2 fenced-resource operations on 4 resources are linearizable "+
		"(witness: the servers' processing order)", r.Summary)
}

// When the recorded processing order is not a legal sequence (here two
// concurrent acquires recorded in the opposite order of the grantor's own
// clock), the witness fails but another order is legal: the porcupine
// search must still find it.
func TestLinearizabilitySearchesWhenProcessingOrderIsNoWitness(t *testing.T) {
	h := linHistoryOf(
		withG(linGrant("h1", span{0, 0.3, 0.4}, 1, 0, ""), 0.1),
		withG(linHeld("h2", span{0, 0.2, 0.4}, "h1"), 0.2),
	)
	r := Linearizability(h, Options{})
	assert.Equal(t, OK, r.Status, r.Summary)
	assert.NotContains(t, r.Summary, "witness", "the search decided, not the witness")
	assert.Equal(t, "2 lease-store and 0 fenced-resource operations on 1 resources are linearizable", r.Summary,
		"counted by the walk, which did not witness it")
}

func TestLinearizabilityWithoutAHistoryIsUnknown(t *testing.T) {
	r := Linearizability(nil, Options{})
	assert.Equal(t, Unknown, r.Status)
	assert.Equal(t, "P3", r.Property)
}

// ambiguousHistory is a history porcupine cannot decide quickly: n writes
// under one token, all concurrent, then a read of a value none wrote.
// Proving that no order of the writes explains the read takes 2^n steps.
func ambiguousHistory(n int) *history.History {
	var ops []history.Operation
	for i := range n {
		ops = append(ops, linWrite(fmt.Sprintf("h%d", i), span{0, 0.5, 1}, 1, fmt.Sprint(i), lease.CodeOK, 1))
	}
	ops = append(ops, linRead("r", span{2, 2.1, 2.2}, 1, "never written"))
	return linHistoryOf(ops...)
}

// A search that runs out of its step budget is unknown, and says after how
// many steps: the same verdict every time, on any machine and load (the
// budget counts model steps, not seconds).
func TestLinearizabilityBudgetIsUnknownInSteps(t *testing.T) {
	h := ambiguousHistory(40)
	h.Faults = []history.FaultWindow{{Kind: history.FaultPartition, Start: secs(0.2), End: secs(0.8), Detail: "[h0] | [store]"}}
	r := Linearizability(h, Options{LinearizabilitySteps: 5000, Visualize: true})
	assert.Equal(t, Unknown, r.Status, "running out is never OK: %s", r.Summary)
	assert.Empty(t, r.Violations)
	assert.Contains(t, r.Summary, "porcupine did not decide 41 operations on 1 resources within 5000 model steps each")
	assert.NotRegexp(t, `[0-9.]+(ms|s)\b`, r.Summary, "no verdict mentions wall time")
	for range 3 {
		again := Linearizability(h, Options{LinearizabilitySteps: 5000})
		assert.Equal(t, r.Status, again.Status)
		assert.Equal(t, r.Summary, again.Summary)
	}
	html := r.Visualization
	assert.Contains(t, string(html), "fault network", "the faults are annotations")
	assert.Contains(t, string(html), "[h0] | [store]")
}

func TestLinearizabilityReturnsTheVisualisationOnAViolation(t *testing.T) {
	h := linHistoryOf(
		linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""),
		linGrant("h2", span{2, 3, 4}, 2, 0, ""),
	)
	h.Faults = []history.FaultWindow{{Kind: history.FaultPause, Nodes: []string{"h1"}, Start: secs(1), End: secs(8)}}
	h.HealAt = secs(30)
	r := Linearizability(h, Options{Visualize: true})
	require.Equal(t, Violated, r.Status)
	html := r.Visualization
	assert.Empty(t, r.Artifact, "the checker writes no file")
	for _, want := range []string{"fault h1", "pause h1 from 1s to 8s", "the fault phase ended at 30s",
		"acquire(h2, ttl 5s) -\\u003e tok 2 @g=3s", "h2 → grantor: called 2s, processed 3s, returned 4s"} {
		assert.Contains(t, string(html), want)
	}

	ok := Linearizability(linHistoryOf(linGrant("h1", span{0, 0.1, 0.2}, 1, 0, "")), Options{Visualize: true})
	assert.Equal(t, OK, ok.Status)
	assert.Empty(t, ok.Visualization, "nothing to look at when the history is linearizable")
	quiet := Linearizability(h, Options{})
	assert.Empty(t, quiet.Visualization, "rendered only when asked for")
}

func TestLinearizabilityClientIDs(t *testing.T) {
	h := linHistoryOf(
		linGrant("zed", span{0, 0.1, 0.2}, 1, 0, ""),
		linHeld("amy", span{0.3, 0.4, 0.5}, "zed"),
		linHeld("kim", span{0.3, 0.4, 0.5}, "zed"),
	)
	l := newLin(h)
	assert.Equal(t, []string{"amy", "kim", "zed"}, l.clients)
	ids := []int{l.ops[0].ClientId, l.ops[1].ClientId, l.ops[2].ClientId}
	assert.Equal(t, []int{2, 0, 1}, ids)
}

// Narrowing by grantor time: each operation ends by the earliest return
// at a later reading and starts after the latest call at an earlier one.
func TestNarrowByGrantorTime(t *testing.T) {
	write := recordedOp(0, lease.Message{Kind: lease.KindWrite, Resource: "r"}, lease.Message{Kind: lease.KindWriteReply},
		0, 100, nil)
	other := renewAt(5, 8, 2)
	inputOf(other.Input).Input.Resource = "s"
	tests := []struct {
		name  string
		ops   []porcupine.Operation
		want  [][2]int64 // call, return
		ranks []int
	}{
		{"a lost reply ends at the next return", []porcupine.Operation{renewAt(0, 1000, 1), renewAt(5, 8, 2)},
			[][2]int64{{0, 8}, {5, 8}}, []int{0, 1}},
		{"a delayed request starts after the earlier call", []porcupine.Operation{renewAt(0, 9, 2), renewAt(5, 8, 1)},
			[][2]int64{{5, 9}, {5, 8}}, []int{1, 0}},
		{"equal readings do not bound each other", []porcupine.Operation{renewAt(0, 10, 1), renewAt(5, 8, 1), renewAt(1, 20, 3)},
			[][2]int64{{0, 10}, {5, 8}, {5, 20}}, []int{0, 0, 1}},
		{"crossing bounds leave the interval", []porcupine.Operation{renewAt(5, 6, 2), renewAt(7, 8, 1)},
			[][2]int64{{5, 6}, {7, 8}}, []int{1, 0}},
		{"other resources and the register are left alone", []porcupine.Operation{renewAt(0, 1000, 1), write, other},
			[][2]int64{{0, 1000}, {0, 100}, {5, 8}}, []int{0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ranks := narrowByGrantorTime(tc.ops)
			assert.Equal(t, tc.want, spans(tc.ops))
			assert.Equal(t, tc.ranks, ranks)
		})
	}
}

// renewAt is a renew on resource "r" called at call, returned at ret, and
// processed at grantor reading g.
func renewAt(call, ret int64, g time.Duration) porcupine.Operation {
	return recordedOp(0, lease.Message{Kind: lease.KindRenew, Resource: "r"},
		lease.Message{Kind: lease.KindRenewReply, GrantorTime: g}, call, ret, nil)
}

func spans(ops []porcupine.Operation) [][2]int64 {
	var out [][2]int64
	for _, o := range ops {
		out = append(out, [2]int64{o.Call, o.Return})
	}
	return out
}

func TestBreakTies(t *testing.T) {
	ops := []porcupine.Operation{renewAt(5, 9, 2), renewAt(5, 8, 1), renewAt(9, 12, 3)}
	scale := breakTies(ops, []int{1, 0, 2})
	assert.Equal(t, int64(3), scale)
	assert.Equal(t, [][2]int64{{16, 28}, {15, 24}, {29, 38}}, spans(ops),
		"calls at 5 ordered by rank; a return at 9 precedes a call at 9 only when its reading is earlier")

	huge := []porcupine.Operation{renewAt(0, math.MaxInt64/2, 1), renewAt(1, 2, 2)}
	assert.Equal(t, int64(1), breakTies(huge, []int{0, 1}), "no scaling when it would overflow")
	assert.Equal(t, [][2]int64{{0, math.MaxInt64 / 2}, {1, 2}}, spans(huge))
	assert.Equal(t, int64(1), breakTies(nil, nil))
}

// The order the server processed a resource's operations in is one
// candidate linearisation, and not always the one that works.
func TestLegalAsProcessed(t *testing.T) {
	tests := []struct {
		name string
		ops  []history.Operation
		want bool
	}{
		{"writes accepted in token order", []history.Operation{
			linWrite("h1", span{0, 0.2, 1}, 1, "a", lease.CodeOK, 1),
			linWrite("h2", span{0.1, 0.5, 0.9}, 2, "b", lease.CodeOK, 2)}, true},
		{"concurrent writes accepted out of token order", []history.Operation{
			linWrite("h1", span{0, 0.5, 1}, 1, "a", lease.CodeOK, 1),
			linWrite("h2", span{0.1, 0.2, 0.9}, 2, "b", lease.CodeOK, 2)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLin(linHistoryOf(tc.ops...))
			assert.Equal(t, tc.want, l.legalAsProcessed(l.ops))
			assert.Equal(t, OK, Linearizability(linHistoryOf(tc.ops...), Options{}).Status, "linearizable either way")
		})
	}
}

// A grantor that resumes from a pause processes its backlog at one
// instant: operations that share a grantor reading may be linearised in
// any order among themselves, and the checker tries those orders itself.
func TestLinearizabilityEqualReadings(t *testing.T) {
	const ok = lease.CodeOK
	sameG := func(op history.Operation) history.Operation { return withG(op, 3) }
	backlog := func(extra ...history.Operation) *history.History {
		ops := []history.Operation{
			// Processed (recorded) in this order, all at grantor clock 3s: the refusal
			// first, which is only legal after the grant.
			sameG(linHeld("h2", span{1, 3, 3.1}, "h1")),
			sameG(linGrant("h1", span{1, 3, 3.1}, 1, 0, "")),
		}
		for i := range 20 {
			ops = append(ops, sameG(linHeld(fmt.Sprintf("c%d", i), span{1, 3, 3.1}, "h1")))
		}
		return linHistoryOf(append(ops, extra...)...)
	}
	t.Run("some order of the backlog is legal", func(t *testing.T) {
		r := Linearizability(backlog(), Options{})
		assert.Equal(t, OK, r.Status, r.Summary)
		assert.NotContains(t, r.Summary, "witness", "the processing order was not legal; another was")
	})
	t.Run("no order of the backlog is legal", func(t *testing.T) {
		h := backlog(sameG(linToken(lease.KindRenew, "h9", span{1, 3, 3.1}, 7, ok)))
		r := Linearizability(h, Options{})
		require.Equal(t, Violated, r.Status, r.Summary)
		assert.Contains(t, r.Violations[0].Detail, "renew(h9, tok 7)")
	})
}

// newLin is newLinHistory under the specification h names.
func newLin(h *history.History) *linHistory {
	spec, err := model.SpecFor(h.Spec, h.Lease)
	if err != nil {
		panic(err)
	}
	p := newAsProcessed(h, spec)
	return newLinHistory(p, newP3Ops(h, p.store, p.register, nil))
}

// The step budget gives the same verdict however loaded the machine is:
// eight searches of one undecidable history at once, on however many
// cores there are, all end undecided after the same number of steps, as
// one search alone does.
func TestLinearizabilityBudgetIgnoresLoad(t *testing.T) {
	h := ambiguousHistory(40)
	alone := Linearizability(h, Options{LinearizabilitySteps: 3000})
	require.Equal(t, Unknown, alone.Status)
	results := make(chan Result, 8)
	for range 8 {
		go func() { results <- Linearizability(h, Options{LinearizabilitySteps: 3000}) }()
	}
	for range 8 {
		r := <-results
		assert.Equal(t, alone.Status, r.Status)
		assert.Equal(t, alone.Summary, r.Summary)
	}
}
