package sim_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// ticker returns a boot function that re-arms a timer of every forever,
// fanning out to fan timers per firing (fan 1 is a plain periodic timer).
func ticker(every time.Duration, fan int) func(*sim.Node) {
	return func(n *sim.Node) {
		var tick func()
		tick = func() {
			for range fan {
				n.SetTimer(every, tick)
			}
		}
		n.SetTimer(every, tick)
	}
}

// TestLimitsAreReported: every bound a run can reach stops it with a
// *LimitError naming the bound, at the right place; nothing is silently cut.
func TestLimitsAreReported(t *testing.T) {
	tests := []struct {
		name    string
		limits  sim.Limits
		boot    func(*sim.Node)
		run     time.Duration
		want    sim.Limit // "" means no limit is reached
		wantNow sim.Time
		events  uint64 // checked when non-zero
	}{
		{"events", sim.Limits{Events: 100}, ticker(time.Millisecond, 1), time.Hour, sim.LimitEvents, 99 * sim.Time(time.Millisecond), 100},
		{"exactly the event budget is not a limit", sim.Limits{Events: 11}, ticker(100*time.Millisecond, 1), time.Second, "", sim.Time(time.Second), 11},
		{"queue", sim.Limits{Queue: 1000}, ticker(time.Millisecond, 2), time.Hour, sim.LimitQueue, -1, 0},
		{"duration with events pending", sim.Limits{Duration: time.Second}, ticker(300*time.Millisecond, 1), time.Hour, sim.LimitDuration, sim.Time(time.Second), 0},
		{"duration with an empty queue", sim.Limits{Duration: time.Second}, nil, 2 * time.Second, sim.LimitDuration, sim.Time(time.Second), 0},
		{"within every bound", sim.Limits{Duration: time.Second}, ticker(300*time.Millisecond, 1), time.Second, "", sim.Time(time.Second), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := sim.New(sim.Config{Limits: tc.limits})
			w.AddNode("n", tc.boot)
			res := w.RunFor(tc.run)
			if tc.want == "" {
				require.NoError(t, res.Err)
			} else {
				var lim *sim.LimitError
				require.ErrorAs(t, res.Err, &lim)
				assert.Equal(t, tc.want, lim.Limit)
				assert.Equal(t, res.Now, lim.At)
				assert.Contains(t, res.Err.Error(), string(tc.want)+" limit")
				again := w.RunFor(time.Second)
				assert.Equal(t, res.Err, again.Err, "a stopped run stays stopped")
				assert.Equal(t, res.Now, again.Now)
			}
			if tc.wantNow >= 0 {
				assert.Equal(t, tc.wantNow, res.Now)
			}
			if tc.events > 0 {
				assert.Equal(t, tc.events, res.Events)
			}
		})
	}
}

func TestFaultLimitIsReported(t *testing.T) {
	w := sim.New(sim.Config{Limits: sim.Limits{Faults: 3}})
	n := w.AddNode("n", nil)
	for i := range 5 {
		w.At(sim.Time(i)*sim.Time(time.Second), func() { n.StepWall(time.Second) })
	}
	res := w.RunFor(time.Minute)
	var lim *sim.LimitError
	require.ErrorAs(t, res.Err, &lim)
	assert.Equal(t, sim.LimitFaults, lim.Limit)
	assert.Len(t, w.Faults(), 3)
}

func TestStopEndsTheRunWithItsReason(t *testing.T) {
	w := sim.New(sim.Config{})
	w.AddNode("n", ticker(time.Millisecond, 1))
	done := errors.New("scenario done")
	w.At(sim.Time(time.Second), func() { w.Stop(done) })
	res := w.RunFor(time.Hour)
	require.ErrorIs(t, res.Err, done)
	assert.Equal(t, sim.Time(time.Second), res.Now)
	assert.False(t, w.Step(), "a stopped world steps no more")
}
