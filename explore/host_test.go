package explore_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/faults"
)

// fakeHost is a host with no nemesis of its own: its fresh draws pause n1,
// and any fault on n2 violates P1 unless harmless. It keeps every input it
// ran.
type fakeHost struct {
	ran      []explore.Input
	harmless bool
}

func (f *fakeHost) Names() (string, string) { return "story", "fake" }

func (f *fakeHost) Run(in explore.Input) (explore.Run, error) {
	f.ran = append(f.ran, in)
	s := in.Schedule
	if s.Version == 0 {
		s = faults.Schedule{Version: faults.Version, HealAt: 10 * time.Second, Events: []faults.Event{
			{At: time.Duration(in.Seed%9) * time.Second, Kind: faults.KindPause, Node: "n1", Duration: time.Second}}}
	}
	var run explore.Run
	run.Schedule, run.Hash, run.Spec = s, in.Seed, "lease-store"
	run.Coverage[in.Seed%3] = uint64(len(s.Events))
	if !f.harmless && slices.ContainsFunc(s.Events, func(e faults.Event) bool { return e.Node == "n2" }) {
		run.Violated = &checker.Result{Property: "P1", Name: "exclusivity", Status: checker.Violated}
	}
	return run, nil
}

func (f *fakeHost) Vocabulary() (explore.Vocabulary, error) {
	return explore.Vocabulary{Nodes: []string{"n1", "n2"}, Targets: []string{"n1", "n2"}, Failpoints: []string{"on-reply"},
		Boundaries: []time.Duration{5 * time.Second}, PauseMax: 15 * time.Second}, nil
}

func (f *fakeHost) Shrink(in explore.Input, target checker.Result, _ int) (explore.Shrunk, error) {
	s := in.Schedule
	s.Events = slices.DeleteFunc(slices.Clone(s.Events), func(e faults.Event) bool { return e.Node != "n2" })
	return explore.Shrunk{Schedule: s, Target: target, Hash: 7, Runs: 1}, nil
}

// A search runs on any Host: the same explorer seed gives the same
// inputs, mutations use only the host's vocabulary (its nodes), a host
// without a nemesis here lends add its own fresh draws, and the failure
// is the host's shrink of the first violating input.
func TestExploreOnAHost(t *testing.T) {
	a, b := &fakeHost{}, &fakeHost{}
	ra, err := explore.Explore(explore.Config{Host: a, Seed: 5, Budget: 200})
	require.NoError(t, err)
	_, err = explore.Explore(explore.Config{Host: b, Seed: 5, Budget: 200})
	require.NoError(t, err)
	assert.Equal(t, a.ran, b.ran, "the same explorer seed gives the same inputs")

	assert.Equal(t, "story", ra.Scenario)
	assert.Equal(t, "fake", ra.Impl)
	require.NotNil(t, ra.Failure, "a mutation moves a fault to n2 within 200 runs")
	f := ra.Failure
	assert.Equal(t, ra.Runs, f.Run)
	assert.Equal(t, a.ran[f.Run-1].Seed, f.Input.Seed)
	assert.Equal(t, "P1", f.Violated.Property)
	assert.Equal(t, uint64(7), f.Hash, "the host's shrink")
	require.NotEmpty(t, f.Shrunk.Events)
	for _, in := range a.ran {
		for _, e := range in.Schedule.Events {
			assert.Contains(t, []string{"n1", "n2"}, e.Node, "only the vocabulary's nodes")
		}
	}
	mutated := slices.ContainsFunc(ra.Steps, func(s explore.Step) bool { return s.Origin != "draw" })
	assert.True(t, mutated, "some runs were mutations")
	assert.NotContains(t, ra.NotApplicable, "acquire-granted", "behaviours apply by the first run's spec")
	assert.Contains(t, ra.NotApplicable, "checkpoint-accepted", "the first run ran no checkpointed tasks")
}

// Without a nemesis here, add takes its events from the fresh draws the
// host made: over 100 runs of a host where nothing fails, add applies
// (a step's origin names only the mutations that applied).
func TestAddTakesTheHostsDraws(t *testing.T) {
	r, err := explore.Explore(explore.Config{Host: &fakeHost{harmless: true}, Seed: 1, Budget: 100})
	require.NoError(t, err)
	require.Nil(t, r.Failure)
	added := slices.ContainsFunc(r.Steps, func(s explore.Step) bool { return strings.Contains(s.Origin, "add") })
	assert.True(t, added, "add takes events from the host's draws: %v", r.Steps)
}
