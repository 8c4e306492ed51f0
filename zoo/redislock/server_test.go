package redislock

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// step is one command run at an offset from the start, and the reply
// expected (Clock is filled in by the test).
type step struct {
	at   time.Duration
	cmd  Command
	want Reply
}

// runSteps runs steps on a fresh server and checks each reply.
func runSteps(t *testing.T, steps []step) {
	t.Helper()
	n := newTestNode("grantor")
	s, err := newServer(n.env(), AppendFsyncAlways)
	require.NoError(t, err)
	start := n.clock.now
	for i, st := range steps {
		n.clock.advance(start + st.at - n.clock.now)
		s.DeliverAny("h1", st.cmd)
		out := n.net.take()
		require.Len(t, out, 1, "step %d", i)
		want := st.want
		want.Op, want.Client, want.ID, want.Clock = st.cmd.Op, st.cmd.Client, st.cmd.ID, n.clock.now
		assert.Equal(t, want, out[0].m, "step %d: %+v", i, st.cmd)
		assert.Equal(t, "h1", string(out[0].to), "step %d", i)
	}
}

func TestServerCommands(t *testing.T) {
	set := func(v string, ttl time.Duration) Command {
		return Command{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "lock:r", Value: v, TTL: ttl}
	}
	get := Command{Op: OpGet, Client: "h1", ID: 2, Key: "lock:r"}
	del := func(v string) Command { return Command{Op: OpDelIfEqual, Client: "h1", ID: 3, Key: "lock:r", Value: v} }
	touch := func(v string, ttl time.Duration) Command {
		return Command{Op: OpPExpireIfEqual, Client: "h1", ID: 4, Key: "lock:r", Value: v, TTL: ttl}
	}
	incr := Command{Op: OpIncr, Client: "h1", ID: 5, Key: "fence:r"}
	tests := []struct {
		name  string
		steps []step
	}{
		{"set on an absent key sets it; a second set does not", []step{
			{0, set("a", time.Second), Reply{OK: true}},
			{time.Millisecond, set("b", time.Second), Reply{}},
			{2 * time.Millisecond, get, Reply{OK: true, Value: "a"}},
		}},
		{"a key is still there at its expiry instant and gone right after", []step{
			{0, set("a", time.Second), Reply{OK: true}},
			{time.Second, get, Reply{OK: true, Value: "a"}},
			{time.Second, set("b", time.Second), Reply{}},
			{time.Second + 1, get, Reply{}},
			{time.Second + 1, set("b", time.Second), Reply{OK: true}},
		}},
		{"the unlock script deletes only the caller's value", []step{
			{0, set("a", time.Second), Reply{OK: true}},
			{1, del("b"), Reply{}},
			{2, get, Reply{OK: true, Value: "a"}},
			{3, del("a"), Reply{OK: true}},
			{4, get, Reply{}},
			{5, del("a"), Reply{}},
		}},
		{"the touch script extends only the caller's live key, from when it runs", []step{
			{0, set("a", time.Second), Reply{OK: true}},
			{500 * time.Millisecond, touch("b", time.Second), Reply{}},
			{900 * time.Millisecond, touch("a", time.Second), Reply{OK: true}},
			{1900 * time.Millisecond, get, Reply{OK: true, Value: "a"}},
			{1900*time.Millisecond + 1, touch("a", time.Second), Reply{}},
			{1900*time.Millisecond + 1, get, Reply{}},
		}},
		{"incr counts from an absent key and keeps counting", []step{
			{0, incr, Reply{N: 1}},
			{1, incr, Reply{N: 2}},
			{2, Command{Op: OpGet, Client: "h1", ID: 6, Key: "fence:r"}, Reply{OK: true, Value: "2"}},
		}},
		{"incr of a value that is not an integer fails and changes nothing", []step{
			{0, Command{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "fence:r", Value: "x", TTL: time.Second}, Reply{OK: true}},
			{1, incr, Reply{Err: ErrNotInteger}},
			{2, Command{Op: OpGet, Client: "h1", ID: 6, Key: "fence:r"}, Reply{OK: true, Value: "x"}},
		}},
		{"incr at the largest integer fails", []step{
			{0, Command{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "fence:r", Value: strconv.FormatInt(math.MaxInt64, 10), TTL: time.Second},
				Reply{OK: true}},
			{1, incr, Reply{Err: ErrNotInteger}},
		}},
		{"incr keeps the key's expiry", []step{
			{0, Command{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "fence:r", Value: "41", TTL: time.Second}, Reply{OK: true}},
			{1, incr, Reply{N: 42}},
			{time.Second + 1, incr, Reply{N: 1}},
		}},
		{"malformed commands are refused without effect", []step{
			{0, set("a", 0), Reply{Err: ErrBadRequest}},
			{1, touch("a", -time.Second), Reply{Err: ErrBadRequest}},
			{2, Command{Op: OpGet, Client: "h1", ID: 7}, Reply{Err: ErrBadRequest}},
			{3, Command{Op: "flushall", Client: "h1", ID: 8, Key: "lock:r"}, Reply{Err: ErrBadRequest}},
			{4, Command{Op: OpGet, Client: "h1", ID: 9, Key: "a\nb"}, Reply{Err: ErrBadRequest}},
			{5, get, Reply{}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, tt.steps) })
	}
}

func TestServerIgnoresOtherMessages(t *testing.T) {
	n := newTestNode("grantor")
	s, err := newServer(n.env(), AppendFsyncAlways)
	require.NoError(t, err)
	s.DeliverAny("h1", "not a command")
	s.DeliverAny("h1", Reply{Op: OpGet})
	assert.Empty(t, n.net.take())
}

// TestServerRestart pins what each persistence mode keeps across a crash:
// a lock set and a token drawn just before it, and the same two once a
// second has passed (AppendFsyncEverySec's sync).
func TestServerRestart(t *testing.T) {
	tests := []struct {
		mode Persistence
		// kept is whether the lock and the counter survive a crash right
		// after the commands, and after a second.
		keptAtOnce, keptAfterSync bool
	}{
		{AppendFsyncAlways, true, true},
		{AppendFsyncEverySec, false, true},
		{NoPersistence, false, false},
	}
	for _, tt := range tests {
		for _, wait := range []time.Duration{0, fsyncInterval} {
			want := tt.keptAtOnce
			if wait > 0 {
				want = tt.keptAfterSync
			}
			t.Run(tt.mode.String()+"/after "+wait.String(), func(t *testing.T) {
				n := newTestNode("grantor")
				s, err := newServer(n.env(), tt.mode)
				require.NoError(t, err)
				s.DeliverAny("h1", Command{Op: OpIncr, Client: "h1", ID: 1, Key: "fence:r"})
				s.DeliverAny("h1", Command{Op: OpSetNXPX, Client: "h1", ID: 2, Key: "lock:r", Value: "h1/1", TTL: 5 * time.Second})
				n.clock.advance(wait)
				n.store.Crash()
				n.clock.timers = nil // the crashed incarnation's timers die with it
				n.net.take()

				s, err = newServer(n.env(), tt.mode)
				require.NoError(t, err)
				s.DeliverAny("h2", Command{Op: OpGet, Client: "h2", ID: 1, Key: "lock:r"})
				s.DeliverAny("h2", Command{Op: OpIncr, Client: "h2", ID: 2, Key: "fence:r"})
				out := n.net.take()
				require.Len(t, out, 2)
				assert.Equal(t, want, out[0].m.(Reply).OK, "lock kept")
				wantN := int64(1)
				if want {
					wantN = 2
				}
				assert.Equal(t, wantN, out[1].m.(Reply).N, "counter continues")
			})
		}
	}
}

// TestServerRestartKeepsExpiry: a persisted key expires after a restart
// when it would have without the crash (the monotonic clock ran on).
func TestServerRestartKeepsExpiry(t *testing.T) {
	n := newTestNode("grantor")
	s, err := newServer(n.env(), AppendFsyncAlways)
	require.NoError(t, err)
	s.DeliverAny("h1", Command{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "lock:r", Value: "h1/1", TTL: 5 * time.Second})
	n.store.Crash()
	n.clock.advance(2 * time.Second)
	s, err = newServer(n.env(), AppendFsyncAlways)
	require.NoError(t, err)
	n.net.take()
	n.clock.advance(3 * time.Second)
	s.DeliverAny("h2", Command{Op: OpSetNXPX, Client: "h2", ID: 1, Key: "lock:r", Value: "h2/2", TTL: time.Second})
	n.clock.advance(1)
	s.DeliverAny("h2", Command{Op: OpSetNXPX, Client: "h2", ID: 2, Key: "lock:r", Value: "h2/2", TTL: time.Second})
	out := n.net.take()
	require.Len(t, out, 2)
	assert.False(t, out[0].m.(Reply).OK, "still held at its expiry instant")
	assert.True(t, out[1].m.(Reply).OK, "expired right after")

	// A key that expired while the server was down is not reloaded.
	n.store.Crash()
	n.clock.advance(time.Hour)
	s, err = newServer(n.env(), AppendFsyncAlways)
	require.NoError(t, err)
	assert.Empty(t, s.keys)
}

// TestPayloadConventions: the messages describe themselves in the
// expiring-key specification's terms (the payload conventions of
// notes/ZOO.md), with the specification's own operation names.
func TestPayloadConventions(t *testing.T) {
	for op, want := range map[Op]model.KeyOp{OpSetNXPX: model.OpSetNXPX, OpGet: model.OpGet,
		OpDelIfEqual: model.OpDelIfEqual, OpPExpireIfEqual: model.OpPExpireIfEqual, OpIncr: model.OpIncr} {
		assert.Equal(t, string(want), string(op))
	}
	cmd := Command{Op: OpSetNXPX, Client: "h1", ID: 1<<32 | 7, Key: "lock:r", Value: "h1/3", TTL: 5 * time.Second}
	assert.Equal(t, history.Part{Client: "h1", ID: 1<<32 | 7, Payload: history.Payload{
		Kind: "set_nx_px", Key: "lock:r", Value: "h1/3", TTL: 5 * time.Second}}, cmd.Describe())
	r := Reply{Op: OpIncr, Client: "h1", ID: 9, N: 4, Clock: time.Minute}
	assert.Equal(t, history.Part{Client: "h1", ID: 9, Reply: true, Payload: history.Payload{
		Kind: "incr_reply", Revision: 4, Clock: time.Minute}}, r.Describe())
	r = Reply{Op: OpGet, Client: "h1", ID: 10, OK: true, Value: "h1/3", Clock: time.Minute, Err: ErrNone}
	assert.Equal(t, history.Payload{Kind: "get_reply", OK: true, Value: "h1/3", Clock: time.Minute}, r.Describe().Payload)
}

// TestDigestCoversContents: messages that differ in any field digest
// differently, so the trace hash sees payloads.
func TestDigestCoversContents(t *testing.T) {
	base := Command{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "lock:r", Value: "h1/1", TTL: time.Second}
	variants := []Command{
		{Op: OpPExpireIfEqual, Client: "h1", ID: 1, Key: "lock:r", Value: "h1/1", TTL: time.Second},
		{Op: OpSetNXPX, Client: "h2", ID: 1, Key: "lock:r", Value: "h1/1", TTL: time.Second},
		{Op: OpSetNXPX, Client: "h1", ID: 2, Key: "lock:r", Value: "h1/1", TTL: time.Second},
		{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "lock:s", Value: "h1/1", TTL: time.Second},
		{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "lock:r", Value: "h1/2", TTL: time.Second},
		{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "lock:r", Value: "h1/1", TTL: 2 * time.Second},
	}
	for _, v := range variants {
		assert.NotEqual(t, base.Digest(), v.Digest(), "%+v", v)
	}
	assert.Equal(t, base.Digest(), base.Digest())
	rb := Reply{Op: OpGet, Client: "h1", ID: 1, OK: true, Value: "x", Clock: time.Second}
	for _, v := range []Reply{
		{Op: OpGet, Client: "h1", ID: 1, Value: "x", Clock: time.Second},
		{Op: OpGet, Client: "h1", ID: 1, OK: true, Value: "y", Clock: time.Second},
		{Op: OpGet, Client: "h1", ID: 1, OK: true, Value: "x", Clock: 2 * time.Second},
		{Op: OpGet, Client: "h1", ID: 1, OK: true, Value: "x", Clock: time.Second, Err: ErrBadRequest},
	} {
		assert.NotEqual(t, rb.Digest(), v.Digest(), "%+v", v)
	}
	assert.NotEqual(t, base.Digest(), Reply{Op: base.Op, Client: base.Client, ID: base.ID}.Digest())
}

// TestServerFailedFsync: under AppendFsyncAlways a change that cannot be
// synced is not acknowledged and not kept, in memory or in the store.
func TestServerFailedFsync(t *testing.T) {
	n := newTestNode("grantor")
	s, err := newServer(n.env(), AppendFsyncAlways)
	require.NoError(t, err)
	s.DeliverAny("h1", Command{Op: OpSetNXPX, Client: "h1", ID: 1, Key: "lock:r", Value: "h1/1", TTL: time.Second})
	n.store.FailSync = errors.New("disk full")
	s.DeliverAny("h1", Command{Op: OpDelIfEqual, Client: "h1", ID: 2, Key: "lock:r", Value: "h1/1"})
	s.DeliverAny("h1", Command{Op: OpIncr, Client: "h1", ID: 3, Key: "fence:r"})
	n.store.FailSync = nil
	s.DeliverAny("h1", Command{Op: OpGet, Client: "h1", ID: 4, Key: "lock:r"})
	out := n.net.take()
	require.Len(t, out, 2, "the two unsynced changes got no reply")
	assert.Equal(t, Reply{Op: OpGet, Client: "h1", ID: 4, OK: true, Value: "h1/1", Clock: n.clock.now}, out[1].m)

	_, keys := loadKeys(n.store, n.clock.now)
	require.Contains(t, keys, "lock:r")
	assert.Equal(t, "h1/1", keys["lock:r"].value)
	assert.NotContains(t, keys, "fence:r")
}
