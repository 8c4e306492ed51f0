package consul

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
)

var t0 = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

func newTestState(t *testing.T, opts ServerOptions, store *gohost.Storage, now time.Time) *state {
	t.Helper()
	s, err := newState(opts, store, rand.New(rand.NewPCG(1, 2)), now)
	require.NoError(t, err)
	return s
}

func mustSession(t *testing.T, s *state, behavior string, ttl, delay time.Duration, now time.Time) string {
	t.Helper()
	se, err := s.createSession("test", behavior, ttl, delay, now)
	require.NoError(t, err)
	return se.ID
}

func TestSessionCreateBounds(t *testing.T) {
	for _, tt := range []struct {
		name     string
		behavior string
		ttl      time.Duration
		ok       bool
	}{
		{"no TTL", "", 0, true},
		{"TTL at the minimum", BehaviorRelease, TTLMin, true},
		{"TTL below the minimum", BehaviorRelease, TTLMin - time.Millisecond, false},
		{"TTL above the maximum", BehaviorDelete, TTLMax + time.Second, false},
		{"unknown behaviour", "keep", 15 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestState(t, ServerOptions{}, gohost.NewStorage(), t0)
			se, err := s.createSession("x", tt.behavior, tt.ttl, 0, t0)
			if !tt.ok {
				assert.Error(t, err)
				assert.Zero(t, s.index, "a refused create writes nothing")
				return
			}
			require.NoError(t, err)
			want := tt.behavior
			if want == "" {
				want = BehaviorRelease // the session API's default
			}
			assert.Equal(t, want, se.Behavior)
			assert.Equal(t, uint64(1), se.CreateIndex)
		})
	}
}

// The TTL is a lower bound: a session is invalidated at TTL×multiplier
// after its last renewal, not before, and a renewal restarts the timer.
func TestSessionInvalidationAtTheMultiplier(t *testing.T) {
	for _, mult := range []float64{0, 1, 1.5} {
		s := newTestState(t, ServerOptions{TTLMultiplier: mult}, gohost.NewStorage(), t0)
		id := mustSession(t, s, "", 10*time.Second, 0, t0)
		hold := time.Duration(float64(10*time.Second) * s.opts.multiplier())
		_, ok := s.renew(id, t0.Add(4*time.Second))
		require.True(t, ok)
		s.expire(t0.Add(4*time.Second + hold - time.Nanosecond))
		_, ok = s.sessions[id]
		assert.True(t, ok, "multiplier %v: alive just before the renewal + %v", mult, hold)
		s.expire(t0.Add(4*time.Second + hold))
		_, ok = s.renew(id, t0.Add(4*time.Second+hold))
		assert.False(t, ok, "multiplier %v: invalidated at the renewal + %v", mult, hold)
	}
}

func TestAcquireRules(t *testing.T) {
	s := newTestState(t, ServerOptions{}, gohost.NewStorage(), t0)
	a := mustSession(t, s, "", 15*time.Second, 15*time.Second, t0)
	b := mustSession(t, s, "", 15*time.Second, 15*time.Second, t0)

	ok, err := s.acquire("k", []byte("a"), 7, a, t0)
	require.NoError(t, err)
	require.True(t, ok, "a free key that does not exist yet")
	e := s.get("k")
	assert.Equal(t, uint64(1), e.LockIndex)
	assert.Equal(t, a, e.Session)

	ok, err = s.acquire("k", []byte("b"), 7, b, t0)
	require.NoError(t, err)
	assert.False(t, ok, "held by another session")

	ok, err = s.acquire("k", []byte("a2"), 7, a, t0)
	require.NoError(t, err)
	assert.True(t, ok, "the holder may acquire again")
	assert.Equal(t, uint64(1), s.get("k").LockIndex, "without a new LockIndex")
	assert.Equal(t, "a2", string(s.get("k").Value))

	_, err = s.acquire("k", nil, 0, "no-such-session", t0)
	assert.Error(t, err, "an invalid session is an error, not a refusal")

	assert.False(t, s.release("k", nil, 7, b), "only the holder releases")
	assert.True(t, s.release("k", []byte("a3"), 7, a))
	assert.Empty(t, s.get("k").Session)

	ok, err = s.acquire("k", nil, 7, b, t0)
	require.NoError(t, err)
	assert.True(t, ok, "a release sets no lock-delay")
	assert.Equal(t, uint64(2), s.get("k").LockIndex)
}

// After an invalidation every key the session held is refused for its
// lock-delay (unless the server variant ignores it); Behavior=delete
// deletes the keys, release clears their session.
func TestLockDelayAndBehaviour(t *testing.T) {
	for _, tt := range []struct {
		name     string
		opts     ServerOptions
		behavior string
		delay    time.Duration
		refused  bool
	}{
		{"release, lock-delay 15 s", ServerOptions{}, BehaviorRelease, 15 * time.Second, true},
		{"delete, lock-delay 15 s", ServerOptions{}, BehaviorDelete, 15 * time.Second, true},
		{"lock-delay 0", ServerOptions{}, BehaviorRelease, 0, false},
		{"variant: lock-delay ignored", ServerOptions{IgnoreLockDelay: true}, BehaviorRelease, 15 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestState(t, tt.opts, gohost.NewStorage(), t0)
			a := mustSession(t, s, tt.behavior, 10*time.Second, tt.delay, t0)
			b := mustSession(t, s, "", 60*time.Second, 0, t0)
			ok, err := s.acquire("k", []byte("a"), 0, a, t0)
			require.NoError(t, err)
			require.True(t, ok)
			expiry := t0.Add(20 * time.Second)
			s.expire(expiry)
			if tt.behavior == BehaviorDelete {
				assert.Nil(t, s.get("k"), "delete behaviour deletes the key")
			} else {
				require.NotNil(t, s.get("k"))
				assert.Empty(t, s.get("k").Session, "release behaviour clears the session")
			}
			ok, err = s.acquire("k", nil, 0, b, expiry.Add(tt.delay-time.Nanosecond))
			require.NoError(t, err)
			assert.Equal(t, !tt.refused, ok, "just before the lock-delay ends")
			if tt.refused {
				ok, err = s.acquire("k", nil, 0, b, expiry.Add(tt.delay))
				require.NoError(t, err)
				assert.True(t, ok, "once the lock-delay has passed")
			}
		})
	}
}

// A restart (a failover) keeps sessions and keys and restarts every
// session's timer from the new leader's clock; lock-delays are lost.
func TestRestartRenewsSessions(t *testing.T) {
	store := gohost.NewStorage()
	s := newTestState(t, ServerOptions{}, store, t0)
	a := mustSession(t, s, "", 10*time.Second, 15*time.Second, t0)
	b := mustSession(t, s, "", 10*time.Second, 15*time.Second, t0)
	ok, err := s.acquire("k", []byte("a"), 0, a, t0)
	require.NoError(t, err)
	require.True(t, ok)
	s.destroy(b, t0) // nothing held: no lock-delay anywhere

	later := t0.Add(15 * time.Second)
	r := newTestState(t, ServerOptions{}, store, later)
	assert.Equal(t, s.index, r.index)
	require.NotNil(t, r.get("k"))
	assert.Equal(t, a, r.get("k").Session)
	r.expire(t0.Add(20 * time.Second))
	assert.Contains(t, r.sessions, a, "its old deadline (20 s) has passed, but the new leader restarted the timer")
	r.expire(later.Add(20*time.Second - time.Nanosecond))
	assert.Contains(t, r.sessions, a)
	r.expire(later.Add(20 * time.Second))
	assert.NotContains(t, r.sessions, a, "invalidated 2×TTL after the failover")
}

func TestQueryIndexAndCAS(t *testing.T) {
	s := newTestState(t, ServerOptions{}, gohost.NewStorage(), t0)
	assert.Equal(t, uint64(1), s.queryIndex("k", false), "an empty table reads as index 1")
	assert.False(t, s.put("k", []byte("v"), 0, 5), "cas on a missing key")
	assert.True(t, s.put("k", []byte("v"), 0, 0), "cas 0 creates")
	assert.False(t, s.put("k", []byte("v"), 0, 0), "cas 0 on an existing key")
	idx := s.get("k").ModifyIndex
	assert.True(t, s.put("k", []byte("w"), 0, int64(idx)))
	assert.Equal(t, s.get("k").ModifyIndex, s.queryIndex("k", false))
	assert.True(t, s.put("p/a", nil, 0, -1))
	assert.True(t, s.put("p/b", nil, 0, -1))
	assert.Len(t, s.list("p/"), 2)
	assert.Equal(t, s.get("p/b").ModifyIndex, s.queryIndex("p/", true))
	before := s.kvIndex
	assert.True(t, s.remove("p/", true, -1))
	assert.Empty(t, s.list("p/"))
	assert.Greater(t, s.queryIndex("p/", true), before, "a delete raises the index a blocking query waits on")
}
