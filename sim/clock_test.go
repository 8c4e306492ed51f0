package sim_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sim"
)

// driftChange is one drift fault: at true time At the node's drift becomes
// Drift.
type driftChange struct {
	At    sim.Time
	Drift float64
}

// drawDriftChanges draws up to 8 drift changes within [-rho, rho]. Gaps
// between changes range from 1 ns (so that clock segments shorter than a
// rounding step occur) to a second.
func drawDriftChanges(t *rapid.T, rho float64) []driftChange {
	gap := rapid.OneOf(rapid.Int64Range(1, 10), rapid.Int64Range(1, int64(time.Second)))
	var changes []driftChange
	at := sim.Time(0)
	for i := range rapid.IntRange(0, 8).Draw(t, "changes") {
		at += sim.Time(gap.Draw(t, "gap"))
		drift := rapid.Float64Range(-rho, rho).Draw(t, "drift")
		if i%2 == 1 && rapid.Bool().Draw(t, "extreme") {
			drift = rho // the bound itself, or its negation
			if rapid.Bool().Draw(t, "negative") {
				drift = -rho
			}
		}
		changes = append(changes, driftChange{At: at, Drift: drift})
	}
	return changes
}

// driftWorld returns a world with one node whose drift follows changes, run
// to just after the last change.
func driftWorld(t require.TestingT, changes []driftChange) (*sim.World, *sim.Node) {
	w := sim.New(sim.Config{Seed: 1})
	n := w.AddNode("clock", nil)
	for _, c := range changes {
		w.At(c.At, func() { n.SetDrift(c.Drift) })
	}
	end := sim.Time(0)
	if len(changes) > 0 {
		end = changes[len(changes)-1].At
	}
	require.NoError(t, w.RunUntil(end+1).Err)
	return w, n
}

// TestClockDriftWithinRho: while drift stays within rho, the monotonic clock
// measures any true interval with a relative error of at most rho, plus at
// most one nanosecond of rounding per clock segment the interval overlaps.
func TestClockDriftWithinRho(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rho := rapid.Float64Range(1e-6, 0.5).Draw(t, "rho")
		changes := drawDriftChanges(t, rho)
		_, n := driftWorld(t, changes)
		horizon := int64(10 * time.Second)
		for range 20 {
			t1 := sim.Time(rapid.Int64Range(0, horizon).Draw(t, "t1"))
			t2 := t1 + sim.Time(rapid.Int64Range(0, horizon).Draw(t, "elapsed"))
			elapsed := float64(t2 - t1)
			local := float64(n.MonoAt(t2) - n.MonoAt(t1))
			segments := 1
			for _, c := range changes {
				if c.At > t1 && c.At <= t2 {
					segments++
				}
			}
			bound := rho*elapsed + float64(segments)
			require.LessOrEqual(t, math.Abs(local-elapsed), bound,
				"true %v..%v: local elapsed %v, true elapsed %v, rho %v", t1, t2, local, elapsed, rho)
		}
	})
}

// TestClockStepMovesOnlyTheWallClock: a wall step changes the wall clock by
// exactly the step and leaves the monotonic clock alone; between steps the
// wall clock runs at the monotonic clock's rate.
func TestClockStepMovesOnlyTheWallClock(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := sim.New(sim.Config{Seed: rapid.Uint64().Draw(t, "seed")})
		n := w.AddNode("clock", nil)
		steps := rapid.SliceOfN(rapid.Int64Range(-int64(time.Hour), int64(time.Hour)), 1, 10).Draw(t, "steps")
		lastMono, lastWall := n.Now(), n.WallNow()
		require.Equal(t, sim.Epoch, lastWall, "the wall clock starts at Epoch")
		for i, step := range steps {
			w.At(sim.Time(i+1)*sim.Time(time.Second), func() {
				if i%2 == 1 {
					n.SetDrift(0.001 * float64(i))
				}
				mono, wall := n.Now(), n.WallNow()
				assert.Equal(t, mono-lastMono, wall.Sub(lastWall), "between steps the wall clock follows the monotonic clock")
				n.StepWall(time.Duration(step))
				assert.Equal(t, mono, n.Now(), "a step moved the monotonic clock")
				assert.Equal(t, time.Duration(step), n.WallNow().Sub(wall), "the wall clock moved by other than the step")
				lastMono, lastWall = n.Now(), n.WallNow()
			})
		}
		require.NoError(t, w.RunFor(time.Duration(len(steps)+1)*time.Second).Err)
	})
}

// TestTimersFireWhenTheLocalClockReachesTheirDeadline: under pauses and
// drift changes, a timer never fires before its node's monotonic clock
// reaches the deadline, and fires at the first true nanosecond at which it
// does, unless the node was paused then; a late timer fires exactly when its
// node resumes.
func TestTimersFireWhenTheLocalClockReachesTheirDeadline(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := sim.New(sim.Config{Seed: rapid.Uint64().Draw(t, "seed")})
		n := w.AddNode("timers", nil)
		ms := func(label string, hi int64) time.Duration {
			return time.Duration(rapid.Int64Range(0, hi*int64(time.Millisecond)).Draw(t, label))
		}
		fired, set := 0, 0
		for range rapid.IntRange(1, 20).Draw(t, "timers") {
			setAt, d := sim.Time(ms("set_at", 1000)), ms("d", 500)
			w.At(setAt, func() {
				set++
				due := n.Now() + d
				n.SetTimer(d, func() {
					fired++
					now := w.Now()
					require.GreaterOrEqual(t, n.Now(), due, "timer fired early in local time")
					if now > setAt && n.MonoAt(now-1) >= due {
						require.Contains(t, resumesOf(w, n), now, "timer fired late at %v without a resume", now)
					}
				})
			})
		}
		for range rapid.IntRange(0, 5).Draw(t, "pauses") {
			at, d := sim.Time(ms("pause_at", 1000)), ms("pause", 300)
			w.At(at, func() { n.Pause(d) })
		}
		for range rapid.IntRange(0, 5).Draw(t, "drifts") {
			at, drift := sim.Time(ms("drift_at", 1000)), rapid.Float64Range(-0.9, 1).Draw(t, "drift")
			w.At(at, func() { n.SetDrift(drift) })
		}
		require.NoError(t, w.RunFor(time.Minute).Err)
		require.Equal(t, set, fired, "every timer fires once")
	})
}

func resumesOf(w *sim.World, n *sim.Node) []sim.Time {
	var at []sim.Time
	for _, f := range w.Faults() {
		if f.Kind == sim.FaultResume && f.Node == n.Name() {
			at = append(at, f.At)
		}
	}
	return at
}

// TestTrueTimeOfInvertsMonoAt: TrueTimeOf(MonoAt(t)) is the earliest true
// time at which the clock read what it read at t: at most t, reading at
// least that value, and the nanosecond before it reads less. Slow clocks
// read the same value for several nanoseconds, and segments as short as
// 1 ns start on such flat stretches.
func TestTrueTimeOfInvertsMonoAt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		changes := drawDriftChanges(t, rapid.SampledFrom([]float64{1e-4, 0.5, 0.99}).Draw(t, "rho"))
		_, n := driftWorld(t, changes)
		times := []sim.Time{0, 1}
		for _, c := range changes {
			times = append(times, c.At-1, c.At, c.At+1)
		}
		for range rapid.IntRange(0, 20).Draw(t, "random_times") {
			times = append(times, sim.Time(rapid.Int64Range(0, int64(10*time.Second)).Draw(t, "t")))
		}
		for _, tt := range times {
			target := n.MonoAt(tt)
			got := n.TrueTimeOf(target)
			require.LessOrEqual(t, got, tt, "TrueTimeOf(MonoAt(%v))", tt)
			require.GreaterOrEqual(t, n.MonoAt(got), target, "the clock at %v reads below %v", got, target)
			if got > 0 {
				require.Less(t, n.MonoAt(got-1), target, "TrueTimeOf(MonoAt(%v)) = %v is not the earliest", tt, got)
			}
		}
	})
}
