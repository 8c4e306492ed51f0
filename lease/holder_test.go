package lease_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// lostCall is one OnLost callback.
type lostCall struct {
	token uint64
	err   error
}

// session acquires resource on h and records its callbacks.
type sessionLog struct {
	grants []lease.Grant
	lost   []lostCall
}

func acquireLogged(h lease.Holder, resource string, keys ...lease.KV) *sessionLog {
	log := &sessionLog{}
	h.Acquire(resource, lease.AcquireOptions{
		Keys:    keys,
		OnGrant: func(g lease.Grant) { log.grants = append(log.grants, g) },
		OnLost:  func(_ string, token uint64, err error) { log.lost = append(log.lost, lostCall{token, err}) },
	})
	return log
}

// cutGrantor drops every message to or from the grantor while on is true.
func cutGrantor(f *fixture, on *bool) {
	f.w.Intercept = func(from, to lease.Addr, _ lease.Message) bool {
		return !*on || (from != grantorAddr && to != grantorAddr)
	}
}

func TestHolderAcquireAndRenew(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	log := acquireLogged(h, "r")
	f.w.Settle()

	g, ok := h.Valid("r")
	require.True(t, ok)
	assert.Equal(t, uint64(1), g.Token)
	assert.Equal(t, f.cfg.HolderValidity(10*time.Second), g.Deadline, "deadline = sent + TTL(1-rho) - margin")
	require.Len(t, log.grants, 1)

	f.w.Advance(10 * time.Minute)
	g, ok = h.Valid("r")
	require.True(t, ok, "renewals keep the lease")
	assert.Equal(t, uint64(1), g.Token)
	assert.Greater(t, g.Deadline, f.w.Now())
	assert.GreaterOrEqual(t, f.obs.count("h1", lease.EventRenew), 170) // every 3.33s for 10 min
	assert.Zero(t, f.obs.count("h1", lease.EventLost))
	assert.Len(t, log.grants, 1)
}

func TestHolderValidUntilExactlyDeadline(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	log := acquireLogged(h, "r")
	f.w.Settle()
	g, _ := h.Valid("r")

	cut := true
	cutGrantor(f, &cut)
	f.w.Advance(g.Deadline - f.w.Now() - 1)
	_, ok := h.Valid("r")
	assert.True(t, ok, "one nanosecond before the deadline")
	assert.Equal(t, 1, f.obs.count("h1", lease.EventJeopardy), "jeopardy is reported once per episode")
	assert.Greater(t, f.obs.count("h1", lease.EventRenewFailed), 1)

	f.w.Advance(1)
	_, ok = h.Valid("r")
	assert.False(t, ok, "exactly at the deadline")
	assert.Equal(t, 1, f.obs.count("h1", lease.EventLost))
	require.Len(t, log.lost, 1)
	assert.Equal(t, g.Token, log.lost[0].token)
	assert.ErrorIs(t, log.lost[0].err, lease.ErrLeaseExpired)

	var werr error
	h.Write("r", "k", []byte("v"), func(err error) { werr = err })
	assert.ErrorIs(t, werr, lease.ErrLeaseExpired, "no write without a valid lease")
}

func TestHolderReacquiresAfterHeal(t *testing.T) {
	tests := []struct {
		name      string
		healAfter time.Duration // after the holder's loss
		wantToken uint64
	}{
		{"grantor still holds it: same token", 0, 1},
		{"grantor expired it: new token", time.Second, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, testConfig())
			h := f.holder("h1")
			log := acquireLogged(h, "r")
			f.w.Settle()
			cut := true
			cutGrantor(f, &cut)
			f.w.Advance(f.cfg.HolderValidity(f.cfg.TTL) + tt.healAfter)
			require.Len(t, log.lost, 1)

			cut = false
			f.w.Advance(time.Minute)
			g, ok := h.Valid("r")
			require.True(t, ok, "the session goes back to acquiring")
			assert.Len(t, log.grants, 2)
			assert.Equal(t, tt.wantToken, g.Token)
		})
	}
}

func TestHolderIgnoresStaleGrant(t *testing.T) {
	f := newFixture(t, lease.Config{TTL: 10 * time.Second, Rho: 0.01, RequestTimeout: time.Minute}.WithDefaults())
	h := f.holder("h1")
	var held []lease.Message
	f.w.Intercept = func(from, _ lease.Addr, m lease.Message) bool {
		if from == grantorAddr && m.Kind == lease.KindAcquireReply && len(held) == 0 {
			held = append(held, m)
			return false
		}
		return true
	}
	acquireLogged(h, "r")
	f.w.Settle()
	require.Len(t, held, 1)

	f.w.Advance(f.cfg.HolderValidity(f.cfg.TTL)) // the grant's deadline has passed
	f.w.Intercept = func(_, _ lease.Addr, m lease.Message) bool { return m.Kind != lease.KindAcquire }
	f.w.Send(grantorAddr, "h1", held[0])
	f.w.Settle()
	_, ok := h.Valid("r")
	assert.False(t, ok, "a reply that arrives after its deadline must not create belief")
	assert.Zero(t, f.obs.count("h1", lease.EventGrant))
}

func TestHolderIgnoresRenewReplyAfterDeadline(t *testing.T) {
	f := newFixture(t, lease.Config{TTL: 10 * time.Second, Rho: 0.01, RequestTimeout: time.Minute}.WithDefaults())
	h := f.holder("h1")
	acquireLogged(h, "r")
	f.w.Settle()
	g, _ := h.Valid("r")

	var held []lease.Message
	f.w.Intercept = func(from, _ lease.Addr, m lease.Message) bool {
		if from == grantorAddr && m.Kind == lease.KindRenewReply {
			held = append(held, m)
			return false
		}
		return m.Kind != lease.KindAcquire // keep it from re-acquiring
	}
	f.w.Advance(g.Deadline - f.w.Now())
	require.NotEmpty(t, held)
	_, ok := h.Valid("r")
	require.False(t, ok)

	f.w.Send(grantorAddr, "h1", held[0])
	f.w.Settle()
	_, ok = h.Valid("r")
	assert.False(t, ok, "a renewal reply after the deadline must not resurrect belief")
	assert.Zero(t, f.obs.count("h1", lease.EventRenew))
}

func TestHolderFencedStopsActing(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	log := acquireLogged(h, "r")
	f.w.Settle()
	g, _ := h.Valid("r")

	// Someone with a newer token wrote to the resource.
	reply := f.call("h9", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Token: g.Token + 1, Key: "k"})
	require.Equal(t, lease.CodeOK, reply.Err)

	var werr error
	h.Write("r", "k", []byte("v"), func(err error) { werr = err })
	f.w.Settle()
	assert.ErrorIs(t, werr, lease.ErrFenced, "ErrFenced is surfaced to the caller")
	_, ok := h.Valid("r")
	assert.False(t, ok, "the holder stops acting on a fenced lease")
	assert.Equal(t, 1, f.obs.count("h1", lease.EventFenced))
	require.Len(t, log.lost, 1)
	assert.ErrorIs(t, log.lost[0].err, lease.ErrFenced)

	var cerr error
	h.(lease.Checkpointer).Checkpoint("r", []byte("s"), func(err error) { cerr = err })
	assert.ErrorIs(t, cerr, lease.ErrLeaseExpired)
}

// TestHolderPausedWriteIsFenced is the GC-pause story: the holder decides to
// write, pauses past its lease, another holder takes over and writes, and the
// resumed write is rejected.
func TestHolderPausedWriteIsFenced(t *testing.T) {
	f := newFixture(t, testConfig())
	var resume func()
	env := f.env("h1")
	env.Failpoint = func(name string, then func()) {
		if name == lease.FailpointBeforeWrite && resume == nil {
			f.w.Pause("h1")
			resume = then
			return
		}
		then()
	}
	h1, err := lease.NewHolder(env, f.cfg, grantorAddr, resourceAddr)
	require.NoError(t, err)
	f.w.Register("h1", h1)
	log := acquireLogged(h1, "r")
	f.w.Settle()

	var staleErr error
	h1.Write("r", "k", []byte("stale"), func(err error) { staleErr = err })
	require.NotNil(t, resume)
	f.w.Advance(f.cfg.GrantorHold(f.cfg.TTL)) // h1 is frozen: no renewals

	h2 := f.holder("h2")
	acquireLogged(h2, "r")
	f.w.Advance(time.Minute)
	g2, ok := h2.Valid("r")
	require.True(t, ok)
	var freshErr error
	h2.Write("r", "k", []byte("fresh"), func(err error) { freshErr = err })
	f.w.Settle()
	require.NoError(t, freshErr)

	f.w.Resume("h1")
	resume()
	f.w.Settle()
	assert.ErrorIs(t, staleErr, lease.ErrFenced)
	assert.Len(t, log.lost, 1, "the lease is lost exactly once")
	assert.Equal(t, 1, f.obs.count("h1", lease.EventFenced))
	read := f.call("c9", resourceAddr, lease.Message{Kind: lease.KindRead, Resource: "r", Key: "k"})
	assert.Equal(t, []byte("fresh"), read.Value)
	assert.Equal(t, g2.Token, read.Token)
}

func TestHolderWriteTimeout(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	acquireLogged(h, "r")
	f.w.Settle()
	f.w.Intercept = func(_, to lease.Addr, _ lease.Message) bool { return to != resourceAddr }
	var werr error
	h.Write("r", "k", []byte("v"), func(err error) { werr = err })
	f.w.Advance(f.cfg.RequestTimeout - 1)
	assert.NoError(t, werr)
	f.w.Advance(1)
	assert.ErrorIs(t, werr, lease.ErrTimeout)
}

func TestHolderReleaseHandsOver(t *testing.T) {
	f := newFixture(t, testConfig())
	h1, h2 := f.holder("h1"), f.holder("h2")
	acquireLogged(h1, "r", lease.KV{Key: "svc/h1"})
	f.w.Settle()
	acquireLogged(h2, "r")
	f.w.Settle()
	_, ok := h2.Valid("r")
	require.False(t, ok)

	h1.Release("r")
	_, ok = h1.Valid("r")
	assert.False(t, ok, "release stops belief at once")
	assert.Equal(t, 1, f.obs.count("h1", lease.EventRelease))
	f.w.Settle()
	_, held := f.g.Lookup("r")
	assert.False(t, held, "the grantor released the lease and its keys")

	f.w.Advance(f.cfg.BackoffMax)
	g, ok := h2.Valid("r")
	require.True(t, ok, "the waiting holder gets the lease without waiting for a TTL")
	assert.Equal(t, uint64(2), g.Token)
}

func TestHolderReleaseWhileAcquiringReleasesLateGrant(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	acquireLogged(h, "r")
	h.Release("r") // the acquire request is still queued
	f.w.Settle()
	_, held := f.g.Lookup("r")
	assert.False(t, held, "an orphaned grant is released")
	_, ok := h.Valid("r")
	assert.False(t, ok)
}

func TestHolderCloseReleasesAll(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	for _, r := range []string{"b", "a", "c"} {
		acquireLogged(h, r)
	}
	f.w.Settle()
	var order []string
	f.w.Intercept = func(_, _ lease.Addr, m lease.Message) bool {
		if m.Kind == lease.KindRelease {
			order = append(order, m.Resource)
		}
		return true
	}
	h.(lease.Closer).Close()
	f.w.Settle()
	assert.Equal(t, []string{"a", "b", "c"}, order)
	acquireLogged(h, "d")
	f.w.Settle()
	_, held := f.g.Lookup("d")
	assert.False(t, held, "a closed holder acquires nothing")
}

func TestHolderGivesUpOnPermanentError(t *testing.T) {
	cfg := testConfig()
	f := newFixture(t, cfg)
	holderCfg := cfg
	holderCfg.TTL, holderCfg.TTLMax = 20*time.Second, 20*time.Second // more than the grantor allows
	h, err := lease.NewHolder(f.env("h1"), holderCfg, grantorAddr, resourceAddr)
	require.NoError(t, err)
	f.w.Register("h1", h)
	log := acquireLogged(h, "r")
	f.w.Settle()
	require.Len(t, log.lost, 1)
	assert.Zero(t, log.lost[0].token)
	assert.ErrorIs(t, log.lost[0].err, lease.ErrTTLOutOfRange)
}

func TestHolderCheckpointHandoff(t *testing.T) {
	f := newFixture(t, testConfig())
	h1, h2 := f.holder("h1"), f.holder("h2")
	acquireLogged(h1, "r")
	f.w.Settle()
	var cerr = errors.New("not called")
	h1.(lease.Checkpointer).Checkpoint("r", []byte("progress=7"), func(err error) { cerr = err })
	f.w.Settle()
	require.NoError(t, cerr)
	assert.Equal(t, 1, f.obs.count("h1", lease.EventCheckpoint))

	h1.Release("r")
	log := acquireLogged(h2, "r")
	f.w.Advance(time.Second)
	require.Len(t, log.grants, 1)
	assert.Equal(t, []byte("progress=7"), log.grants[0].State, "the new holder resumes from the checkpoint")
	assert.Equal(t, uint64(1), log.grants[0].CheckpointToken)
}

func TestHolderRequestIDsIncreaseAcrossRestart(t *testing.T) {
	f := newFixture(t, testConfig())
	var ids []uint64
	f.w.Intercept = func(from, _ lease.Addr, m lease.Message) bool {
		if from == "h1" {
			ids = append(ids, m.ReqID)
		}
		return true
	}
	h := f.holder("h1")
	acquireLogged(h, "r")
	f.w.Advance(5 * time.Second)
	f.w.Crash("h1")
	h = f.holder("h1")
	acquireLogged(h, "r")
	f.w.Advance(5 * time.Second)
	require.Greater(t, len(ids), 3)
	for i := 1; i < len(ids); i++ {
		assert.Greater(t, ids[i], ids[i-1])
	}
}

func TestNewHolderRejectsBadInput(t *testing.T) {
	f := newFixture(t, testConfig())
	tests := []struct {
		name    string
		cfg     lease.Config
		grantor lease.Addr
	}{
		{"zero config", lease.Config{}, grantorAddr},
		{"no grantor", testConfig(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := lease.NewHolder(f.env("h1"), tt.cfg, tt.grantor, resourceAddr)
			assert.ErrorIs(t, err, lease.ErrInvalidConfig)
		})
	}
}

// TestHolderDelayedReleaseDoesNotEndNewerBelief: the holder releases, and
// acquires again while its release is still in flight; the grantor still has
// the lease and re-grants it with the same token. The late release must not
// end a lease the holder believes in again.
func TestHolderDelayedReleaseDoesNotEndNewerBelief(t *testing.T) {
	f := newFixture(t, testConfig())
	h1, h2 := f.holder("h1"), f.holder("h2")
	acquireLogged(h1, "r")
	f.w.Settle()
	var delayed []lease.Message
	f.w.Intercept = func(_, _ lease.Addr, m lease.Message) bool {
		if m.Kind == lease.KindRelease && len(delayed) == 0 {
			delayed = append(delayed, m)
			return false
		}
		return true
	}
	h1.Release("r")
	acquireLogged(h1, "r")
	f.w.Settle()
	g, ok := h1.Valid("r")
	require.True(t, ok)
	require.Equal(t, uint64(1), g.Token, "re-acquired before the release arrived: same lease")

	f.w.Send("h1", grantorAddr, delayed[0])
	acquireLogged(h2, "r")
	f.w.Advance(time.Minute)
	_, ok = h1.Valid("r")
	assert.True(t, ok)
	_, ok = h2.Valid("r")
	assert.False(t, ok, "two holders would believe at once")
	info, held := f.g.Lookup("r")
	require.True(t, held)
	assert.Equal(t, lease.Addr("h1"), info.Holder)
}

func TestHolderReleasesUnwantedGrant(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	var acquires []lease.Message
	f.w.Intercept = func(_, _ lease.Addr, m lease.Message) bool {
		if m.Kind == lease.KindAcquire {
			acquires = append(acquires, m)
		}
		return true
	}
	acquireLogged(h, "r")
	f.w.Settle()
	h.Release("r")
	f.w.Settle()
	require.Len(t, acquires, 1)

	f.w.Send("h1", grantorAddr, acquires[0]) // the network duplicates the old acquire
	f.w.Settle()
	_, held := f.g.Lookup("r")
	assert.False(t, held, "a grant the holder no longer wants is released at once")
}

func TestHolderTakesOverPromptlyAtExpiry(t *testing.T) {
	f := newFixture(t, testConfig())
	h1 := f.holder("h1")
	acquireLogged(h1, "r")
	f.w.Settle()
	h2 := f.holder("h2")
	log2 := acquireLogged(h2, "r")
	f.w.Advance(time.Minute) // h2 polls and keeps hearing ErrHeld
	require.Empty(t, log2.grants)

	f.w.Crash("h1") // no release: the lease must expire at the grantor
	crashed := f.w.Now()
	f.w.Advance(time.Minute)
	require.Len(t, log2.grants, 1)
	took := f.obs.firstAt("h2", lease.EventGrant) - crashed
	// The grantor holds the lease at most GrantorHold after h1's last
	// renewal; h2 then retries within BackoffMin of the expiry it was told
	// about, instead of at its capped backoff (TTL/4).
	limit := f.cfg.GrantorHold(f.cfg.TTL) + f.cfg.BackoffMin + 10*time.Millisecond
	assert.LessOrEqual(t, took, limit, "failover within GrantorHold + BackoffMin")
}

// firstAt returns the clock reading of node's first event of kind.
func (r *recorder) firstAt(node lease.Addr, kind lease.EventKind) time.Duration {
	for _, ev := range r.events {
		if ev.Node == node && ev.Kind == kind {
			return ev.Local
		}
	}
	return -1
}

func TestRestartedHolderGetsANewTokenAtOnce(t *testing.T) {
	f := newFixture(t, testConfig())
	h1 := f.holder("h1")
	acquireLogged(h1, "r")
	f.w.Settle()
	old, ok := h1.Valid("r")
	require.True(t, ok)

	f.w.Crash("h1") // no release: the grantor still holds the lease for h1
	restarted := f.holder("h1")
	log := acquireLogged(restarted, "r")
	f.w.Settle()
	require.Len(t, log.grants, 1, "the new incarnation does not wait for the old lease to expire")
	assert.Greater(t, log.grants[0].Token, old.Token, "a new token, so the old incarnation's writes are fenced")

	var werr error
	restarted.Write("r", "k", []byte("new"), func(err error) { werr = err })
	f.w.Settle()
	require.NoError(t, werr)
	stale := f.call("h1", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Token: old.Token, Key: "k", Value: []byte("old")})
	assert.Equal(t, lease.CodeFenced, stale.Err, "a write the old incarnation left in flight is fenced")
}

// TestHolderFailpointsContinueInOrder holds a write and a checkpoint at
// their failpoints and lets them go in the order of the failpoints: each
// continuation sends its own action, with the value as it was when the
// caller wrote it, and a continuation beyond them is a broken invariant.
func TestHolderFailpointsContinueInOrder(t *testing.T) {
	f := newFixture(t, testConfig())
	var held []func()
	var names []string
	env := f.env("h1")
	env.Failpoint = func(name string, then func()) {
		names = append(names, name)
		held = append(held, then)
	}
	h, err := lease.NewHolder(env, f.cfg, grantorAddr, resourceAddr)
	require.NoError(t, err)
	f.w.Register("h1", h)
	acquireLogged(h, "r")
	f.w.Settle()

	buf := []byte("first")
	var werr, cerr error
	wrote, checkpointed := false, false
	h.Write("r", "k", buf, func(err error) { werr, wrote = err, true })
	copy(buf, "XXXXX") // the caller reuses its buffer while the write waits
	h.(lease.Checkpointer).Checkpoint("r", []byte("state"), func(err error) { cerr, checkpointed = err, true })
	require.Equal(t, []string{lease.FailpointBeforeWrite, lease.FailpointBeforeCheckpoint}, names)
	f.w.Settle()
	assert.False(t, wrote || checkpointed, "nothing leaves the node before its failpoint lets it")

	held[0]()
	f.w.Settle()
	assert.True(t, wrote, "the first continuation sends the write")
	assert.False(t, checkpointed)
	require.NoError(t, werr)
	read := f.call("c9", resourceAddr, lease.Message{Kind: lease.KindRead, Resource: "r", Key: "k"})
	assert.Equal(t, []byte("first"), read.Value, "the value as the caller wrote it")

	held[1]()
	f.w.Settle()
	assert.True(t, checkpointed, "the second continuation sends the checkpoint")
	require.NoError(t, cerr)
	assert.PanicsWithValue(t,
		"lease: invariant failpoint-continues-once violated: a failpoint continuation ran with no write or checkpoint waiting",
		func() { held[1]() })
}

// A continuation that never runs (a host that models a crash by never
// calling it, and goes on using the holder) leaves its write unsent, and
// does not take the place of the next: a continuation that runs during its
// Failpoint call sends the action that call passed.
func TestHolderDroppedContinuationSendsNothing(t *testing.T) {
	f := newFixture(t, testConfig())
	drop := true
	env := f.env("h1")
	env.Failpoint = func(name string, then func()) {
		if drop {
			drop = false
			return // never runs then
		}
		then()
	}
	h, err := lease.NewHolder(env, f.cfg, grantorAddr, resourceAddr)
	require.NoError(t, err)
	f.w.Register("h1", h)
	acquireLogged(h, "r")
	f.w.Settle()

	var dropped, sent []error
	h.Write("r", "k", []byte("dropped"), func(err error) { dropped = append(dropped, err) })
	h.Write("r", "k", []byte("sent"), func(err error) { sent = append(sent, err) })
	f.w.Settle()
	assert.Empty(t, dropped, "the dropped write never left")
	require.Len(t, sent, 1)
	require.NoError(t, sent[0])
	read := f.call("c9", resourceAddr, lease.Message{Kind: lease.KindRead, Resource: "r", Key: "k"})
	assert.Equal(t, []byte("sent"), read.Value)
}
