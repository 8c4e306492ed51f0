package leasetest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
)

type inbox struct{ got []string }

func (b *inbox) Deliver(from lease.Addr, m lease.Message) {
	b.got = append(b.got, fmt.Sprintf("%s:%s", from, m.Key))
}

func TestTimersFireInOrder(t *testing.T) {
	w := leasetest.NewWorld()
	env := w.Env("n", 1)
	var fired []string
	env.Clock.AfterFunc(2*time.Second, func() { fired = append(fired, "b") })
	env.Clock.AfterFunc(time.Second, func() { fired = append(fired, "a") })
	env.Clock.AfterFunc(2*time.Second, func() { fired = append(fired, "c") }) // tie: creation order
	stopped := env.Clock.AfterFunc(time.Second, func() { fired = append(fired, "stopped") })
	assert.True(t, stopped.Stop())
	assert.False(t, stopped.Stop(), "a second Stop reports nothing prevented")

	w.Advance(time.Second - 1)
	assert.Empty(t, fired)
	w.Advance(10 * time.Second)
	assert.Equal(t, []string{"a", "b", "c"}, fired)
	assert.Equal(t, 10*time.Second+time.Second-1, w.Now())
	assert.Equal(t, leasetest.Epoch.Add(w.Now()), env.Wall.WallNow())
}

func TestPauseDefersTimersAndMessages(t *testing.T) {
	w := leasetest.NewWorld()
	b := &inbox{}
	w.Register("b", b)
	env := w.Env("b", 1)
	fired := false
	env.Clock.AfterFunc(time.Second, func() { fired = true })

	w.Pause("b")
	w.Send("a", "b", lease.Message{Key: "m1"})
	w.Advance(time.Minute)
	assert.False(t, fired, "a paused node's timers wait")
	assert.Empty(t, b.got, "messages to a paused node wait")

	w.Resume("b")
	w.Advance(0)
	assert.True(t, fired)
	assert.Equal(t, []string{"a:m1"}, b.got)
}

func TestCrashLosesUnsyncedWritesAndTimers(t *testing.T) {
	w := leasetest.NewWorld()
	env := w.Env("n", 1)
	env.Store.Put("synced", []byte("1"))
	require.NoError(t, env.Store.Sync())
	env.Store.Put("unsynced", []byte("2"))
	fired := false
	env.Clock.AfterFunc(time.Second, func() { fired = true })

	w.Crash("n")
	w.Advance(time.Minute)
	assert.False(t, fired, "a crashed incarnation's timers never fire")
	_, ok := w.Store("n").Get("unsynced")
	assert.False(t, ok)
	v, ok := w.Store("n").Get("synced")
	assert.True(t, ok)
	assert.Equal(t, []byte("1"), v)
}

func TestInterceptCanDropAndReinject(t *testing.T) {
	w := leasetest.NewWorld()
	b := &inbox{}
	w.Register("b", b)
	var held []lease.Message
	w.Intercept = func(_, _ lease.Addr, m lease.Message) bool {
		if m.Key == "late" && len(held) == 0 {
			held = append(held, m)
			return false
		}
		return true
	}
	w.Send("a", "b", lease.Message{Key: "late"})
	w.Send("a", "b", lease.Message{Key: "early"})
	w.Settle()
	w.Send("a", "b", held[0])
	w.Settle()
	assert.Equal(t, []string{"a:early", "a:late"}, b.got)
	assert.Equal(t, 2, w.Delivered)
}

// A world runs nodes deterministically: nothing happens until the test
// settles the network or advances time.
func ExampleWorld() {
	w := leasetest.NewWorld()
	cfg := lease.Config{TTL: 10 * time.Second}
	g, err := lease.NewGrantor(w.Env("grantor", 1), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Register("grantor", g)
	h, err := lease.NewHolder(w.Env("h1", 2), cfg, "grantor", "store")
	if err != nil {
		fmt.Println(err)
		return
	}
	w.Register("h1", h)

	h.Acquire("job", lease.AcquireOptions{})
	_, ok := h.Valid("job")
	fmt.Println("before settling:", ok)
	w.Settle()
	_, ok = h.Valid("job")
	fmt.Println("after settling:", ok)
	w.Advance(time.Hour)
	info, ok := g.(lease.LeaseLookup).Lookup("job")
	fmt.Println("an hour later:", ok, info.Holder, info.Token)
	// Output:
	// before settling: false
	// after settling: true
	// an hour later: true h1 1
}
