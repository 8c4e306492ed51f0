package sweep_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/sweep"
)

// fakeHost judges seeds by a rule, as a host in worker processes would:
// seeds divisible by 3 violate P1 on scenario "b", seed 7 diverges under
// verification, seed 11 leaks, and seed 13 is a harness failure when
// broken is set.
type fakeHost struct {
	broken bool
	runs   atomic.Int64
}

func (h *fakeHost) Impl() string { return "fake/lock" }

func (h *fakeHost) Run(_ context.Context, scenario string, seed uint64, verify bool) (sweep.HostRun, error) {
	h.runs.Add(1)
	if h.broken && seed == 13 {
		return sweep.HostRun{}, errors.New("the worker wrote nothing")
	}
	p1 := checker.Result{Property: "P1", Name: "exclusivity", Status: checker.OK}
	if scenario == "b" && seed%3 == 0 {
		p1.Status, p1.Summary = checker.Violated, "two holders at once"
	}
	hr := sweep.HostRun{Judgement: checker.Judgement{Checks: []checker.Result{p1},
		Metrics: checker.Metrics{Runs: 1, Acquisitions: int(seed), NotApplicable: map[string]string{"renewals": "not recorded"}}},
		Spec: "cas-record", SimTime: time.Duration(seed) * time.Second, TraceHash: fmt.Sprintf("%016x", seed),
		Replay: fmt.Sprintf("simrun replay --impl fake/lock --scenario %s --seed %d", scenario, seed)}
	if verify && seed == 7 {
		hr.Failed = append(hr.Failed, sweep.HostFailure{Property: sweep.PropertyDeterminism, Detail: "diverged at event 3"})
	}
	if seed == 11 {
		hr.Failed = append(hr.Failed, sweep.HostFailure{Property: sweep.PropertyHost, Detail: "a goroutine outlived c1"},
			sweep.HostFailure{Property: sweep.PropertyHost, Detail: "a goroutine outlived c2"}) // one run, counted once
	}
	return hr, nil
}

// TestHostSweepIsASweep: a Host's runs are numbered, sharded, aggregated
// and merged like the event host's: shards merge into the whole sweep,
// failures carry the host's replay line and pseudo-properties, the
// summary names the host's implementation and what coverage cannot
// reach, and --rerun-failures' seed sets re-run exactly the failures.
func TestHostSweepIsASweep(t *testing.T) {
	cfg := sweep.Config{Host: &fakeHost{}, HostScenarios: []string{"a", "b"}, Seeds: sweep.Seeds{First: 1, Last: 12},
		Parallel: 3, VerifyDeterminism: true}
	whole, err := sweep.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, "fake/lock", whole.Impl)
	assert.Equal(t, []string{"a", "b"}, whole.Scenarios)
	assert.Equal(t, 24, whole.Runs)
	assert.Equal(t, sweep.SeedSetOf(3, 6, 9, 12), whole.ByProperty["P1"]["b"])
	assert.Equal(t, sweep.SeedSetOf(7), whole.ByProperty[sweep.PropertyDeterminism]["a"])
	assert.Equal(t, sweep.SeedSetOf(11), whole.ByProperty[sweep.PropertyHost]["b"])
	assert.Equal(t, "simrun replay --impl fake/lock --scenario a --seed 7", whole.Failures[0].Replay)
	assert.Equal(t, "fake/lock", whole.Failures[0].Impl)
	assert.Contains(t, whole.CoverageNotApplicable, "acquire-granted", "a cas-record store cannot reach leasesim's protocol's behaviours")
	assert.Equal(t, 2*78, whole.Metrics.Acquisitions, "metrics aggregate")
	assert.Equal(t, "not recorded", whole.Metrics.NotApplicable["renewals"])

	merged, err := sweep.Merge(shardSummaries(t, cfg, 2)...)
	require.NoError(t, err)
	assert.Equal(t, stable(t, whole), stable(t, merged))

	failing := sweep.FailingRuns(whole)
	rerunHost := &fakeHost{}
	rerun, err := sweep.Run(context.Background(), sweep.Config{Host: rerunHost, HostScenarios: failing.Scenarios,
		ScenarioSeeds: failing.Seeds, Seeds: failing.Seeds[0], VerifyDeterminism: true})
	require.NoError(t, err)
	assert.Equal(t, whole.Failed(), rerun.Runs)
	assert.Equal(t, int64(whole.Failed()), rerunHost.runs.Load(), "exactly the failing runs")
	assert.Equal(t, whole.ByProperty, rerun.ByProperty)
}

// A host's error is the harness's: it stops the sweep with the run named,
// never becomes a verdict.
func TestHostErrorStopsTheSweep(t *testing.T) {
	cfg := sweep.Config{Host: &fakeHost{broken: true}, HostScenarios: []string{"a"}, Seeds: sweep.Seeds{First: 1, Last: 20}, Parallel: 2}
	s, err := sweep.Run(context.Background(), cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "scenario a seed 13: the worker wrote nothing")
	assert.True(t, s.Partial)
	assert.Empty(t, s.ByProperty["error"])
}

// A Host names its scenarios in HostScenarios, each once.
func TestHostSweepBadConfig(t *testing.T) {
	for _, cfg := range []sweep.Config{
		{Host: &fakeHost{}, Seeds: sweep.Seeds{First: 1, Last: 2}},
		{Host: &fakeHost{}, HostScenarios: []string{"a", "a"}, Seeds: sweep.Seeds{First: 1, Last: 2}},
	} {
		_, err := sweep.Run(context.Background(), cfg)
		assert.ErrorIs(t, err, sweep.ErrInvalid)
	}
}
