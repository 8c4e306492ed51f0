package model

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// The errors of the tests' replies, as payloads name them.
const (
	ok         = ""
	held       = string(LeaseHeld)
	expired    = "lease_expired"
	fenced     = string(RegisterFenced)
	badRequest = string(LeaseBadRequest)
)

// runSteps applies steps in order: every step but the last must be legal.
// It returns whether the last one is, and Explain's reason.
func runSteps(t *testing.T, spec Spec, steps []step) (bool, string) {
	t.Helper()
	require.NotEmpty(t, steps)
	m := spec.Model
	state := m.Init()
	for i, s := range steps {
		legal, next := m.Step(state, s.in, s.out)
		why := spec.Explain(state, s.in, s.out)
		assert.Equal(t, legal, why == "", "Step and Explain disagree at step %d: %q", i, why)
		if i == len(steps)-1 {
			return legal, why
		}
		require.True(t, legal, "step %d (%s) must be legal: %s", i, m.DescribeOperation(s.in, s.out), why)
		state = next
	}
	panic("unreachable")
}

// A 5s lease granted at g holds until g+5.05s (rho 1%).
func TestLeaseStoreRules(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		why   string // "" if the last step is legal, else a part of Explain's reason
	}{
		{"grant on a free resource", []step{grant("h1", 1, 1, 0, "")}, ""},
		{"contender refused while held", []step{grant("h1", 1, 1, 0, ""), refused("h2", 2, held, "h1")}, ""},
		{"refused naming the wrong holder", []step{grant("h1", 1, 1, 0, ""), refused("h2", 2, held, "h3")}, "names holder h3"},
		{"refused while free", []step{refused("h2", 2, held, "h1")}, "no lease is live"},
		{"refused after expiry", []step{grant("h1", 0, 1, 0, ""), refused("h2", 5.05, held, "h1")}, "no lease is live"},
		{"two grants overlap", []step{grant("h1", 1, 1, 0, ""), grant("h2", 6.04, 2, 0, "")}, "h1 holds tok 1 until g=6.05s"},
		{"grant exactly at expiry", []step{grant("h1", 1, 1, 0, ""), grant("h2", 6.05, 2, 0, "")}, ""},
		{"token not increasing", []step{grant("h1", 0, 5, 0, ""), grant("h2", 6, 5, 0, "")}, "not above tok 5"},
		{"token going down", []step{grant("h1", 0, 5, 0, ""), releaseOp("h1", 1, 5, ok), grant("h2", 2, 3, 0, "")}, "not above tok 5"},
		{"re-grant to the holder keeps its token", []step{grant("h1", 0, 1, 0, ""), grant("h1", 3, 1, 0, ""), refused("h2", 8.04, held, "h1")}, ""},
		{"re-grant to the holder with a new token", []step{grant("h1", 0, 1, 0, ""), grant("h1", 3, 2, 0, "")}, "re-granted to its holder h1 as tok 2"},
		{"the holder restarted: a new token at once", []step{incarnation(grant("h1", 0, 1, 0, ""), 1), incarnation(grant("h1", 3, 2, 0, ""), 2),
			refused("h2", 4, held, "h1"), renewOp("h1", 5, 1, ok)}, "tok 1 is not the current tok 2"},
		{"a new token for the same incarnation", []step{incarnation(grant("h1", 0, 1, 0, ""), 2), incarnation(grant("h1", 3, 2, 0, ""), 2)},
			"re-granted to its holder h1 as tok 2"},
		{"grant after expiry to the same client needs a new token", []step{grant("h1", 0, 1, 0, ""), grant("h1", 6, 1, 0, "")}, "not above tok 1"},
		{"renew extends", []step{grant("h1", 0, 1, 0, ""), renewOp("h1", 5, 1, ok), refused("h2", 10.04, held, "h1"), grant("h2", 10.05, 2, 0, "")}, ""},
		{"renew after expiry succeeds", []step{grant("h1", 0, 1, 0, ""), renewOp("h1", 5.05, 1, ok)}, "expired at g=5.05s"},
		{"renew by a stale token succeeds", []step{grant("h1", 0, 1, 0, ""), grant("h2", 6, 2, 0, ""), renewOp("h1", 7, 1, ok)}, "tok 1 is not the current tok 2 of h2"},
		{"renew of a free lease succeeds", []step{renewOp("h1", 1, 1, ok)}, "no lease was ever granted"},
		{"renew by another client succeeds", []step{grant("h1", 0, 1, 0, ""), renewOp("h2", 1, 1, ok)}, "h2 is not the holder h1"},
		{"renew failures are always legal", []step{grant("h1", 0, 1, 0, ""), renewOp("h1", 1, 1, expired), renewOp("h1", 2, 1, fenced)}, ""},
		{"release frees at once", []step{grant("h1", 0, 1, 0, ""), releaseOp("h1", 1, 1, ok), grant("h2", 1, 2, 0, "")}, ""},
		{"release by a stale token succeeds", []step{grant("h1", 0, 1, 0, ""), grant("h2", 6, 2, 0, ""), releaseOp("h1", 7, 1, ok)}, "tok 1 is not the current tok 2"},
		{"release twice", []step{grant("h1", 0, 1, 0, ""), releaseOp("h1", 1, 1, ok), releaseOp("h1", 2, 1, ok)}, "the lease is free"},
		{"revoked lease blocks grants until expiry", []step{grant("h1", 0, 1, 0, ""), revokeOp(1, "h1", 1, ok), refused("h2", 2, held, "h1"), refused("h1", 3, held, "h1"), grant("h2", 5.05, 2, 0, "")}, ""},
		{"grant over a revoked lease", []step{grant("h1", 0, 1, 0, ""), revokeOp(1, "h1", 1, ok), grant("h2", 2, 2, 0, "")}, "(revoked)"},
		{"renew of a revoked lease", []step{grant("h1", 0, 1, 0, ""), revokeOp(1, "h1", 1, ok), renewOp("h1", 2, 1, ok)}, "tok 1 was revoked"},
		{"revoke of nothing succeeds", []step{revokeOp(1, "h1", 1, ok)}, "no lease is live"},
		{"revoke failure is legal", []step{grant("h1", 0, 1, 0, ""), revokeOp(1, "", 0, expired)}, ""},
		{"checkpoint handed over", []step{grant("h1", 0, 1, 0, ""), ckpt("h1", 1, 1, "12", 7, ok), readCkpt("h3", 2, 1, "12"), grant("h2", 6, 2, 1, "12")}, ""},
		{"checkpoint from a stale holder accepted", []step{grant("h1", 0, 1, 0, ""), grant("h2", 6, 2, 0, ""), ckpt("h1", 7, 1, "12", 9, ok)}, "checkpoint \"12\" under tok 1 by h1 accepted"},
		{"checkpoint after expiry accepted", []step{grant("h1", 0, 1, 0, ""), ckpt("h1", 5.05, 1, "12", 9, ok)}, "expired"},
		{"checkpoint refused is legal", []step{grant("h1", 0, 1, 0, ""), ckpt("h1", 1, 1, "12", 9, fenced), readCkpt("h3", 2, 0, "")}, ""},
		{"grant hands over an older checkpoint", []step{grant("h1", 0, 1, 0, ""), ckpt("h1", 1, 1, "5", 7, ok), ckpt("h1", 2, 1, "9", 8, ok), grant("h2", 6, 2, 1, "5")}, "latest accepted is tok 1 \"9\""},
		{"read returns an older checkpoint", []step{grant("h1", 0, 1, 0, ""), ckpt("h1", 1, 1, "5", 7, ok), ckpt("h1", 2, 1, "9", 8, ok), readCkpt("h3", 3, 1, "5")}, "latest accepted is tok 1 \"9\""},
		{"overtaken checkpoint is acknowledged, not stored", []step{grant("h1", 0, 1, 0, ""), ckpt("h1", 1, 1, "9", 8, ok), ckpt("h1", 2, 1, "5", 7, ok), readCkpt("h3", 3, 1, "9")}, ""},
		{"a new grant forgets request ids", []step{grant("h1", 0, 1, 0, ""), ckpt("h1", 1, 1, "9", 8, ok), grant("h2", 6, 2, 1, "9"), ckpt("h2", 7, 2, "10", 3, ok), readCkpt("h3", 8, 2, "10")}, ""},
		{"grantor time going backwards", []step{grant("h1", 2, 1, 0, ""), renewOp("h1", 1, 1, expired)}, "grantor time went backwards: g=1s after g=2s"},
		{"query names the holder", []step{grant("h1", 0, 1, 0, ""), queryOp("h3", 1, "h1", 1, ok), queryOp("h3", 6, "", 0, expired)}, ""},
		{"query names the wrong token", []step{grant("h1", 0, 1, 0, ""), queryOp("h3", 1, "h1", 2, ok)}, "query names h1 tok 2, but h1 holds tok 1"},
		{"query names an expired holder", []step{grant("h1", 0, 1, 0, ""), queryOp("h3", 6, "h1", 1, ok)}, "no unrevoked lease is live"},
		{"query names a revoked holder", []step{grant("h1", 0, 1, 0, ""), revokeOp(1, "h1", 1, ok), queryOp("h3", 2, "h1", 1, ok)}, "no unrevoked lease is live"},
		{"acquire failures the model cannot judge", []step{refused("h1", 1, string(LeaseGrace), ""), refused("h1", 2, string(LeaseTTLOutOfRange), ""), refused("h1", 3, string(LeaseTokenExhausted), ""), refused("h1", 4, badRequest, "")}, ""},
		{"acquire fenced", []step{refused("h1", 1, fenced, "")}, "acquire cannot fail with fenced"},
		{"token at its maximum", []step{grant("h1", 0, math.MaxUint64, 0, ""), refused("h2", 6, string(LeaseTokenExhausted), ""), grant("h2", 7, math.MaxUint64, 0, "")}, "not above tok 18446744073709551615"},
		{"reply of another kind", []step{{in: req(string(OpRenew), "h1", 1), out: history.Payload{Kind: "acquire_reply"}}}, "reply acquire_reply does not answer renew"},
		{"list is not modelled", []step{{in: history.Operation{Input: history.Payload{Kind: "list"}}, out: history.Payload{Kind: "list_reply"}}}, "not a lease-store operation"},
	}
	spec := LeaseStoreSpec(testPolicy)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			legal, why := runSteps(t, spec, tc.steps)
			if tc.why == "" {
				assert.True(t, legal, why)
				return
			}
			assert.False(t, legal)
			assert.Contains(t, why, tc.why)
		})
	}
}

func TestLeaseStoreZeroTTLExpiresAtOnce(t *testing.T) {
	spec := LeaseStoreSpec(HoldRho(0)) // hold = ttl
	zero := grant("h1", 1, 1, 0, "")
	zero.in.Input.TTL, zero.out.TTL = 0, 0
	legal, why := runSteps(t, spec, []step{zero, grant("h2", 1, 2, 0, "")})
	assert.True(t, legal, why)
	assert.Equal(t, int64(0), int64(testPolicy.Hold(0)))
}

func TestLeaseStoreStepIsPure(t *testing.T) {
	m := LeaseStore(testPolicy)
	s0 := m.Init()
	_, s1 := m.Step(s0, grant("h1", 0, 1, 0, "").in, grant("h1", 0, 1, 0, "").out)
	c := ckpt("h1", 1, 1, "12", 7, ok)
	_, s2 := m.Step(s1, c.in, c.out)
	assert.Equal(t, leaseState{}, s0, "Init's state unchanged")
	assert.Equal(t, "held by h1 tok 1 until 5.05s; g=0s", m.DescribeState(s1))
	assert.Equal(t, `held by h1 tok 1 until 5.05s; ckpt tok 1 "12"; g=1s`, m.DescribeState(s2))
	assert.False(t, m.Equal(s1, s2))
	assert.True(t, m.Equal(s2, s2))
	assert.Equal(t, m.Hash(s2), m.Hash(s2))
	assert.NotEqual(t, m.Hash(s1), m.Hash(s2))
}

func TestDescribeLeaseOp(t *testing.T) {
	tests := []struct {
		s    step
		want string
	}{
		{grant("h2", 12.3, 7, 0, ""), "acquire(h2, ttl 5s) -> tok 7 @g=12.3s"},
		{grant("h2", 12.3, 7, 6, "12"), `acquire(h2, ttl 5s) -> tok 7, ckpt tok 6 "12" @g=12.3s`},
		{refused("h2", 1, held, "h1"), "acquire(h2, ttl 5s) -> held by h1 @g=1s"},
		{renewOp("h1", 2, 7, ok), "renew(h1, tok 7) -> ok @g=2s"},
		{releaseOp("h1", 2, 7, fenced), "release(h1, tok 7) -> fenced @g=2s"},
		{revokeOp(3, "h1", 7, ok), "revoke(operator) -> revoked h1 tok 7 @g=3s"},
		{ckpt("h1", 4, 7, "12", 1, ok), `checkpoint(h1, tok 7, "12") -> ok @g=4s`},
		{readCkpt("h3", 5, 7, "12"), `read_checkpoint(h3) -> tok 7 "12" @g=5s`},
		{queryOp("h3", 6, "h1", 7, ok), "query(h3) -> h1 tok 7 @g=6s"},
		{ckpt("h1", 4, 7, "0123456789abcdefghijklmnopqrstuvwxyz", 1, ok), `checkpoint(h1, tok 7, "0123456789abcdefghijklmn"…) -> ok @g=4s`},
	}
	m := LeaseStore(testPolicy)
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			assert.Equal(t, tc.want, m.DescribeOperation(tc.s.in, tc.s.out))
		})
	}
}

func TestExplainPanicsOnAForeignState(t *testing.T) {
	s := grant("h1", 0, 1, 0, "")
	assert.Panics(t, func() { LeaseStoreSpec(testPolicy).Explain(3, s.in, s.out) })
	assert.Panics(t, func() { LeaseStore(testPolicy).Step(leaseState{}, "acquire", s.out) })
}

func TestOperationsMayBePointers(t *testing.T) {
	m := LeaseStore(testPolicy)
	s := grant("h1", 0, 1, 0, "")
	legal, state := m.Step(m.Init(), &s.in, &s.out)
	assert.True(t, legal)
	assert.Equal(t, "held by h1 tok 1 until 5.05s; g=0s", m.DescribeState(state))
	assert.Equal(t, m.DescribeOperation(s.in, s.out), m.DescribeOperation(&s.in, &s.out))
	w := writeOp("h1", 1, "k", "a", ok, 1)
	legal, _ = FencedRegister().Step(registerState{}, &w.in, &w.out)
	assert.True(t, legal)
}
