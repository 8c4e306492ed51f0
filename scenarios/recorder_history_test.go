package scenarios

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/sim"
)

// A run's history does not depend on the runs before it in the process:
// the same run, before and after a larger one, records the same history.
func TestEarlierRunsLeaveNoTrace(t *testing.T) {
	history := func(sc Scenario, seed uint64) []byte {
		out, err := Execute(sc, seed, Options{})
		require.NoError(t, err)
		return historyJSON(t, out.History)
	}
	small := ThunderingHerd()
	small.Contenders = 3
	want := history(small, 1)
	big := history(Swarm(), 2)
	for range 3 {
		require.Equal(t, want, history(small, 1))
	}
	assert.Equal(t, big, history(Swarm(), 2))
	// A registry run's sightings and registrations, after a run that left
	// its tables.
	reg := history(ServiceRegistry(), 1)
	history(ServiceRegistry(), 2)
	assert.Equal(t, reg, history(ServiceRegistry(), 1))
}

// historyJSON returns h as JSON, with its operations.
func historyJSON(t *testing.T, h *history.History) []byte {
	t.Helper()
	j, err := json.Marshal(struct {
		*history.History
		Ops []history.Operation
	}{h, h.CopyOps()})
	require.NoError(t, err)
	return j
}

// The beliefs a run's history is built with are checked as they are built:
// one whose last act falls outside it panics, naming the invariant.
func TestBeliefsAreCheckedWhenBuilt(t *testing.T) {
	w := sim.New(sim.Config{})
	n := w.AddNode("h1", nil)
	tracker := newBeliefTracker(w, &history.History{})
	tracker.appendBelief(n, history.BeliefInterval{Holder: "h1", Resource: "r", Token: 1, Start: 5, LastAct: 6, End: 7})
	assert.NotPanics(t, func() { tracker.finish(nil) })

	tracker = newBeliefTracker(w, &history.History{})
	tracker.appendBelief(n, history.BeliefInterval{Holder: "h1", Resource: "r", Token: 1, Start: 5, LastAct: 9, End: 7})
	assert.PanicsWithValue(t, `scenarios: invariant belief-span-ordered: h1 "r" token 1: start 5, last act 9, end 7`,
		func() { tracker.finish(nil) })
}
