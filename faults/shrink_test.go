package faults_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/sim"
)

var shrinkNodes = []string{"n1", "n2", "n3"}

// busySchedule has at least one event of every kind but bridge, with
// paired faults and their ends.
func busySchedule() faults.Schedule {
	s := time.Second
	link := sim.LinkConfig{Latency: sim.UniformDist(50*time.Millisecond, 800*time.Millisecond), Loss: 0.1, Duplicate: 0.05}
	return faults.Schedule{Version: faults.Version, HealAt: 60 * s, Events: []faults.Event{
		{At: 1 * s, Kind: faults.KindPartition, Groups: [][]string{{"n1"}, {"n2", "n3"}}},
		{At: 2 * s, Kind: faults.KindDrift, Node: "n3", Drift: 0.02},
		{At: 3 * s, Kind: faults.KindCrash, Node: "n2"},
		{At: 4 * s, Kind: faults.KindHeal},
		{At: 5 * s, Kind: faults.KindLink, From: "n1", To: faults.AnyNode, Link: &link},
		{At: 6 * s, Kind: faults.KindPause, Node: "n3", Duration: 2 * s},
		{At: 7 * s, Kind: faults.KindRestart, Node: "n2"},
		{At: 8 * s, Kind: faults.KindStep, Node: "n1", Step: -4 * s},
		{At: 10 * s, Kind: faults.KindPause, Node: "n1", Duration: 9 * s},
		{At: 11 * s, Kind: faults.KindIsolate, Node: "n1"},
		{At: 12 * s, Kind: faults.KindDrift, Node: "n3"},
		{At: 13 * s, Kind: faults.KindLinkReset},
		{At: 14 * s, Kind: faults.KindPartitionOneWay, From: "n2", To: "n3"},
		{At: 19 * s, Kind: faults.KindHeal},
		{At: 20 * s, Kind: faults.KindFailpoint, Node: "n2", Failpoint: "before-write", Action: faults.ActionPause, Duration: 6 * s},
		{At: 21 * s, Kind: faults.KindFailpoint, Node: "n3", Failpoint: "before-write", Action: faults.ActionCrash},
	}}
}

// has reports whether s has an event for which match holds.
func has(s faults.Schedule, match func(e faults.Event) bool) bool {
	for _, e := range s.Events {
		if match(e) {
			return true
		}
	}
	return false
}

// windowOf returns how long the first event of kind opener on node lasts
// before the first later event of kind closer, or until heal_at.
func windowOf(s faults.Schedule, opener, closer faults.Kind, node string) (time.Duration, bool) {
	for i, e := range s.Events {
		if e.Kind != opener || e.Node != node {
			continue
		}
		end := s.HealAt
		for _, c := range s.Events[i+1:] {
			if c.Kind == closer && c.At > e.At {
				end = min(end, c.At)
			}
		}
		return end - e.At, true
	}
	return 0, false
}

func TestShrinkFindsTheCulprit(t *testing.T) {
	tests := []struct {
		name  string
		fails func(faults.Schedule) bool
		check func(t *testing.T, got faults.Schedule)
	}{{
		name: "a pause on n1 longer than 3s shrinks to that pause at 3s",
		fails: func(s faults.Schedule) bool {
			return has(s, func(e faults.Event) bool {
				return e.Kind == faults.KindPause && e.Node == "n1" && e.Duration > 3*time.Second
			})
		},
		check: func(t *testing.T, got faults.Schedule) {
			require.Len(t, got.Events, 1)
			assert.Equal(t, faults.KindPause, got.Events[0].Kind)
			assert.InDelta(t, 3*time.Second, got.Events[0].Duration, float64(faults.DefaultShrinkResolution))
			assert.Greater(t, got.Events[0].Duration, 3*time.Second)
		},
	}, {
		name: "a crash alone does not need its restart",
		fails: func(s faults.Schedule) bool {
			return has(s, func(e faults.Event) bool { return e.Kind == faults.KindCrash })
		},
		check: func(t *testing.T, got faults.Schedule) {
			require.Len(t, got.Events, 1)
			assert.Equal(t, faults.Event{At: 3 * time.Second, Kind: faults.KindCrash, Node: "n2"}, got.Events[0])
		},
	}, {
		name: "a restart keeps its crash, and comes right after it",
		fails: func(s faults.Schedule) bool {
			return has(s, func(e faults.Event) bool { return e.Kind == faults.KindRestart && e.Node == "n2" })
		},
		check: func(t *testing.T, got faults.Schedule) {
			require.Len(t, got.Events, 2)
			assert.Equal(t, faults.KindCrash, got.Events[0].Kind)
			assert.Equal(t, faults.KindRestart, got.Events[1].Kind)
			assert.Equal(t, got.Events[0].At+1, got.Events[1].At, "the window closes as early as it can")
		},
	}, {
		name: "an isolation of 2s to 10s keeps its heal, moved to 2s after it",
		fails: func(s faults.Schedule) bool {
			w, ok := windowOf(s, faults.KindIsolate, faults.KindHeal, "n1")
			return ok && w >= 2*time.Second && w <= 10*time.Second
		},
		check: func(t *testing.T, got faults.Schedule) {
			require.Len(t, got.Events, 2)
			assert.Equal(t, faults.KindIsolate, got.Events[0].Kind)
			assert.Equal(t, faults.KindHeal, got.Events[1].Kind)
			w := got.Events[1].At - got.Events[0].At
			assert.InDelta(t, 2*time.Second, w, float64(faults.DefaultShrinkResolution))
			assert.GreaterOrEqual(t, w, 2*time.Second)
		},
	}, {
		name: "a drift beyond 0.5% shrinks to 0.5%",
		fails: func(s faults.Schedule) bool {
			return has(s, func(e faults.Event) bool { return e.Kind == faults.KindDrift && e.Drift > 0.005 })
		},
		check: func(t *testing.T, got faults.Schedule) {
			require.Len(t, got.Events, 1)
			assert.InDelta(t, 0.005, got.Events[0].Drift, 1e-5)
			assert.Greater(t, got.Events[0].Drift, 0.005)
		},
	}, {
		name: "a backward step keeps its sign",
		fails: func(s faults.Schedule) bool {
			return has(s, func(e faults.Event) bool { return e.Kind == faults.KindStep && e.Step <= -time.Second })
		},
		check: func(t *testing.T, got faults.Schedule) {
			require.Len(t, got.Events, 1)
			assert.InDelta(t, -time.Second, got.Events[0].Step, float64(faults.DefaultShrinkResolution))
		},
	}, {
		name: "a slow link loses its loss and duplication and slows down only as needed",
		fails: func(s faults.Schedule) bool {
			return has(s, func(e faults.Event) bool {
				return e.Kind == faults.KindLink && e.Link.Latency.Max >= 100*time.Millisecond
			})
		},
		check: func(t *testing.T, got faults.Schedule) {
			require.Len(t, got.Events, 1)
			l := got.Events[0].Link
			assert.Zero(t, l.Loss)
			assert.Zero(t, l.Duplicate)
			assert.InDelta(t, 100*time.Millisecond, l.Latency.Max, float64(faults.DefaultShrinkResolution))
			assert.LessOrEqual(t, l.Latency.Min, l.Latency.Max)
		},
	}, {
		name:  "a failure that needs no fault shrinks to the empty schedule",
		fails: func(faults.Schedule) bool { return true },
		check: func(t *testing.T, got faults.Schedule) { assert.Empty(t, got.Events) },
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := busySchedule()
			require.NoError(t, orig.Validate(shrinkNodes))
			require.True(t, tt.fails(orig), "the predicate must hold on the original")
			got, stats := faults.Shrink(orig, tt.fails, faults.ShrinkOptions{Nodes: shrinkNodes})
			require.NoError(t, got.Validate(shrinkNodes))
			assert.True(t, tt.fails(got), "the result still fails")
			assert.False(t, stats.Exhausted, "%d attempts", stats.Attempts)
			assert.Equal(t, busySchedule(), orig, "the input is not changed")
			tt.check(t, got)
		})
	}
}

func TestShrinkIsBoundedAndDeterministic(t *testing.T) {
	calls := 0
	fails := func(s faults.Schedule) bool {
		calls++
		return len(s.Events) >= 3
	}
	got, stats := faults.Shrink(busySchedule(), fails, faults.ShrinkOptions{Nodes: shrinkNodes, MaxAttempts: 4})
	assert.Equal(t, 4, calls)
	assert.Equal(t, 4, stats.Attempts)
	assert.True(t, stats.Exhausted)
	assert.GreaterOrEqual(t, len(got.Events), 3)
	require.NoError(t, got.Validate(shrinkNodes))

	again, _ := faults.Shrink(busySchedule(), fails, faults.ShrinkOptions{Nodes: shrinkNodes, MaxAttempts: 4})
	assert.Equal(t, got, again)
}

func TestShrinkSkipsInvalidCandidates(t *testing.T) {
	// Removing the restart would leave the later pause of n2 acting on a
	// crashed node, which Validate rejects, so the predicate never sees it.
	s := faults.Schedule{Version: faults.Version, HealAt: 30 * time.Second, Events: []faults.Event{
		{At: time.Second, Kind: faults.KindCrash, Node: "n2"},
		{At: 2 * time.Second, Kind: faults.KindRestart, Node: "n2"},
		{At: 3 * time.Second, Kind: faults.KindPause, Node: "n2", Duration: time.Second},
	}}
	fails := func(c faults.Schedule) bool {
		require.NoError(t, c.Validate(shrinkNodes), "only valid candidates are tried")
		return has(c, func(e faults.Event) bool { return e.Kind == faults.KindPause }) &&
			has(c, func(e faults.Event) bool { return e.Kind == faults.KindCrash })
	}
	got, _ := faults.Shrink(s, fails, faults.ShrinkOptions{Nodes: shrinkNodes})
	require.Len(t, got.Events, 3)
	assert.Equal(t, faults.DefaultShrinkResolution, got.Events[2].Duration)
}

// Property: whatever event a failure hinges on, the result validates, still
// fails, and keeps at most that event and the one it ends.
func TestShrinkKeepsOnlyWhatFails(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nem := faults.Nemesis{
			Targets: shrinkNodes, Partitionable: shrinkNodes, FaultsPerMinute: 20, Phase: time.Minute,
			Boundaries: []time.Duration{time.Second}, Rho: 0.01, PauseMax: 5 * time.Second,
			DelayMax: time.Second, StepMax: 5 * time.Second, Failpoints: []string{"before-write"},
		}
		seed := rapid.Uint64().Draw(t, "seed")
		s := nem.Draw(rand.New(rand.NewPCG(seed, seed)))
		if len(s.Events) == 0 {
			t.Skip("empty draw")
		}
		target := s.Events[rapid.IntRange(0, len(s.Events)-1).Draw(t, "target")]
		fails := func(c faults.Schedule) bool {
			return has(c, func(e faults.Event) bool { return e.Kind == target.Kind && e.Node == target.Node })
		}
		got, stats := faults.Shrink(s, fails, faults.ShrinkOptions{Nodes: shrinkNodes})
		require.NoError(t, got.Validate(shrinkNodes))
		require.True(t, fails(got))
		require.LessOrEqual(t, len(got.Events), 2, "%v", got)
		require.LessOrEqual(t, stats.Attempts, faults.DefaultShrinkAttempts)
	})
}

// Shrink cuts a schedule down to the faults a failure needs. Here the
// failure needs n1 to pause for more than 3s; everything else goes. The
// run showed the failure at 7s, so Shrink first tries without the heal at
// 9s.
func ExampleShrink() {
	s := faults.Schedule{Version: faults.Version, HealAt: 40 * time.Second, Events: []faults.Event{
		{At: 1 * time.Second, Kind: faults.KindCrash, Node: "n2"},
		{At: 2 * time.Second, Kind: faults.KindPause, Node: "n1", Duration: 8 * time.Second},
		{At: 5 * time.Second, Kind: faults.KindRestart, Node: "n2"},
		{At: 6 * time.Second, Kind: faults.KindIsolate, Node: "n1"},
		{At: 9 * time.Second, Kind: faults.KindHeal},
	}}
	fails := func(c faults.Schedule) bool {
		for _, e := range c.Events {
			if e.Kind == faults.KindPause && e.Node == "n1" && e.Duration > 3*time.Second {
				return true
			}
		}
		return false
	}
	got, stats := faults.Shrink(s, fails, faults.ShrinkOptions{Nodes: []string{"n1", "n2"}, Observed: 7 * time.Second})
	fmt.Println(got)
	fmt.Println(len(s.Events), "events ->", len(got.Events), "in", stats.Attempts, "attempts")
	// Output:
	// 2s pause n1 for 3.000625s
	// 40s heal phase
	// 5 events -> 1 in 36 attempts
}
