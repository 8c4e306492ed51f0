package lease_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestGrantorAcquireTTLBounds(t *testing.T) {
	cfg := testConfig() // TTL bounds [1s, 10s]
	tests := []struct {
		name string
		ttl  time.Duration
		want lease.ErrCode
	}{
		{"zero", 0, lease.CodeTTLOutOfRange},
		{"negative", -time.Second, lease.CodeTTLOutOfRange},
		{"just below min", cfg.TTLMin - 1, lease.CodeTTLOutOfRange},
		{"min", cfg.TTLMin, lease.CodeOK},
		{"max", cfg.TTLMax, lease.CodeOK},
		{"just above max", cfg.TTLMax + 1, lease.CodeTTLOutOfRange},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, cfg)
			r := f.acquire("c1", "r", tt.ttl)
			assert.Equal(t, tt.want, r.Err)
			_, held := f.g.Lookup("r")
			assert.Equal(t, tt.want == lease.CodeOK, held)
		})
	}
}

func TestGrantorGrantReply(t *testing.T) {
	f := newFixture(t, testConfig())
	f.w.Advance(5 * time.Second)
	r := f.call("c1", grantorAddr, lease.Message{Kind: lease.KindAcquire, Resource: "r", TTL: 10 * time.Second, SentAt: 1234})
	require.Equal(t, lease.CodeOK, r.Err)
	assert.Equal(t, uint64(1), r.Token)
	assert.Equal(t, time.Duration(1234), r.SentAt, "SentAt is echoed unchanged")
	assert.Equal(t, 5*time.Second, r.GrantorTime)
	assert.Equal(t, f.cfg.GrantorHold(10*time.Second), r.Remaining)
	info, ok := f.g.Lookup("r")
	require.True(t, ok)
	assert.Equal(t, lease.LeaseInfo{Resource: "r", Holder: "c1", Token: 1, TTL: 10 * time.Second,
		ExpiresAt: 5*time.Second + f.cfg.GrantorHold(10*time.Second)}, info)
}

func TestGrantorAcquireContention(t *testing.T) {
	f := newFixture(t, testConfig())
	first := f.acquire("c1", "r", 10*time.Second)
	require.Equal(t, lease.CodeOK, first.Err)
	f.w.Advance(time.Second)

	again := f.acquire("c1", "r", 10*time.Second)
	assert.Equal(t, lease.CodeOK, again.Err, "the holder's own acquire acts as a renewal")
	assert.Equal(t, first.Token, again.Token)

	other := f.acquire("c2", "r", 10*time.Second)
	assert.Equal(t, lease.CodeHeld, other.Err)
	assert.Equal(t, lease.Addr("c1"), other.Holder)
	assert.Equal(t, f.cfg.GrantorHold(10*time.Second), other.Remaining)
	assert.NotZero(t, other.GrantorTime, "every reply carries the grantor's clock")
}

func TestGrantorRenewAtExpiry(t *testing.T) {
	hold := testConfig().GrantorHold(10 * time.Second)
	tests := []struct {
		name  string
		after time.Duration
		want  lease.ErrCode
	}{
		{"one nanosecond before expiry", hold - 1, lease.CodeOK},
		{"exactly at expiry", hold, lease.CodeLeaseExpired},
		{"after expiry", hold + time.Second, lease.CodeLeaseExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, testConfig())
			g := f.acquire("c1", "r", 10*time.Second)
			f.w.Advance(tt.after)
			r := f.grantorReq("c1", lease.KindRenew, "r", g.Token)
			assert.Equal(t, tt.want, r.Err)
			if tt.want == lease.CodeOK {
				assert.Equal(t, hold, r.Remaining, "renewal extends to now + hold")
			}
		})
	}
}

func TestGrantorRejectsWrongHolder(t *testing.T) {
	tests := []struct {
		name   string
		kind   lease.Kind
		client lease.Addr
		token  func(old, cur uint64) uint64
		want   lease.ErrCode
	}{
		{"release by holder", lease.KindRelease, "c2", func(_, cur uint64) uint64 { return cur }, lease.CodeOK},
		{"release by non-holder", lease.KindRelease, "c3", func(_, cur uint64) uint64 { return cur }, lease.CodeNotHolder},
		{"release with stale token", lease.KindRelease, "c1", func(old, _ uint64) uint64 { return old }, lease.CodeFenced},
		{"renew with stale token", lease.KindRenew, "c1", func(old, _ uint64) uint64 { return old }, lease.CodeFenced},
		{"renew by non-holder", lease.KindRenew, "c3", func(_, cur uint64) uint64 { return cur }, lease.CodeNotHolder},
		{"checkpoint with stale token", lease.KindCheckpoint, "c1", func(old, _ uint64) uint64 { return old }, lease.CodeFenced},
		{"checkpoint by non-holder", lease.KindCheckpoint, "c3", func(_, cur uint64) uint64 { return cur }, lease.CodeFenced},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, testConfig())
			old := f.acquire("c1", "r", 10*time.Second).Token
			require.Equal(t, lease.CodeOK, f.grantorReq("c1", lease.KindRelease, "r", old).Err)
			cur := f.acquire("c2", "r", 10*time.Second).Token
			require.Greater(t, cur, old)

			r := f.grantorReq(tt.client, tt.kind, "r", tt.token(old, cur))
			assert.Equal(t, tt.want, r.Err)
			_, held := f.g.Lookup("r")
			assert.Equal(t, !(tt.kind == lease.KindRelease && tt.want == lease.CodeOK), held)
		})
	}
}

func TestGrantorCheckpoint(t *testing.T) {
	f := newFixture(t, testConfig())
	tok := f.acquire("c1", "r", 10*time.Second).Token
	ok := f.call("c1", grantorAddr, lease.Message{Kind: lease.KindCheckpoint, Resource: "r", Token: tok, State: []byte("s1")})
	require.Equal(t, lease.CodeOK, ok.Err)

	f.w.Advance(f.cfg.GrantorHold(10 * time.Second))
	late := f.call("c1", grantorAddr, lease.Message{Kind: lease.KindCheckpoint, Resource: "r", Token: tok, State: []byte("stale")})
	assert.Equal(t, lease.CodeFenced, late.Err, "a checkpoint after expiry is fenced")

	next := f.acquire("c2", "r", 10*time.Second)
	require.Equal(t, lease.CodeOK, next.Err)
	assert.Equal(t, []byte("s1"), next.State, "the new holder receives the latest accepted checkpoint")
	assert.Equal(t, tok, next.CheckpointToken)

	read := f.grantorReq("c3", lease.KindReadCheckpoint, "r", 0)
	assert.Equal(t, []byte("s1"), read.State)
}

func TestGrantorCheckpointOvertakenIsNotStored(t *testing.T) {
	f := newFixture(t, testConfig())
	tok := f.acquire("c1", "r", 10*time.Second).Token
	send := func(reqID uint64, state string) lease.Message {
		f.w.Send("c1", grantorAddr, lease.Message{Kind: lease.KindCheckpoint, ReqID: reqID, Client: "c1",
			Resource: "r", Token: tok, State: []byte(state)})
		f.w.Settle()
		return f.grantorReq("c3", lease.KindReadCheckpoint, "r", 0)
	}
	assert.Equal(t, []byte("new"), send(100, "new").State)
	assert.Equal(t, []byte("new"), send(99, "old").State, "an older request arriving late must not overwrite")
	assert.Equal(t, []byte("newer"), send(101, "newer").State)
}

func TestGrantorRevoke(t *testing.T) {
	f := newFixture(t, testConfig())
	hold := f.cfg.GrantorHold(10 * time.Second)
	tok := f.acquire("c1", "r", 10*time.Second).Token
	f.w.Advance(time.Second)

	rev := f.grantorReq("operator", lease.KindRevoke, "r", 0)
	require.Equal(t, lease.CodeOK, rev.Err)
	assert.Equal(t, lease.Addr("c1"), rev.Holder)
	assert.Equal(t, 1, f.obs.count(grantorAddr, lease.EventRevoked))

	assert.Equal(t, lease.CodeLeaseExpired, f.grantorReq("c1", lease.KindRenew, "r", tok).Err, "revoked: renew fails at once")
	assert.Equal(t, lease.CodeHeld, f.acquire("c2", "r", 10*time.Second).Err, "a new grant waits for the old expiry")

	f.w.Advance(hold - time.Second - 1)
	assert.Equal(t, lease.CodeHeld, f.acquire("c2", "r", 10*time.Second).Err)
	f.w.Advance(1)
	next := f.acquire("c2", "r", 10*time.Second)
	require.Equal(t, lease.CodeOK, next.Err)
	assert.Equal(t, tok+1, next.Token)
}

func TestGrantorRestartGrace(t *testing.T) {
	f := newFixture(t, testConfig())
	grace := f.cfg.RestartGrace()
	first := f.acquire("c1", "r", 10*time.Second).Token
	f.w.Advance(time.Second)
	f.restartGrantor()
	f.w.Advance(grace / 2)

	r := f.acquire("c2", "r", 10*time.Second)
	assert.Equal(t, lease.CodeGrace, r.Err, "in the middle of the grace period")
	assert.Equal(t, grace-grace/2, r.Remaining)
	assert.Equal(t, lease.CodeGrace, f.acquire("c2", "other", 10*time.Second).Err, "grace covers every resource")

	f.w.Advance(grace - grace/2 - 1)
	assert.Equal(t, lease.CodeGrace, f.acquire("c2", "r", 10*time.Second).Err)
	f.w.Advance(1)
	r = f.acquire("c2", "r", 10*time.Second)
	require.Equal(t, lease.CodeOK, r.Err)
	assert.Equal(t, first+1, r.Token, "tokens continue after a restart")
}

func TestGrantorCrashDuringGraceKeepsLongerGrace(t *testing.T) {
	long := testConfig()
	f := newFixture(t, long)
	require.Equal(t, lease.CodeOK, f.acquire("c1", "r", 10*time.Second).Err)

	// Reboot with a config whose grace is much shorter, then crash again
	// at once: the leases of the first boot must still be waited out.
	short := lease.Config{TTL: time.Second, Rho: 0.01}.WithDefaults()
	f.cfg = short
	f.restartGrantor()
	f.w.Advance(short.RestartGrace())
	f.restartGrantor()
	f.w.Advance(short.RestartGrace())
	assert.Less(t, f.w.Now(), long.RestartGrace())
	assert.Equal(t, lease.CodeGrace, f.acquire("c2", "r", time.Second).Err)

	f.w.Advance(long.RestartGrace())
	assert.Equal(t, lease.CodeOK, f.acquire("c2", "r", time.Second).Err)
}

func TestGrantorTokenAtLimit(t *testing.T) {
	f := newFixture(t, testConfig())
	f.w.Store(grantorAddr).Put("lease/token/r", binary.BigEndian.AppendUint64(nil, math.MaxUint64-1))
	last := f.acquire("c1", "r", 10*time.Second)
	require.Equal(t, lease.CodeOK, last.Err)
	assert.Equal(t, uint64(math.MaxUint64), last.Token, "the last token is usable")
	require.Equal(t, lease.CodeOK, f.grantorReq("c1", lease.KindRelease, "r", last.Token).Err)

	r := f.acquire("c2", "r", 10*time.Second)
	assert.Equal(t, lease.CodeTokenExhausted, r.Err)
	assert.True(t, errors.Is(r.Err.Err(), lease.ErrTokenExhausted))
	assert.Equal(t, lease.CodeOK, f.acquire("c2", "other", 10*time.Second).Err, "other resources are unaffected")
}

func TestGrantorTokenDurableBeforeReply(t *testing.T) {
	f := newFixture(t, testConfig())
	store := f.w.Store(grantorAddr)
	store.FailSync = errors.New("disk full")
	f.w.Send("c1", grantorAddr, lease.Message{Kind: lease.KindAcquire, ReqID: 1, Client: "c1", Resource: "r", TTL: 10 * time.Second})
	f.w.Settle()
	_, held := f.g.Lookup("r")
	assert.False(t, held, "no lease without a durable token")

	store.FailSync = nil
	r := f.acquire("c1", "r", 10*time.Second)
	require.Equal(t, lease.CodeOK, r.Err)
	f.restartGrantor()
	f.w.Advance(f.cfg.RestartGrace())
	assert.Greater(t, f.acquire("c2", "r", 10*time.Second).Token, r.Token, "no token is reused after a crash")
}

func TestGrantorAttachedKeys(t *testing.T) {
	f := newFixture(t, testConfig())
	list := func() []lease.KV {
		return f.call("c9", grantorAddr, lease.Message{Kind: lease.KindList, Prefix: "svc/"}).Keys
	}
	f.call("c1", grantorAddr, lease.Message{Kind: lease.KindAcquire, Resource: "a", TTL: 10 * time.Second,
		Keys: []lease.KV{{Key: "svc/b", Value: []byte("1")}, {Key: "other", Value: []byte("x")}}})
	f.call("c2", grantorAddr, lease.Message{Kind: lease.KindAcquire, Resource: "b", TTL: 5 * time.Second,
		Keys: []lease.KV{{Key: "svc/a", Value: []byte("2")}}})
	assert.Equal(t, []lease.KV{{Key: "svc/a", Value: []byte("2")}, {Key: "svc/b", Value: []byte("1")}}, list())

	f.w.Advance(f.cfg.GrantorHold(5 * time.Second))
	assert.Equal(t, 1, f.obs.count(grantorAddr, lease.EventExpired), "expiry is observed on time, without a request")
	assert.Equal(t, []lease.KV{{Key: "svc/b", Value: []byte("1")}}, list())
	f.grantorReq("operator", lease.KindRevoke, "a", 0)
	assert.Empty(t, list(), "keys vanish with a revoked lease")
}

func TestGrantorQuery(t *testing.T) {
	f := newFixture(t, testConfig())
	assert.Equal(t, lease.CodeLeaseExpired, f.grantorReq("c9", lease.KindQuery, "r", 0).Err)
	tok := f.acquire("c1", "r", 10*time.Second).Token
	f.w.Advance(time.Second)
	q := f.grantorReq("c9", lease.KindQuery, "r", 0)
	require.Equal(t, lease.CodeOK, q.Err)
	assert.Equal(t, lease.Addr("c1"), q.Holder)
	assert.Equal(t, tok, q.Token)
	assert.Equal(t, f.cfg.GrantorHold(10*time.Second)-time.Second, q.Remaining)
}

func TestGrantorBadRequests(t *testing.T) {
	many := make([]lease.KV, lease.MaxKeysPerLease+1)
	tests := []struct {
		name string
		m    lease.Message
	}{
		{"empty resource", lease.Message{Kind: lease.KindAcquire, TTL: 10 * time.Second}},
		{"too many keys", lease.Message{Kind: lease.KindAcquire, Resource: "r", TTL: 10 * time.Second, Keys: many}},
		{"state too large", lease.Message{Kind: lease.KindCheckpoint, Resource: "r", State: make([]byte, lease.MaxStateBytes+1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, testConfig())
			assert.Equal(t, lease.CodeBadRequest, f.call("c1", grantorAddr, tt.m).Err)
		})
	}
}

func TestNewGrantorRejectsBadInput(t *testing.T) {
	f := newFixture(t, testConfig())
	_, err := lease.NewGrantor(f.env(grantorAddr), lease.Config{})
	assert.ErrorIs(t, err, lease.ErrInvalidConfig)
	env := f.env(grantorAddr)
	env.Store = nil
	_, err = lease.NewGrantor(env, testConfig())
	assert.ErrorIs(t, err, lease.ErrInvalidConfig)
	assert.ErrorContains(t, err, "Store")
}
