package sweep_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// two fast scenarios, for sweeps that take well under a second.
func fastScenarios() []scenarios.Scenario {
	return []scenarios.Scenario{scenarios.KleppmannGCPause(), scenarios.AsymmetricPartition()}
}

// stable returns s as JSON without the fields that depend on the wall
// clock and on how the sweep was run, and with its simulated seconds
// rounded (a float sum of rounded parts may differ in the last bit; the
// histograms' sums are exact).
func stable(t *testing.T, s sweep.Summary) string {
	t.Helper()
	s.WallSeconds, s.CPUSeconds, s.EventsPerSecond, s.RunsPerSecond, s.MeanAcceleration = 0, 0, 0, 0, 0
	s.Parallel = 0
	s.SimSeconds = math.Round(s.SimSeconds*1e6) / 1e6
	data, err := json.Marshal(s)
	require.NoError(t, err)
	return string(data)
}

// flaky is the correct implementation, except that on about half of the
// seeds its resource refuses to boot: a seed-dependent failure.
func flaky() lease.Impl {
	impl := lease.Correct()
	impl.Name = "test/flaky"
	newResource := impl.NewResource
	impl.NewResource = func(env lease.Env) (lease.Resource, error) {
		if env.Rand.Int64N(2) == 0 {
			return nil, errors.New("flaky resource refuses to boot")
		}
		return newResource(env)
	}
	return impl
}

func TestRunIsTheSameAtAnyParallelism(t *testing.T) {
	for _, impl := range []lease.Impl{lease.Correct(), flaky()} {
		t.Run(impl.Name, func(t *testing.T) {
			cfg := sweep.Config{Scenarios: fastScenarios(), Impl: impl, Seeds: sweep.Seeds{First: 1, Last: 16}}
			var sums []sweep.Summary
			for _, parallel := range []int{1, 4} {
				cfg.Parallel = parallel
				s, err := sweep.Run(context.Background(), cfg)
				require.NoError(t, err)
				assert.Equal(t, parallel, s.Parallel)
				sums = append(sums, s)
			}
			assert.Equal(t, stable(t, sums[0]), stable(t, sums[1]))
			s := sums[0]
			assert.Equal(t, 32, s.Runs)
			assert.Equal(t, 32, s.RunsExpected)
			assert.False(t, s.Partial)
			assert.Positive(t, s.Events)
			assert.Positive(t, s.SimSeconds)
			assert.Positive(t, s.MeanAcceleration)
			assert.Equal(t, []string{"kleppmann-gc-pause", "asymmetric-partition"}, s.Scenarios)
			if impl.Name == "correct" {
				assert.Equal(t, s.Runs, s.Metrics.Runs, "every run's metrics are in the total")
				assert.Positive(t, s.Metrics.Acquisitions)
				assert.Equal(t, s.Failover.Count(), int64(s.Metrics.Failovers))
			}
			assert.Equal(t, sweep.ScenarioCounts{Runs: 16, Failed: int(s.ByProperty["error"]["kleppmann-gc-pause"].Count())},
				s.PerScenario["kleppmann-gc-pause"])
		})
	}
}

func TestRunReportsFailuresInOrder(t *testing.T) {
	cfg := sweep.Config{Scenarios: fastScenarios(), Impl: flaky(), Seeds: sweep.Seeds{First: 1, Last: 20}, Parallel: 4}
	s, err := sweep.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.NotEmpty(t, s.Failures)
	assert.Less(t, len(s.Failures), 40, "about half the seeds fail")
	rank := map[string]int{"kleppmann-gc-pause": 0, "asymmetric-partition": 1}
	for i, f := range s.Failures {
		assert.Equal(t, []string{sweep.PropertyError}, f.Properties)
		assert.Contains(t, f.Detail, "refuses to boot")
		assert.Contains(t, f.Replay, "--impl test/flaky")
		if i > 0 {
			prev := s.Failures[i-1]
			assert.True(t, rank[prev.Scenario] < rank[f.Scenario] || prev.Scenario == f.Scenario && prev.Seed < f.Seed,
				"%v before %v", prev, f)
		}
	}
	var seeds int64
	for _, set := range s.ByProperty[sweep.PropertyError] {
		seeds += set.Count()
	}
	assert.Equal(t, int64(len(s.Failures)), seeds)
}

func TestRunShardRunsItsSeedsOnly(t *testing.T) {
	cfg := sweep.Config{Scenarios: fastScenarios(), Impl: flaky(), Seeds: sweep.Seeds{First: 1, Last: 20},
		Shard: sweep.Shard{Index: 2, Count: 3}}
	s, err := sweep.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.Equal(t, "2/3", s.Shard)
	assert.Equal(t, 2*7, s.Runs, "seeds 2, 5, ..., 20")
	for _, f := range s.Failures {
		assert.Equal(t, uint64(2), f.Seed%3, "seed %d is not shard 2/3's", f.Seed)
	}
}

func TestRunVerifiesDeterminism(t *testing.T) {
	cfg := sweep.Config{Scenarios: fastScenarios()[:1], Seeds: sweep.Seeds{First: 1, Last: 4}, VerifyDeterminism: true}
	s, err := sweep.Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.True(t, s.VerifyDeterminism)
	assert.Equal(t, 4, s.Runs)
	assert.Empty(t, s.ByProperty[sweep.PropertyDeterminism])
}

func TestRunTurnsAPanicIntoAFailure(t *testing.T) {
	impl := lease.Correct()
	impl.Name = "test/panics"
	impl.NewResource = func(lease.Env) (lease.Resource, error) { panic("resource: broken invariant") }
	s, err := sweep.Run(context.Background(), sweep.Config{Scenarios: fastScenarios()[:1], Impl: impl,
		Seeds: sweep.Seeds{First: 1, Last: 3}, Parallel: 2})
	require.NoError(t, err)
	require.Len(t, s.Failures, 3)
	// The runner may catch the panic itself and report it as a property;
	// either way the sweep goes on and the failure says what broke.
	assert.Contains(t, s.Failures[0].Properties, sweep.PropertyPanic)
	assert.Contains(t, s.Failures[0].Detail, "resource: broken invariant")
	assert.Equal(t, "simrun run --scenario kleppmann-gc-pause --seed 1 --impl test/panics", s.Failures[0].Replay)
	assert.Equal(t, "test/panics", s.Failures[0].Impl)
}

func TestRunInterrupted(t *testing.T) {
	t.Run("before it starts", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		s, err := sweep.Run(ctx, sweep.Config{Scenarios: fastScenarios(), Seeds: sweep.Seeds{First: 1, Last: 50}})
		require.NoError(t, err)
		assert.True(t, s.Partial)
		assert.Zero(t, s.Runs)
		assert.Equal(t, 100, s.RunsExpected)
		assert.NotNil(t, s.Failures, "JSON says [] rather than null")
	})
	t.Run("midway", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done, failed := 0, 0
		progress := func(p sweep.Progress) {
			done, failed = p.Done, p.Failed
			assert.Equal(t, 100, p.Total)
			if p.Done == 10 {
				cancel()
			}
		}
		s, err := sweep.Run(ctx, sweep.Config{Scenarios: fastScenarios(), Impl: flaky(),
			Seeds: sweep.Seeds{First: 1, Last: 50}, Parallel: 3, Progress: progress})
		require.NoError(t, err)
		assert.True(t, s.Partial)
		assert.GreaterOrEqual(t, s.Runs, 10)
		assert.Less(t, s.Runs, 100)
		assert.Equal(t, done, s.Runs, "the summary covers exactly the runs that finished")
		assert.Equal(t, failed, len(s.Failures))
		perScenario := 0
		for _, c := range s.PerScenario {
			perScenario += c.Runs
		}
		assert.Equal(t, s.Runs, perScenario)
	})
	t.Run("after it ends", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := sweep.Run(ctx, sweep.Config{Scenarios: fastScenarios()[:1], Seeds: sweep.Seeds{First: 1, Last: 2},
			Progress: func(p sweep.Progress) {
				if p.Done == p.Total {
					cancel()
				}
			}})
		require.NoError(t, err)
		assert.False(t, s.Partial, "every run finished")
	})
}

func TestRunRejectsBadConfig(t *testing.T) {
	bad := scenarios.KleppmannGCPause()
	bad.Duration = 0
	tests := []struct {
		name    string
		cfg     sweep.Config
		wantErr string
	}{
		{"no scenarios", sweep.Config{Seeds: sweep.Seeds{First: 1, Last: 2}}, "no scenarios"},
		{"a scenario twice", sweep.Config{Scenarios: append(fastScenarios(), scenarios.KleppmannGCPause()),
			Seeds: sweep.Seeds{First: 1, Last: 2}}, `"kleppmann-gc-pause" is listed twice`},
		{"an invalid scenario", sweep.Config{Scenarios: []scenarios.Scenario{bad}}, "duration"},
		{"seeds reversed", sweep.Config{Scenarios: fastScenarios(), Seeds: sweep.Seeds{First: 5, Last: 2}}, "below the first"},
		{"shard out of range", sweep.Config{Scenarios: fastScenarios(), Shard: sweep.Shard{Index: 3, Count: 2}}, "shard 3/2"},
		{"negative parallel", sweep.Config{Scenarios: fastScenarios(), Parallel: -1}, "parallel"},
		{"too many runs", sweep.Config{Scenarios: fastScenarios(), Seeds: sweep.Seeds{First: 0, Last: sweep.MaxRuns - 1}}, "exceed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sweep.Run(context.Background(), tt.cfg)
			require.ErrorIs(t, err, sweep.ErrInvalid)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

// A harness bug stops the sweep with an error, never a verdict on the
// implementation.
func TestRunStopsAtAHarnessBug(t *testing.T) {
	disarm := scenarios.InjectHarnessFault()
	defer disarm()
	s, err := sweep.Run(context.Background(), sweep.Config{Scenarios: fastScenarios()[:1], Seeds: sweep.Seeds{First: 1, Last: 20}, Parallel: 2})
	var hp *scenarios.HarnessPanic
	require.ErrorAs(t, err, &hp)
	assert.Contains(t, err.Error(), "scenario kleppmann-gc-pause seed")
	assert.True(t, s.Partial)
	assert.Empty(t, s.Failures, "nothing is blamed on the implementation")
}
