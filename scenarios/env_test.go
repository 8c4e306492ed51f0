package scenarios

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// A spent timer is armed again in place; a pending one keeps its arming
// and the new arming gets a timer of its own, so both fire.
func TestNodeClockRecyclesSpentTimers(t *testing.T) {
	w := sim.New(sim.Config{})
	var fired []string
	w.AddNode("n", func(n *sim.Node) {
		c := nodeClock{n: n}
		first := c.AfterFunc(time.Second, func() { fired = append(fired, "first") })
		pendingAgain := c.AfterFuncAgain(first, time.Second, func() { fired = append(fired, "second") })
		assert.NotSame(t, first, pendingAgain, "a pending timer is not re-armed")
		require.True(t, pendingAgain.Stop())
		again := c.AfterFuncAgain(pendingAgain, 2*time.Second, func() { fired = append(fired, "third") })
		assert.Same(t, pendingAgain, again, "a stopped timer is re-armed in place")
	})
	require.NoError(t, w.RunFor(3*time.Second).Err)
	assert.Equal(t, []string{"first", "third"}, fired)
}

// The clock of a node is a lease.TimerRecycler, so the core re-arms its
// timers without allocating.
var _ lease.TimerRecycler = nodeClock{}

// Re-arming a spent timer, as the lease core does for its request
// timeouts and renewals, allocates nothing.
func TestNodeClockReArmAllocatesNothing(t *testing.T) {
	w := sim.New(sim.Config{Trace: sim.TraceConfig{Keep: -1}})
	n := w.AddNode("n", nil)
	c := nodeClock{n: n}
	fired := 0
	f := func() { fired++ }
	var timer lease.Timer
	w.At(0, func() { timer = c.AfterFunc(time.Millisecond, f) })
	rearm := func() { timer = c.AfterFuncAgain(timer, time.Millisecond, f) }
	cycle := func() {
		if err := w.RunFor(time.Millisecond).Err; err != nil { // the timer fires
			t.Fatal(err)
		}
		w.At(w.Now(), rearm)
		w.Step()
	}
	for range 10 {
		cycle()
	}
	assert.Zero(t, testing.AllocsPerRun(100, cycle))
	assert.Positive(t, fired)
}
