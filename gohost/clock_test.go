package gohost_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
)

// clockSchedule runs n1 5% fast from 500ms, steps its wall clock 10s
// forward at 3s, halves its rate at 5s, and heals (drift back to 0) at 8s.
var clockSchedule = faults.Schedule{Version: faults.Version, HealAt: 8 * time.Second, Events: []faults.Event{
	{At: 500 * time.Millisecond, Kind: faults.KindDrift, Node: "n1", Drift: 0.05},
	{At: 3 * time.Second, Kind: faults.KindStep, Node: "n1", Step: 10 * time.Second},
	{At: 5 * time.Second, Kind: faults.KindDrift, Node: "n1", Drift: -0.5},
}}

// sleepUntil sleeps (on the bubble's clock) until true time at since base.
func sleepUntil(base time.Time, at time.Duration) { time.Sleep(at - time.Since(base)) }

// The node's monotonic clock reads, in true time τ since the start:
// τ until 500ms; 0.5s + 1.05(τ-0.5s) until 5s (5.225s there); then
// 5.225s + 0.5(τ-5s) until the heal at 8s (6.725s); then 6.725s + (τ-8s).
// Its wall clock adds the 10s step from 3s on.
func TestClockDriftAndStep(t *testing.T) {
	type obs struct {
		now1s, now4s, now9s  time.Duration // clock.Now() - start, at τ = 1s, 4s, 9s
		bubble1s             time.Duration // time.Now() - start at τ = 1s
		timerAt, timerValue  time.Duration // 1s timer started at τ = 1s: when it fired, what it sent
		funcAt               time.Duration // 1s AfterFunc from τ = 2.5s, across the step
		retimedAt            time.Duration // 2s timer from τ = 4s, across the drift change at 5s
		sinceAcrossStep      time.Duration // clock.Since(reading at 1s), read at 4s
		otherNow, otherTrue  time.Duration // n2 (no clock fault): clock.Now() and time.Now() at 1s
		stoppedOK, stoppedRx bool          // Stop before firing: true, and nothing received
	}
	var o obs
	cfg := gohost.Config{Duration: 10 * time.Second, Schedule: clockSchedule, Verify: true, Nodes: []gohost.NodeSpec{
		{Name: "n1", Run: func(ctx context.Context, n *gohost.Node) error {
			c := n.Clock()
			start := time.Now()
			sleepUntil(start, time.Second)
			r1 := c.Now()
			o.now1s, o.bubble1s = r1.Sub(start), time.Since(start)
			tm := c.NewTimer(time.Second)
			v := <-tm.C()
			o.timerAt, o.timerValue = time.Since(start), v.Sub(start)
			stop := c.NewTimer(100 * time.Millisecond)
			o.stoppedOK = stop.Stop()
			sleepUntil(start, 2500*time.Millisecond)
			fired := make(chan time.Duration, 1)
			c.AfterFunc(time.Second, func() { fired <- time.Since(start) })
			o.funcAt = <-fired
			select {
			case <-stop.C():
				o.stoppedRx = true
			default:
			}
			sleepUntil(start, 4*time.Second)
			o.now4s, o.sinceAcrossStep = c.Now().Sub(start), c.Since(r1)
			<-c.After(2 * time.Second)
			o.retimedAt = time.Since(start)
			sleepUntil(start, 9*time.Second)
			o.now9s = c.Now().Sub(start)
			<-ctx.Done()
			return nil
		}},
		{Name: "n2", Run: func(ctx context.Context, n *gohost.Node) error {
			start := time.Now()
			sleepUntil(start, time.Second)
			o.otherNow, o.otherTrue = n.Clock().Now().Sub(start), time.Since(start)
			<-ctx.Done()
			return nil
		}},
	}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	assert.Equal(t, "verified", res.Level.String())
	assert.Equal(t, obs{
		now1s:    1025 * time.Millisecond,
		bubble1s: time.Second,
		// 1s on a clock 5% fast: the earliest true d with d + ⌊0.05d⌋ ≥ 1s.
		timerAt: time.Second + 952380953, timerValue: 2025 * time.Millisecond,
		// The step does not move a timer: 1s of the monotonic clock from 2.5s.
		funcAt: 2500*time.Millisecond + 952380953,
		// 4.175s+2s is reached 0.95s/0.5 after 5s, less 1ns: sim's clock
		// truncates a slow clock's loss toward zero (d - ⌊d/2⌋).
		retimedAt:       6900*time.Millisecond - 1,
		now4s:           14175 * time.Millisecond,
		sinceAcrossStep: 13150 * time.Millisecond, // readings are wall readings: the step shows
		now9s:           17725 * time.Millisecond,
		otherNow:        time.Second, otherTrue: time.Second,
		stoppedOK: true,
	}, o)
	// The clock faults are in the trace as faults, and the note says they
	// applied to Node.Clock only.
	var faultsSeen []string
	for _, e := range res.Events {
		if e.Kind == "fault" {
			faultsSeen = append(faultsSeen, e.Detail)
		}
	}
	want := make([]string, len(clockSchedule.Events))
	notes := make([]string, len(clockSchedule.Events))
	for i, e := range clockSchedule.Events {
		want[i] = e.String()
		notes[i] = e.String() + ": applied to Node.Clock only (node n1's code used it); time.Now and package time's timers read the bubble's one clock"
	}
	assert.Equal(t, want, faultsSeen)
	assert.Equal(t, notes, res.NotApplied)
}

// A node that never reads Node.Clock is told the clock faults did not
// apply to anything it read.
func TestClockNotUsedNote(t *testing.T) {
	cfg := gohost.Config{Duration: 10 * time.Second, Schedule: clockSchedule, Nodes: []gohost.NodeSpec{
		{Name: "n1", Run: func(ctx context.Context, n *gohost.Node) error { <-ctx.Done(); return nil }},
		{Name: "n2", Run: func(ctx context.Context, n *gohost.Node) error {
			n.Clock().Now() // another node's use says nothing about n1
			<-ctx.Done()
			return nil
		}},
	}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	notes := make([]string, len(clockSchedule.Events))
	for i, e := range clockSchedule.Events {
		notes[i] = e.String() + ": not applied to anything node n1's code read: it never used Node.Clock, and time.Now reads the bubble's one clock"
	}
	assert.Equal(t, notes, res.NotApplied)
}

// Tickers tick on the node's monotonic clock (twice as fast here: every
// 500ms of true time for a 1s period); Reset changes the period, Stop ends
// the ticks; timers of a crashed life never fire, and drift survives the
// crash (the clock is the node's hardware).
func TestClockTickerAndCrash(t *testing.T) {
	var ticks []time.Duration
	var afterRestart time.Duration
	var lateFire bool
	s := faults.Schedule{Version: faults.Version, HealAt: 9 * time.Second, Events: []faults.Event{
		{At: 500 * time.Millisecond, Kind: faults.KindDrift, Node: "n1", Drift: 1},
		{At: 5 * time.Second, Kind: faults.KindCrash, Node: "n1"},
		{At: 6 * time.Second, Kind: faults.KindRestart, Node: "n1"},
	}}
	cfg := gohost.Config{Duration: 10 * time.Second, Schedule: s, Nodes: []gohost.NodeSpec{
		{Name: "n1", Run: func(ctx context.Context, n *gohost.Node) error {
			c := n.Clock()
			start := time.Now()
			if n.Incarnation() == 2 {
				// From 6s (mono 11.5s): 1s of the clock running 2x is 500ms.
				<-c.After(time.Second)
				afterRestart = time.Since(start)
				<-ctx.Done()
				return nil
			}
			sleepUntil(start, time.Second)
			tk := c.NewTicker(time.Second)
			for len(ticks) < 3 {
				ticks = append(ticks, (<-tk.C()).Sub(start)) // the node's readings
			}
			tk.Reset(2 * time.Second)
			<-tk.C()
			ticks = append(ticks, time.Since(start)) // true time: 2.5s + 1s
			tk.Stop()
			c.AfterFunc(4*time.Second, func() { lateFire = true }) // due at 3.5s+2s: the crash at 5s comes first
			<-ctx.Done()
			return nil
		}},
	}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	// Readings: mono(1s) = 0.5s + 2*0.5s = 1.5s; ticks every 1s of it.
	assert.Equal(t, []time.Duration{2500 * time.Millisecond, 3500 * time.Millisecond, 4500 * time.Millisecond,
		3500 * time.Millisecond}, ticks)
	assert.Equal(t, 500*time.Millisecond, afterRestart)
	assert.False(t, lateFire, "a crashed life's AfterFunc does not run")
}

// A client that pings on its own drifting ticker: the drift shapes the
// traffic, so the trace (and its hash) shows it, deterministically.
func TestClockDeterministicHash(t *testing.T) {
	cfg := func(drift float64) gohost.Config {
		s := faults.Schedule{Version: faults.Version, HealAt: 4 * time.Second, Events: []faults.Event{
			{At: 100 * time.Millisecond, Kind: faults.KindDrift, Node: "cli", Drift: drift}}}
		return gohost.Config{Duration: 5 * time.Second, Schedule: s, Verify: true, Latency: gohostPareto,
			Nodes: []gohost.NodeSpec{
				{Name: "srv", Run: func(ctx context.Context, n *gohost.Node) error {
					return serve(ctx, n, "srv:9", func(string) string { return "pong" })
				}},
				{Name: "cli", Run: func(ctx context.Context, n *gohost.Node) error {
					c, err := n.Dial(ctx, "tcp", "srv:9")
					if err != nil {
						return err
					}
					defer c.Close()
					tk := n.Clock().NewTicker(200 * time.Millisecond)
					defer tk.Stop()
					buf := make([]byte, 5)
					for {
						select {
						case <-ctx.Done():
							return nil
						case <-tk.C():
						}
						if _, err := c.Write([]byte("ping\n")); err != nil {
							return nil
						}
						if _, err := c.Read(buf); err != nil {
							return nil
						}
					}
				}},
			}}
	}
	fast := gohost.Run(t, cfg(0.25), 3)
	require.NoError(t, fast.Err())
	assert.Equal(t, "verified", fast.Level.String())
	plain := gohost.Run(t, cfg(0), 3)
	require.NoError(t, plain.Err())
	delivered := func(r gohost.Result) (n int) {
		for _, e := range r.Events {
			if e.Kind == "deliver" && e.Node == "cli" {
				n++
			}
		}
		return n
	}
	// 0.1s + 3.9s*1.25 = 4.975s of clock by the heal, then 1s: 29 ticks;
	// 24 at the true rate (5s / 200ms, the last one at the end).
	assert.Equal(t, 29, delivered(fast), "pings sent on a clock 25%% fast")
	assert.Equal(t, 24, delivered(plain))
	assert.NotEqual(t, plain.Hash, fast.Hash)
	assert.Equal(t, uint64(0xd5f0f851e8411ed9), fast.Hash, "golden hash of seed 3 (%d events)", len(fast.Events))
}

// Local copies of k8s.io/utils/clock's WithTickerAndDelayedExecution and
// clockwork's Clock (the core module imports neither). The adapters a zoo
// module writes are the few lines below: Timer and Ticker fit both as
// they are, only the methods that return them need forwarding.
type (
	k8sTimer interface {
		C() <-chan time.Time
		Stop() bool
		Reset(d time.Duration) bool
	}
	k8sTicker interface {
		C() <-chan time.Time
		Stop()
	}
	k8sClock interface {
		Now() time.Time
		Since(time.Time) time.Duration
		After(d time.Duration) <-chan time.Time
		NewTimer(d time.Duration) k8sTimer
		Sleep(d time.Duration)
		Tick(d time.Duration) <-chan time.Time
		NewTicker(time.Duration) k8sTicker
		AfterFunc(d time.Duration, f func()) k8sTimer
	}
	cwTimer interface {
		Chan() <-chan time.Time
		Reset(d time.Duration) bool
		Stop() bool
	}
	cwTicker interface {
		Chan() <-chan time.Time
		Reset(d time.Duration)
		Stop()
	}
	cwClock interface {
		After(d time.Duration) <-chan time.Time
		Sleep(d time.Duration)
		Now() time.Time
		Since(t time.Time) time.Duration
		Until(t time.Time) time.Duration
		NewTicker(d time.Duration) cwTicker
		NewTimer(d time.Duration) cwTimer
		AfterFunc(d time.Duration, f func()) cwTimer
	}
)

type k8sAdapter struct{ gohost.Clock }

func (a k8sAdapter) NewTimer(d time.Duration) k8sTimer            { return a.Clock.NewTimer(d) }
func (a k8sAdapter) NewTicker(d time.Duration) k8sTicker          { return a.Clock.NewTicker(d) }
func (a k8sAdapter) AfterFunc(d time.Duration, f func()) k8sTimer { return a.Clock.AfterFunc(d, f) }

type cwAdapter struct{ gohost.Clock }

func (a cwAdapter) NewTimer(d time.Duration) cwTimer            { return a.Clock.NewTimer(d) }
func (a cwAdapter) NewTicker(d time.Duration) cwTicker          { return a.Clock.NewTicker(d) }
func (a cwAdapter) AfterFunc(d time.Duration, f func()) cwTimer { return a.Clock.AfterFunc(d, f) }

var (
	_ k8sClock = k8sAdapter{}
	_ cwClock  = cwAdapter{}
)

// Through either adapter, a node 25% fast sees a 1s timer fire after 800ms.
func TestClockAdapters(t *testing.T) {
	var k8sAt, cwAt time.Duration
	s := faults.Schedule{Version: faults.Version, HealAt: 4 * time.Second, Events: []faults.Event{
		{At: 100 * time.Millisecond, Kind: faults.KindDrift, Node: "n", Drift: 0.25}}}
	cfg := gohost.Config{Duration: 5 * time.Second, Schedule: s, Nodes: []gohost.NodeSpec{
		{Name: "n", Run: func(ctx context.Context, n *gohost.Node) error {
			start := time.Now()
			sleepUntil(start, time.Second)
			var k k8sClock = k8sAdapter{n.Clock()}
			<-k.NewTimer(time.Second).C()
			k8sAt = time.Since(start)
			var c cwClock = cwAdapter{n.Clock()}
			<-c.NewTimer(time.Second).Chan()
			cwAt = time.Since(start)
			<-ctx.Done()
			return nil
		}},
	}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	assert.Equal(t, 1800*time.Millisecond, k8sAt)
	assert.Equal(t, 2600*time.Millisecond, cwAt)
}
