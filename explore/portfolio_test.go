package explore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/scenarios"
)

// storyHost is a host of one named scenario with no faults of its own.
// Each run reaches behaviour reach(run) once (nothing when it returns a
// negative index), and violates P1 when violates is set.
type storyHost struct {
	name     string
	reach    func(run int) int
	violates bool
	runs     int
}

func (h *storyHost) Names() (string, string) { return h.name, "fake" }

func (h *storyHost) Run(in explore.Input) (explore.Run, error) {
	h.runs++
	run := explore.Run{Schedule: faults.Schedule{Version: faults.Version}, Hash: in.Seed, Spec: "lease-store"}
	if i := h.reach(h.runs); i >= 0 {
		run.Coverage[i] = 1
	}
	if h.violates {
		run.Violated = &checker.Result{Property: "P1", Name: "exclusivity", Status: checker.Violated}
	}
	return run, nil
}

func (h *storyHost) Vocabulary() (explore.Vocabulary, error) {
	return explore.Vocabulary{Nodes: []string{"n1"}, Targets: []string{"n1"}}, nil
}

func (h *storyHost) Shrink(in explore.Input, target checker.Result, _ int) (explore.Shrunk, error) {
	return explore.Shrunk{Schedule: in.Schedule, Target: target, Hash: 11, Runs: 1}, nil
}

// same reaches the first behaviour on every run: new only once.
func same(int) int { return 0 }

// Several scenarios explored together: the primary takes every other run
// until each scenario has run once, each step and input names its
// scenario, and without a failure the result names them all.
func TestPortfolioFirstPass(t *testing.T) {
	hosts := []explore.Host{&storyHost{name: "a", reach: same}, &storyHost{name: "b", reach: same},
		&storyHost{name: "c", reach: same}, &storyHost{name: "d", reach: same}}
	r, err := explore.Explore(explore.Config{Hosts: hosts, Seed: 1, Budget: 6})
	require.NoError(t, err)
	var order []string
	for _, st := range r.Steps {
		order = append(order, st.Scenario)
	}
	assert.Equal(t, []string{"a", "b", "a", "c", "a", "d"}, order)
	assert.Equal(t, []string{"a", "b", "c", "d"}, r.Scenarios)
	assert.Equal(t, "a,b,c,d", r.Scenario)
	assert.Nil(t, r.Failure)
	require.Len(t, r.Corpus, 4, "each scenario's first run reached something new to it")
	assert.Equal(t, "a", r.Corpus[0].Scenario)
	assert.Equal(t, []string{checker.Behaviours()[0].Name}, r.Steps[0].New)
	assert.Empty(t, r.Steps[1].New, "a behaviour another scenario reached first is not new to the search")
}

// The primary takes every other run throughout; of the other scenarios,
// one whose runs keep reaching something new is run more than those that
// stopped.
func TestPortfolioFavoursNovelty(t *testing.T) {
	n := len(checker.Behaviours())
	primary := &storyHost{name: "primary", reach: same}
	novel := &storyHost{name: "novel", reach: func(run int) int { return run % n }}
	flat := []*storyHost{{name: "flat1", reach: same}, {name: "flat2", reach: same}}
	_, err := explore.Explore(explore.Config{Hosts: []explore.Host{primary, flat[0], novel, flat[1]}, Seed: 2, Budget: 100})
	require.NoError(t, err)
	assert.Equal(t, 50, primary.runs)
	for _, f := range flat {
		assert.Greater(t, novel.runs, 2*f.runs, "novel ran %d times, %s %d", novel.runs, f.name, f.runs)
	}
}

// The failure of one scenario's run is shrunk by that scenario's host, and
// the result names that scenario.
func TestPortfolioFailure(t *testing.T) {
	hosts := []explore.Host{&storyHost{name: "a", reach: same}, &storyHost{name: "b", reach: same, violates: true}}
	r, err := explore.Explore(explore.Config{Hosts: hosts, Seed: 1, Budget: 10})
	require.NoError(t, err)
	require.NotNil(t, r.Failure)
	assert.Equal(t, 2, r.Failure.Run, "b's first run, after the primary's")
	assert.Equal(t, "b", r.Scenario)
	assert.Equal(t, "b", r.Failure.Input.Scenario)
	assert.Equal(t, uint64(11), r.Failure.Hash, "b's host shrank it")
}

// On the event host, a story that takes a bug's path on most seeds finds
// it early beside swarm, the same way for the same explorer seed: the
// partition-heal story and mutant/expiry-from-receipt.
func TestPortfolioEventHost(t *testing.T) {
	impl := mutant(t, "mutant/expiry-from-receipt")
	var hosts []explore.Host
	for _, name := range []string{"swarm", "partition-heal"} {
		sc, err := scenarios.Lookup(name)
		require.NoError(t, err)
		h, err := explore.EventHost(sc, impl)
		require.NoError(t, err)
		hosts = append(hosts, h)
	}
	cfg := explore.Config{Hosts: hosts, Seed: 1, Budget: 20, ShrinkAttempts: 20}
	a, err := explore.Explore(cfg)
	require.NoError(t, err)
	b, err := explore.Explore(cfg)
	require.NoError(t, err)
	require.NotNil(t, a.Failure, "found within 20 runs")
	assert.Equal(t, a.Steps, b.Steps)
	assert.Equal(t, a.Failure, b.Failure)
	assert.Equal(t, "partition-heal", a.Scenario)
	assert.Contains(t, a.Replay("s.json"), "--scenario partition-heal")
}
