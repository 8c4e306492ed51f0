package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
)

// longSchedule has n pauses, one a second from 1s, round-robin over
// shrinkNodes, each drift-free and 100ms long except where culprits say:
// a swarm-sized schedule in which a failure needs only a few events.
func longSchedule(n int) faults.Schedule {
	s := faults.Schedule{Version: faults.Version, HealAt: time.Duration(n+10) * time.Second}
	for i := range n {
		s.Events = append(s.Events, faults.Event{At: time.Duration(i+1) * time.Second, Kind: faults.KindPause,
			Node: shrinkNodes[i%len(shrinkNodes)], Duration: 100 * time.Millisecond})
	}
	return s
}

// at returns the events' times.
func at(s faults.Schedule) []time.Duration {
	var out []time.Duration
	for _, e := range s.Events {
		out = append(out, e.At)
	}
	return out
}

// needs is a predicate that fails iff every event at the given times is
// present, and records the candidates it saw.
func needs(seen *[]faults.Schedule, times ...time.Duration) func(faults.Schedule) bool {
	return func(s faults.Schedule) bool {
		*seen = append(*seen, s)
		for _, t := range times {
			if !has(s, func(e faults.Event) bool { return e.At == t }) {
				return false
			}
		}
		return true
	}
}

func TestShrinkCutsAfterTheObservedTime(t *testing.T) {
	sec := time.Second
	tests := []struct {
		name     string
		observed time.Duration
		needed   []time.Duration
		// firstLen is the size of the first candidate: the schedule
		// without the events after the observed time.
		firstLen int
		// attemptsMax bounds the search: delta debugging over 300 events
		// and shortening what is left.
		attemptsMax int
	}{
		{name: "two needed events before the failure", observed: 150 * sec, needed: []time.Duration{20 * sec, 140 * sec},
			firstLen: 150, attemptsMax: 45},
		{name: "an event at the observed time itself stays", observed: 150 * sec, needed: []time.Duration{150 * sec},
			firstLen: 150, attemptsMax: 30},
		{name: "a needed event after a wrong observed time is not dropped", observed: 100 * sec,
			needed: []time.Duration{20 * sec, 200 * sec}, firstLen: 100, attemptsMax: 55},
		{name: "no observed time: no cut, still minimal", needed: []time.Duration{20 * sec, 140 * sec},
			firstLen: -1, attemptsMax: 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []faults.Schedule
			fails := needs(&seen, tt.needed...)
			s := longSchedule(300)
			got, stats := faults.Shrink(s, fails, faults.ShrinkOptions{Nodes: shrinkNodes, Observed: tt.observed})
			require.NoError(t, got.Validate(shrinkNodes))
			assert.Equal(t, tt.needed, at(got), "exactly the needed events")
			assert.LessOrEqual(t, stats.Attempts, tt.attemptsMax)
			assert.False(t, stats.Exhausted)
			require.NotEmpty(t, seen)
			t.Logf("%d attempts", stats.Attempts)
			if tt.firstLen >= 0 {
				assert.Len(t, seen[0].Events, tt.firstLen, "the first attempt cuts after %v", tt.observed)
			}
		})
	}
}

func TestShrinkRemovesWholeGroups(t *testing.T) {
	// A failure that needs every event on n1 and survives only removals
	// that keep a multiple of 30 events: n2's and n3's events as nodes.
	// Delta debugging's chunks are contiguous, so they take some of n1's
	// events or leave another count: only the group removals cut here.
	s := longSchedule(90)
	for i := range s.Events {
		if i%2 == 1 {
			s.Events[i].Kind, s.Events[i].Duration, s.Events[i].Step = faults.KindStep, 0, time.Second
		}
	}
	onN1 := func(c faults.Schedule) int {
		n := 0
		for _, e := range c.Events {
			if e.Node == "n1" {
				n++
			}
		}
		return n
	}
	var seen []faults.Schedule
	fails := func(c faults.Schedule) bool {
		seen = append(seen, c)
		return onN1(c) == 30 && len(c.Events)%30 == 0
	}
	got, stats := faults.Shrink(s, fails, faults.ShrinkOptions{Nodes: shrinkNodes})
	require.NoError(t, got.Validate(shrinkNodes))
	assert.False(t, stats.Exhausted)
	assert.Len(t, got.Events, 30, "%s", got)
	assert.Equal(t, 30, onN1(got), "only n1's events are left")
	var sizes []int
	for _, c := range seen[:min(5, len(seen))] {
		sizes = append(sizes, len(c.Events))
	}
	assert.Equal(t, []int{45, 45, 60, 60, 30}, sizes[:5],
		"without the pauses, the steps, n1's, n2's, then n3's events")
}

func TestShrinkRemovesBeforeItBisects(t *testing.T) {
	// The failure needs c's pause longer than 3s and a's pause, and b's
	// pause as long as a's lasts more than a millisecond. Bisecting c comes
	// first in time order and costs a dozen attempts; trying each magnitude
	// at its smallest first lets a shrink to a millisecond and b go within
	// a budget that bisection would spend on c.
	sec := time.Second
	s := longSchedule(12)
	for i := range s.Events {
		s.Events[i].Node, s.Events[i].Duration = "n3", 9*sec
	}
	c, a, b := sec, 2*sec, 3*sec
	pause := func(s faults.Schedule, at time.Duration) (time.Duration, bool) {
		for _, e := range s.Events {
			if e.At == at {
				return e.Duration, true
			}
		}
		return 0, false
	}
	fails := func(s faults.Schedule) bool {
		dc, okC := pause(s, c)
		da, okA := pause(s, a)
		_, okB := pause(s, b)
		return okC && dc > 3*sec && okA && (okB || da <= faults.DefaultShrinkResolution)
	}
	tests := []struct {
		name        string
		maxAttempts int
		check       func(t *testing.T, got faults.Schedule)
	}{
		{name: "within a tight budget, b is gone", maxAttempts: 25, check: func(t *testing.T, got faults.Schedule) {
			assert.Equal(t, []time.Duration{c, a}, at(got))
		}},
		{name: "given the attempts, c is bisected as well", check: func(t *testing.T, got faults.Schedule) {
			assert.Equal(t, []time.Duration{c, a}, at(got))
			dc, _ := pause(got, c)
			assert.InDelta(t, 3*sec, dc, float64(faults.DefaultShrinkResolution))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, stats := faults.Shrink(s, fails, faults.ShrinkOptions{Nodes: shrinkNodes, MaxAttempts: tt.maxAttempts})
			require.NoError(t, got.Validate(shrinkNodes))
			assert.True(t, fails(got))
			t.Logf("%d attempts: %s", stats.Attempts, got)
			tt.check(t, got)
		})
	}
}
