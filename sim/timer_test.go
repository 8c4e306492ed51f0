package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

func TestCancelTimer(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("n", nil)
	fired := 0
	var id sim.TimerID
	w.At(0, func() { id = n.SetTimer(time.Second, func() { fired++ }) })
	w.At(sim.Time(500*time.Millisecond), func() {
		assert.True(t, n.CancelTimer(id), "a pending timer cancels")
		assert.False(t, n.CancelTimer(id), "a cancelled timer does not cancel twice")
		assert.False(t, n.CancelTimer(sim.TimerID{}), "the zero TimerID is no timer")
		assert.False(t, w.AddNode("other", nil).CancelTimer(id), "another node cannot cancel it")
	})
	require.NoError(t, w.RunFor(2*time.Second).Err)
	assert.Zero(t, fired)
}

func TestTimerPending(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("n", nil)
	var fired, cancelled sim.TimerID
	w.At(0, func() {
		fired = n.SetTimer(time.Second, func() {
			assert.False(t, n.TimerPending(fired), "a firing timer is no longer pending")
		})
		cancelled = n.SetTimer(time.Second, func() {})
		assert.True(t, n.TimerPending(fired), "a set timer is pending")
		assert.False(t, w.AddNode("other", nil).TimerPending(fired), "it is not another node's")
		assert.False(t, n.TimerPending(sim.TimerID{}), "the zero TimerID is no timer")
		n.CancelTimer(cancelled)
		assert.False(t, n.TimerPending(cancelled), "a cancelled timer is not pending")
		reused := n.SetTimer(time.Second, func() {}) // takes the cancelled timer's slot
		assert.True(t, n.TimerPending(reused))
		assert.False(t, n.TimerPending(cancelled), "a new timer in its slot does not revive it")
	})
	require.NoError(t, w.RunFor(2*time.Second).Err)
	assert.False(t, n.TimerPending(fired), "a fired timer is not pending")
}

// TestCancelledTimersDoNotFillTheQueue re-arms a long timeout on every
// message, the election-timer pattern: the cancelled entries must not pile
// up in the queue until the queue limit stops the run.
func TestCancelledTimersDoNotFillTheQueue(t *testing.T) {
	w := sim.New(sim.Config{Limits: sim.Limits{Queue: 5000}})
	timeouts := 0
	w.AddNode("n", func(n *sim.Node) {
		var timeout sim.TimerID
		var beat func()
		beat = func() {
			n.CancelTimer(timeout)
			timeout = n.SetTimer(time.Hour, func() { timeouts++ })
			n.SetTimer(time.Millisecond, beat)
		}
		beat()
	})
	res := w.RunFor(100 * time.Second) // 100k cancelled hour-long timers
	require.NoError(t, res.Err)
	assert.Zero(t, timeouts)
	assert.Equal(t, uint64(100_001), res.Events)
}

func TestCancelTimerOfAPausedNode(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("n", nil)
	fired := 0
	var id sim.TimerID
	w.At(0, func() {
		id = n.SetTimer(time.Second, func() { fired++ })
		n.SetTimer(time.Second, func() { fired += 10 })
		n.Pause(3 * time.Second)
	})
	w.At(sim.Time(2*time.Second), func() { assert.True(t, n.CancelTimer(id), "a timer waiting for the resume cancels") })
	require.NoError(t, w.RunFor(5*time.Second).Err)
	assert.Equal(t, 10, fired, "only the other timer fires, at the resume")
}

func TestCrashedNodeHasNoTimers(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("n", nil)
	fired := 0
	w.At(0, func() { n.SetTimer(time.Second, func() { fired++ }) })
	w.At(sim.Time(100*time.Millisecond), func() {
		n.Crash()
		assert.Equal(t, sim.TimerID{}, n.SetTimer(0, func() { fired += 10 }), "a crashed node sets no timer")
	})
	w.At(sim.Time(200*time.Millisecond), n.Restart)
	require.NoError(t, w.RunFor(5*time.Second).Err)
	assert.Zero(t, fired, "no timer outlives the crash, not even into the next incarnation")
}

// TestTimersBeyondAnyTimeNeverFire: a timer too far away to represent
// saturates instead of wrapping around and firing at once.
func TestTimersBeyondAnyTimeNeverFire(t *testing.T) {
	for _, drift := range []float64{0, -0.5, 0.999} {
		w := sim.New(sim.Config{})
		n := w.AddNode("n", nil)
		fired := 0
		w.At(sim.Time(time.Second), func() {
			n.SetDrift(drift)
			n.SetTimer(math.MaxInt64, func() { fired++ })
			n.SetTimer(math.MaxInt64-n.Now()+1, func() { fired++ })
		})
		res := w.RunFor(23 * time.Hour)
		require.NoError(t, res.Err, "drift %v", drift)
		assert.Zero(t, fired, "drift %v", drift)
		if drift < 0 {
			assert.Equal(t, sim.Never, n.TrueTimeOf(math.MaxInt64), "drift %v", drift)
		}
		assert.GreaterOrEqual(t, n.MonoAt(sim.Never), n.Now(), "drift %v: MonoAt saturates", drift)
	}
}

// TestRunUntilNeverEndsWhenOnlyNeverIsLeft: events due at Never never run,
// so a run to Never ends at the last real event instead of reporting the
// duration limit.
func TestRunUntilNeverEndsWhenOnlyNeverIsLeft(t *testing.T) {
	w := sim.New(sim.Config{})
	fired := 0
	w.At(sim.Time(time.Second), func() { w.After(math.MaxInt64, func() { fired++ }) })
	res := w.RunUntil(sim.Never)
	require.NoError(t, res.Err)
	assert.Zero(t, fired)
	assert.Equal(t, sim.Time(time.Second), res.Now)
	assert.Equal(t, sim.Never, sim.Time(5).Add(math.MaxInt64), "Add saturates")
	assert.Equal(t, sim.Time(math.MinInt64), sim.Time(-5).Add(math.MinInt64), "Add saturates")
}

func TestPauseDefersEventsInOrder(t *testing.T) {
	link := sim.LinkConfig{Latency: sim.FixedDist(10 * time.Millisecond)}
	w := sim.New(sim.Config{Link: &link})
	var got []string
	b := w.AddNode("b", func(n *sim.Node) {
		n.Handle(func(_ sim.NodeID, p any) { got = append(got, p.(string)) })
		n.SetTimer(50*time.Millisecond, func() { got = append(got, "timer") })
	})
	a := w.AddNode("a", nil)
	w.At(0, func() { b.Pause(time.Second) })
	w.At(sim.Time(30*time.Millisecond), func() { a.Send(b.ID(), "m1") })
	w.At(sim.Time(60*time.Millisecond), func() { a.Send(b.ID(), "m2") })
	w.At(sim.Time(500*time.Millisecond), func() {
		b.Pause(100 * time.Millisecond) // shorter than what is left: no effect
		assert.Equal(t, sim.Paused, b.State())
	})
	w.At(sim.Time(999*time.Millisecond), func() { assert.Empty(t, got, "a paused node processes nothing") })
	require.NoError(t, w.RunFor(2*time.Second).Err)
	assert.Equal(t, []string{"m1", "timer", "m2"}, got, "events wait for the resume and keep their order")
}

func TestPauseThenCrashDropsWhatWaited(t *testing.T) {
	link := sim.LinkConfig{Latency: sim.FixedDist(10 * time.Millisecond)}
	w := sim.New(sim.Config{Link: &link, Trace: sim.TraceConfig{Keep: 1 << 10}})
	got := 0
	b := w.AddNode("b", func(n *sim.Node) { n.Handle(func(sim.NodeID, any) { got++ }) })
	a := w.AddNode("a", nil)
	w.At(0, func() { b.Pause(time.Second) })
	w.At(sim.Time(10*time.Millisecond), func() { a.Send(b.ID(), "lost") })
	w.At(sim.Time(500*time.Millisecond), b.Crash)
	w.At(sim.Time(600*time.Millisecond), b.Restart)
	w.At(sim.Time(700*time.Millisecond), func() { a.Send(b.ID(), "kept") })
	require.NoError(t, w.RunFor(2*time.Second).Err)
	assert.Equal(t, 1, got)
	assert.Equal(t, 1, drops(w)[sim.DropCrashed])
	assert.Zero(t, w.Network().InFlight(a.ID(), b.ID()))
}

func TestWorldCalls(t *testing.T) {
	w := sim.New(sim.Config{Seed: 9})
	var order []int
	w.After(-time.Second, func() { order = append(order, 1) }) // negative counts as now
	w.At(0, func() { order = append(order, 2) })
	w.After(time.Millisecond, func() {
		order = append(order, 3)
		assert.PanicsWithValue(t, "sim: At(0s) is in the past (now 1ms)", func() { w.At(0, func() {}) })
	})
	require.True(t, w.Step())
	require.True(t, w.Step())
	assert.Equal(t, []int{1, 2}, order)
	require.NoError(t, w.RunUntil(sim.Never).Err)
	assert.Equal(t, []int{1, 2, 3}, order)
	assert.False(t, w.Step(), "nothing left")
	assert.Equal(t, uint64(9), w.Seed())
	assert.Equal(t, uint64(3), w.Events())
}

func TestNodesAndLookup(t *testing.T) {
	w := sim.New(sim.Config{})
	a := w.AddNode("a", nil)
	b := w.AddNode("b", nil)
	got, ok := w.Lookup("b")
	require.True(t, ok)
	assert.Same(t, b, got)
	_, ok = w.Lookup("c")
	assert.False(t, ok)
	assert.Equal(t, []*sim.Node{a, b}, w.Nodes())
	assert.Same(t, a, w.Node(0))
	assert.Same(t, w, a.World())
	assert.Equal(t, "b", b.Name())
	assert.Equal(t, sim.NodeID(1), b.ID())
	assert.PanicsWithValue(t, `sim: AddNode: duplicate node name "a"`, func() { w.AddNode("a", nil) })
	assert.NotEqual(t, a.Now(), b.Now(), "monotonic clocks start at different origins")
	assert.Equal(t, []string{"up", "paused", "crashed"}, []string{sim.Up.String(), sim.Paused.String(), sim.Crashed.String()})
}

func TestSetDriftRejectsImpossibleClocks(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("n", nil)
	for _, d := range []float64{-1, -2, 1.0001, math.NaN(), math.Inf(1)} {
		assert.Panics(t, func() { n.SetDrift(d) }, "drift %v", d)
	}
	n.SetDrift(1)
	assert.Equal(t, int64(1_000_000_000), n.DriftPPB())
	n.SetDrift(-0.25)
	assert.Equal(t, int64(-250_000_000), n.DriftPPB())
}

// counter is a Callback with state of its own.
type counter struct{ runs int }

func (c *counter) Run() { c.runs++ }

func TestSetTimerCallback(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("n", nil)
	c := &counter{}
	w.At(0, func() {
		n.SetTimerCallback(time.Second, c)
		id := n.SetTimerCallback(time.Second, c)
		n.CancelTimer(id)
	})
	require.NoError(t, w.RunFor(2*time.Second).Err)
	assert.Equal(t, 1, c.runs, "the callback runs once for the timer that was not cancelled")
}

// SetTimerVia runs the function through the host's wrapper when the timer
// fires, late after a pause, and never once the timer was cancelled.
func TestSetTimerViaWrapsTheRun(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("n", nil)
	var log []string
	via := func(f func()) {
		log = append(log, "via")
		f()
	}
	w.At(0, func() {
		n.SetTimerVia(time.Second, func() { log = append(log, "fired at "+w.Now().String()) }, via)
		cancelled := n.SetTimerVia(time.Second, func() { log = append(log, "cancelled fired") }, via)
		n.CancelTimer(cancelled)
		n.SetTimerVia(2*time.Second, func() { log = append(log, "direct") }, nil)
	})
	w.At(sim.Time(500*time.Millisecond), func() { n.Pause(time.Second) })
	require.NoError(t, w.RunFor(3*time.Second).Err)
	assert.Equal(t, []string{"via", "fired at 1.5s", "direct"}, log)
}

// A timer re-timed by a drift change keeps its place among the timers due
// at the same instant, whatever slots the kernel gave them: B's slot is
// A's cancelled neighbour's, lower than A's, and A was set first.
func TestDriftKeepsTheOrderOfTimersDueTogether(t *testing.T) {
	for _, drift := range []float64{0, 0.01} {
		w := sim.New(sim.Config{})
		var got []string
		w.AddNode("n", func(n *sim.Node) {
			x := n.SetTimer(time.Second, func() { got = append(got, "x") })
			n.SetTimer(time.Second, func() { got = append(got, "a") })
			n.CancelTimer(x)
			n.SetTimer(time.Second, func() { got = append(got, "b") })
		})
		w.At(sim.Time(time.Millisecond), func() {
			n, _ := w.Lookup("n")
			n.SetDrift(drift)
		})
		require.NoError(t, w.RunFor(time.Minute).Err)
		assert.Equal(t, []string{"a", "b"}, got, "drift %v", drift)
	}
}
