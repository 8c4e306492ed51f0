package redislock

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// The configuration of the holder tests: validity 5s − 2×1%×5s − 50ms =
// 4.85s, renewals every 5s/3, requests time out after half of that.
var testConfig = lease.Config{TTL: 5 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond}

const (
	testValidity = 4850 * time.Millisecond
	testRenew    = 5 * time.Second / 3
	testTimeout  = testRenew / 2
)

// fixture is one holder under test, with the server played by the test.
type fixture struct {
	t      *testing.T
	n      *testNode
	h      *holder
	grants []lease.Grant
	losses []error
}

func newFixture(t *testing.T, b bugs) *fixture {
	n := newTestNode("h1")
	h, err := newHolder(n.env(), testConfig, "grantor", "store", b)
	require.NoError(t, err)
	return &fixture{t: t, n: n, h: h}
}

func (f *fixture) acquire() {
	f.h.Acquire("r", lease.AcquireOptions{
		OnGrant: func(g lease.Grant) { f.grants = append(f.grants, g) },
		OnLost:  func(_ string, _ uint64, err error) { f.losses = append(f.losses, err) },
	})
}

// next returns the one command sent since the last call, checking its op.
func (f *fixture) next(op Op) Command {
	f.t.Helper()
	cmds := commands(f.n.net.take())
	require.Len(f.t, cmds, 1, "want one %s", op)
	require.Equal(f.t, op, cmds[0].Op)
	return cmds[0]
}

// answer delivers the server's reply r to cmd.
func (f *fixture) answer(cmd Command, r Reply) {
	r.Op, r.Client, r.ID = cmd.Op, cmd.Client, cmd.ID
	f.h.DeliverAny("grantor", r)
}

// hold acquires the lock under token 7, answering at once; the SET leaves
// at the returned reading.
func (f *fixture) hold() time.Duration {
	f.acquire()
	f.answer(f.next(OpIncr), Reply{N: 7})
	set := f.next(OpSetNXPX)
	sentAt := f.n.clock.now
	assert.Equal(f.t, Command{Op: OpSetNXPX, Client: "h1", ID: set.ID, Key: "lock:r", Value: "h1/7", TTL: 5 * time.Second}, set)
	f.n.clock.advance(10 * time.Millisecond)
	f.answer(set, Reply{OK: true})
	return sentAt
}

func TestHolderAcquireRenewRelease(t *testing.T) {
	f := newFixture(t, bugs{})
	setAt := f.hold()
	require.Equal(t, []lease.EventKind{lease.EventGrant}, f.n.obs.kinds())
	grant := f.n.obs.last()
	assert.Equal(t, lease.Event{Kind: lease.EventGrant, Node: "h1", Resource: "r", Token: 7, Local: setAt + 10*time.Millisecond,
		Deadline: setAt + testValidity}, grant, "the deadline counts from when the SET left, not from the reply")
	g, ok := f.h.Valid("r")
	require.True(t, ok)
	assert.Equal(t, lease.Grant{Resource: "r", Token: 7, TTL: 5 * time.Second, Deadline: setAt + testValidity}, g)
	assert.Equal(t, []lease.Grant{g}, f.grants)

	f.n.clock.advance(setAt + testRenew - f.n.clock.now)
	touch := f.next(OpPExpireIfEqual)
	assert.Equal(t, "h1/7", touch.Value)
	f.n.clock.advance(20 * time.Millisecond)
	f.answer(touch, Reply{OK: true})
	assert.Equal(t, lease.EventRenew, f.n.obs.last().Kind)
	assert.Equal(t, setAt+testRenew+testValidity, f.n.obs.last().Deadline)

	f.h.Release("r")
	assert.Equal(t, lease.EventRelease, f.n.obs.last().Kind)
	assert.Equal(t, OpDelIfEqual, f.next(OpDelIfEqual).Op)
	_, ok = f.h.Valid("r")
	assert.False(t, ok)
	f.n.clock.advance(time.Minute)
	assert.Empty(t, f.n.net.take(), "a released lock is neither renewed nor acquired")
	assert.Empty(t, f.losses)
}

func TestHolderRefusedRenewEndsBelief(t *testing.T) {
	f := newFixture(t, bugs{})
	setAt := f.hold()
	f.n.clock.advance(setAt + testRenew - f.n.clock.now)
	f.answer(f.next(OpPExpireIfEqual), Reply{})
	assert.Equal(t, []lease.EventKind{lease.EventGrant, lease.EventLost}, f.n.obs.kinds())
	require.Len(t, f.losses, 1)
	assert.ErrorIs(t, f.losses[0], lease.ErrLeaseExpired)
	_, ok := f.h.Valid("r")
	assert.False(t, ok)
	f.n.clock.advance(50 * time.Millisecond) // BackoffMin 100ms, jittered down to half
	f.next(OpIncr)
}

// TestMutantBelievesRefusedRenew: redsync's bug reads the touch script's
// refusal as success.
func TestMutantBelievesRefusedRenew(t *testing.T) {
	f := newFixture(t, bugs{extendIgnoresRefusal: true})
	setAt := f.hold()
	f.n.clock.advance(setAt + testRenew - f.n.clock.now)
	f.answer(f.next(OpPExpireIfEqual), Reply{})
	assert.Equal(t, []lease.EventKind{lease.EventGrant, lease.EventRenew}, f.n.obs.kinds())
	_, ok := f.h.Valid("r")
	assert.True(t, ok)
}

// TestHolderDeadlineThenStillOurs: renewals time out, belief ends at the
// deadline, and a renewal that later finds the key still ours makes the
// holder believe again under the same token.
func TestHolderDeadlineThenStillOurs(t *testing.T) {
	f := newFixture(t, bugs{})
	setAt := f.hold()
	f.n.clock.advance(setAt + testValidity - 1 - f.n.clock.now)
	_, ok := f.h.Valid("r")
	assert.True(t, ok, "valid until the deadline")
	touches := commands(f.n.net.take())
	require.Len(t, touches, 4, "a renewal, then one retry per timeout")
	f.n.clock.advance(1)
	_, ok = f.h.Valid("r")
	assert.False(t, ok)
	assert.Equal(t, []lease.EventKind{lease.EventGrant, lease.EventLost}, f.n.obs.kinds())
	require.Len(t, f.losses, 1)

	last := touches[len(touches)-1]
	lastAt := setAt + testRenew + 3*testTimeout
	f.answer(last, Reply{OK: true})
	assert.Equal(t, lease.EventGrant, f.n.obs.last().Kind)
	assert.Equal(t, lastAt+testValidity, f.n.obs.last().Deadline)
	assert.Len(t, f.grants, 2)
	assert.Equal(t, uint64(7), f.grants[1].Token)
}

// TestHolderLostSetReplyProbes: a SET whose reply is lost may have taken
// effect; the holder asks with the touch script instead of guessing.
func TestHolderLostSetReplyProbes(t *testing.T) {
	f := newFixture(t, bugs{})
	f.acquire()
	f.answer(f.next(OpIncr), Reply{N: 3})
	set := f.next(OpSetNXPX)
	f.n.clock.advance(testTimeout)
	probe := f.next(OpPExpireIfEqual)
	assert.Equal(t, set.Value, probe.Value)
	probeAt := f.n.clock.now
	f.answer(set, Reply{OK: true}) // too late: ignored
	assert.Empty(t, f.n.obs.list)
	f.answer(probe, Reply{OK: true})
	assert.Equal(t, lease.Event{Kind: lease.EventGrant, Node: "h1", Resource: "r", Token: 3, Local: probeAt,
		Deadline: probeAt + testValidity}, f.n.obs.last())
}

// TestHolderBackoff: while someone else holds the lock, attempts back off
// exponentially from BackoffMin to BackoffMax (jitter drawn at its lowest).
func TestHolderBackoff(t *testing.T) {
	f := newFixture(t, bugs{})
	f.acquire()
	var gaps []time.Duration
	for token := int64(1); token <= 6; token++ {
		f.answer(f.next(OpIncr), Reply{N: token})
		f.answer(f.next(OpSetNXPX), Reply{})
		start := f.n.clock.now
		for len(f.n.net.out) == 0 {
			f.n.clock.advance(time.Millisecond)
		}
		gaps = append(gaps, f.n.clock.now-start)
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 625 * ms, 625 * ms}, gaps)
}

func TestHolderWrites(t *testing.T) {
	f := newFixture(t, bugs{})
	var results []error
	done := func(err error) { results = append(results, err) }

	f.h.Write("r", "k", []byte("v"), done)
	require.Len(t, results, 1)
	assert.ErrorIs(t, results[0], lease.ErrLeaseExpired, "no lock, no write")
	assert.Empty(t, f.n.net.take())

	f.hold()
	f.h.Write("r", "k", []byte("v"), done)
	out := f.n.net.take()
	require.Len(t, out, 1)
	assert.Equal(t, lease.Addr("store"), out[0].to)
	w := out[0].m.(lease.Message)
	assert.Equal(t, lease.Message{Kind: lease.KindWrite, ReqID: w.ReqID, Client: "h1", Resource: "r", Token: 7, Key: "k",
		Value: []byte("v"), SentAt: f.n.clock.now}, w)
	assert.Equal(t, uint64(1), lease.Incarnation(w.ReqID))
	f.h.Deliver("store", lease.Message{Kind: lease.KindWriteReply, ReqID: w.ReqID, Client: "h1", Token: 7})
	require.Len(t, results, 2)
	assert.NoError(t, results[1])

	f.h.Write("r", "k", []byte("late"), done)
	f.n.net.take()
	f.n.clock.advance(testTimeout)
	require.Len(t, results, 3)
	assert.ErrorIs(t, results[2], lease.ErrTimeout)
}

// TestHolderFencedWrite: a write refused as stale ends belief (EventFenced,
// OnLost), unlocks the key in case it is still ours and locks afresh.
func TestHolderFencedWrite(t *testing.T) {
	f := newFixture(t, bugs{})
	f.hold()
	var result error
	f.h.Write("r", "k", []byte("v"), func(err error) { result = err })
	w := f.n.net.take()[0].m.(lease.Message)
	f.h.Deliver("store", lease.Message{Kind: lease.KindWriteReply, ReqID: w.ReqID, Client: "h1", Token: 9, Err: lease.CodeFenced})
	assert.ErrorIs(t, result, lease.ErrFenced)
	assert.Equal(t, []lease.EventKind{lease.EventGrant, lease.EventFenced}, f.n.obs.kinds())
	require.Len(t, f.losses, 1)
	assert.ErrorIs(t, f.losses[0], lease.ErrFenced)
	_, ok := f.h.Valid("r")
	assert.False(t, ok)
	assert.Equal(t, "h1/7", f.next(OpDelIfEqual).Value)
	f.n.clock.advance(50 * time.Millisecond)
	f.next(OpIncr)
}

// TestHolderWriteFailpoint: nothing leaves between the failpoint and its
// continuation, and the write carries the time it really left.
func TestHolderWriteFailpoint(t *testing.T) {
	n := newTestNode("h1")
	var then func()
	n.failpoint = func(name string, fn func()) {
		assert.Equal(t, lease.FailpointBeforeWrite, name)
		then = fn
	}
	h, err := newHolder(n.env(), testConfig, "grantor", "store", bugs{})
	require.NoError(t, err)
	f := &fixture{t: t, n: n, h: h}
	f.hold()
	f.h.Write("r", "k", []byte("v"), nil)
	require.NotNil(t, then)
	assert.Empty(t, f.n.net.take())
	f.n.clock.advance(time.Second)
	f.n.net.take() // the renewal that fell due
	then()
	out := f.n.net.take()
	require.Len(t, out, 1)
	assert.Equal(t, f.n.clock.now, out[0].m.(lease.Message).SentAt)
}

// TestHolderSpeaksOnlyWhatItSupports: the Redis lock implements only what
// it speaks: its server takes only its own protocol (no lease.Node), its
// holder does not checkpoint (no lease.Checkpointer: it declares no
// checkpoints), and it refuses attached keys.
func TestHolderUnsupported(t *testing.T) {
	f := newFixture(t, bugs{})
	var holder any = f.h
	_, checkpoints := holder.(lease.Checkpointer)
	assert.False(t, checkpoints, "the holder has no Checkpoint")
	var srv any = &server{}
	_, takesLease := srv.(lease.Node)
	_, takesOwn := srv.(lease.AnyNode)
	assert.False(t, takesLease, "the server has no Deliver(lease.Message)")
	assert.True(t, takesOwn)
	var err error
	f.h.Acquire("s", lease.AcquireOptions{Keys: []lease.KV{{Key: "k"}},
		OnLost: func(_ string, token uint64, e error) { err = e; assert.Zero(t, token) }})
	assert.ErrorIs(t, err, lease.ErrBadRequest)
	assert.Empty(t, f.n.net.take())
}

// TestHolderRestart: a restarted holder's request ids carry its next boot,
// and a reply to the previous incarnation's request is ignored.
func TestHolderRestart(t *testing.T) {
	f := newFixture(t, bugs{})
	f.acquire()
	old := f.next(OpIncr)
	assert.Equal(t, uint64(1), old.ID>>32)
	h2, err := newHolder(f.n.env(), testConfig, "grantor", "store", bugs{})
	require.NoError(t, err)
	f.h = h2
	f.acquire()
	cmd := f.next(OpIncr)
	assert.Equal(t, uint64(2), cmd.ID>>32)
	assert.NotEqual(t, old.ID, cmd.ID)
	f.answer(old, Reply{N: 1})
	assert.Empty(t, f.n.net.take(), "the old incarnation's reply matches nothing")
}

func TestTiming(t *testing.T) {
	tests := []struct {
		name     string
		cfg      lease.Config
		validity time.Duration
		err      string
	}{
		{"default", testConfig, testValidity, ""},
		{"no drift, no margin", lease.Config{TTL: time.Second}, time.Second, ""},
		{"drift rounds up", lease.Config{TTL: 3, Rho: 0.1, RenewInterval: 1}, 3 - 1, ""},
		{"renewal after the deadline", lease.Config{TTL: time.Second, Rho: 0.25, RenewInterval: 500 * time.Millisecond},
			0, "renew interval 500ms must be below"},
		{"rho out of range", lease.Config{TTL: time.Second, Rho: 0.5}, 0, "rho 0.5 must lie in [0, 0.5)"},
		{"no TTL", lease.Config{}, 0, "TTL 0s must be positive"},
		{"negative margin", lease.Config{TTL: time.Second, Margin: -1}, 0, "margin -1ns must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := newTiming(tt.cfg)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.True(t, errors.Is(err, lease.ErrInvalidConfig))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.validity, got.validity)
		})
	}
}
