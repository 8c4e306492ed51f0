package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/workload"
)

func examplePath(name string) string { return filepath.Join("..", "examples", name+".jsonl") }

// smallConfig tunes steady-batch over a 2×1×2 grid on seeds 1-2.
func smallConfig() Config {
	return Config{
		Workload: examplePath("steady-batch"),
		TTLs:     []time.Duration{2 * time.Second, 10 * time.Second},
		Renews:   []Renew{{Divisor: 3}}, Checkpoints: []Checkpoint{{EveryUnits: 2}, {}},
		Rho: DefaultRho, Margin: DefaultMargin, Seeds: sweep.Seeds{First: 1, Last: 2},
	}
}

// noisyWorkload has every kind of randomness a workload draws per seed:
// GC pauses, crashes, and unit times from a distribution.
func noisyWorkload(t testing.TB) workload.Opener {
	t.Helper()
	h := workload.Header{Version: workload.Version, Name: "noisy", Workers: 3, Duration: 10 * time.Minute,
		Env: workload.Env{Latency: ptr(sim.ParetoDist(time.Millisecond, 100*time.Millisecond, 1.5)), Loss: 0.001,
			GCPause:      &workload.GCPause{PerMinute: 2, P50: 20 * time.Millisecond, P99: 500 * time.Millisecond, Max: 2 * time.Second},
			CrashPerHour: 12, RestartAfter: 10 * time.Second}}
	var buf bytes.Buffer
	w, err := workload.NewWriter(&buf, h)
	require.NoError(t, err)
	dist := sim.UniformDist(100*time.Millisecond, 400*time.Millisecond)
	for i := range 40 {
		require.NoError(t, w.Write(workload.Event{Type: workload.TypeTask, At: time.Duration(i) * 15 * time.Second,
			ID: fmt.Sprintf("t%d", i+1), Units: 20, UnitTimeDist: &dist}))
	}
	require.NoError(t, w.Flush())
	return workload.Bytes(buf.Bytes())
}

// Common random numbers: every configuration meets the same faults at the
// same instants and the same unit times, because they are drawn from the
// seed alone.
func TestConfigsShareTheirRandomness(t *testing.T) {
	open := noisyWorkload(t)
	plan, err := workload.Inspect(open)
	require.NoError(t, err)
	configs := []lease.Config{
		{TTL: 2 * time.Second, RenewInterval: 2 * time.Second / 3, Rho: DefaultRho, Margin: DefaultMargin, CheckpointEveryUnits: 2},
		{TTL: 20 * time.Second, RenewInterval: time.Second, Rho: DefaultRho, Margin: DefaultMargin},
		{TTL: 5 * time.Second, RenewInterval: 5 * time.Second / 6, Rho: 0, Margin: 0, CheckpointInterval: 3 * time.Second},
	}
	for seed := uint64(1); seed <= 3; seed++ {
		var first *scenarios.Outcome
		for _, cfg := range configs {
			sc, err := plan.Scenario(open, cfg)
			require.NoError(t, err)
			out, err := scenarios.Execute(sc, seed, scenarios.Options{})
			require.NoError(t, err)
			require.Empty(t, out.Violated(), "seed %d, TTL %v", seed, cfg.TTL)
			require.NotEmpty(t, out.Schedule.Events, "the seed draws faults")
			if first == nil {
				first = out
				continue
			}
			assert.Equal(t, first.Schedule, out.Schedule, "seed %d, TTL %v: the same fault schedule", seed, cfg.TTL)
			require.Len(t, out.History.Tasks, len(first.History.Tasks))
			for i, task := range out.History.Tasks {
				want := first.History.Tasks[i]
				assert.Equal(t, []any{want.ID, want.Units, want.UnitTime, want.Arrival}, []any{task.ID, task.Units, task.UnitTime, task.Arrival},
					"seed %d, TTL %v: the same tasks", seed, cfg.TTL)
			}
		}
	}
}

// A tuning run's result depends only on its config: the same at any
// parallelism, apart from the wall-clock fields.
func TestRunIsDeterministic(t *testing.T) {
	encode := func(parallel int) string {
		cfg := smallConfig()
		cfg.Parallel = parallel
		res, err := Run(context.Background(), cfg, nil)
		require.NoError(t, err)
		res.WallSeconds, res.Parallel = 0, 0
		b, err := json.Marshal(res)
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, encode(1), encode(2))
}

func TestRunReportsInvalidConfigs(t *testing.T) {
	cfg := smallConfig()
	cfg.TTLs = []time.Duration{2 * time.Second, 150 * time.Millisecond}
	cfg.Renews = []Renew{{Interval: 1900 * time.Millisecond}, {Divisor: 1}}
	cfg.Checkpoints = []Checkpoint{{EveryUnits: 5}}
	var last Progress
	res, err := Run(context.Background(), cfg, func(p Progress) { last = p })
	require.NoError(t, err)
	require.Len(t, res.Configs, 4)
	want := []struct {
		label  string
		valid  bool
		reason string
	}{
		{"ttl=2s renew=1.9s checkpoint=5u", true, ""},
		{"ttl=2s renew=ttl/1 checkpoint=5u", false, "renew 2s >= TTL×(1−rho)−margin = 1.93s"},
		{"ttl=150ms renew=1.9s checkpoint=5u", false, "renew 1.9s >= TTL×(1−rho)−margin = 98.5ms"},
		{"ttl=150ms renew=ttl/1 checkpoint=5u", false, "renew 150ms >= TTL×(1−rho)−margin = 98.5ms"},
	}
	for i, w := range want {
		c := res.Configs[i]
		assert.Equal(t, w.label, c.Label)
		assert.Equal(t, w.valid, c.Valid, c.Label)
		if w.valid {
			assert.Empty(t, c.InvalidReason)
			assert.Equal(t, 2, c.Runs)
			continue
		}
		assert.Contains(t, c.InvalidReason, w.reason)
		assert.Zero(t, c.Runs, "an invalid config does not run")
		assert.False(t, c.Pareto || c.Feasible || c.Recommended)
		assert.Empty(t, c.Replay)
	}
	assert.Equal(t, 1, res.ValidConfigs)
	assert.Equal(t, 2, res.Runs)
	assert.Equal(t, Progress{Done: 2, Total: 2, Config: want[0].label, Seed: last.Seed}, last)
}

func TestRunReplayCommands(t *testing.T) {
	cfg := smallConfig()
	cfg.TTLs, cfg.Checkpoints = cfg.TTLs[:1], cfg.Checkpoints[:1]
	res, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, res.Configs, 1)
	assert.Equal(t, "simrun tune --workload ../examples/steady-batch.jsonl --ttl 2s --renew ttl/3 --checkpoint 2u "+
		"--rho 0.01 --margin 50ms --seeds 1-2", res.Configs[0].Replay)
	other := Result{Workload: "my workloads/it's.jsonl", Impl: "mutant/unfenced-resource"}
	assert.Equal(t, "simrun tune --workload 'my workloads/it'\\''s.jsonl' --ttl 2s --renew ttl/3 --checkpoint 2u --rho 0 "+
		"--margin 0s --seeds 7-7 --impl mutant/unfenced-resource", other.ReplayCommand(res.Configs[0], 7, 7))
}

func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Run(ctx, smallConfig(), nil)
	require.NoError(t, err)
	assert.True(t, res.Partial)
	assert.Nil(t, res.Recommended)
	assert.Equal(t, -1, res.RecommendedIndex)
	assert.Contains(t, res.Explanation, "interrupted")
	assert.Less(t, res.Runs, 8)
}

func TestRunBadInput(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
		is      error
	}{
		{"no workload", func(c *Config) { c.Workload = "" }, "workload: missing", ErrInvalid},
		{"missing workload", func(c *Config) { c.Workload = "/no/such/workload.jsonl" }, "/no/such/workload.jsonl", nil},
		{"bad workload", func(c *Config) {
			c.Open = workload.Bytes([]byte(`{"type":"header","version":1,"name":"x","workers":0}`))
		}, "line 1: header: workers: must be positive", workload.ErrInvalid},
		{"no TTLs", func(c *Config) { c.TTLs = nil }, "ttls: empty", ErrInvalid},
		{"zero TTL", func(c *Config) { c.TTLs = []time.Duration{0} }, "ttls: value 1: must be positive", ErrInvalid},
		{"no renews", func(c *Config) { c.Renews = nil }, "renews: empty", ErrInvalid},
		{"both renews", func(c *Config) { c.Renews = []Renew{{Interval: 1, Divisor: 3}} }, "renews: value 1", ErrInvalid},
		{"no checkpoints", func(c *Config) { c.Checkpoints = nil }, "checkpoints: empty", ErrInvalid},
		{"both checkpoints", func(c *Config) { c.Checkpoints = []Checkpoint{{EveryUnits: 1, Interval: 1}} }, "checkpoints: value 1", ErrInvalid},
		{"rho", func(c *Config) { c.Rho = 0.5 }, "rho: must lie in [0, 0.5)", ErrInvalid},
		{"margin", func(c *Config) { c.Margin = -1 }, "margin: must not be negative", ErrInvalid},
		{"parallel", func(c *Config) { c.Parallel = -1 }, "parallel", ErrInvalid},
		{"seeds", func(c *Config) { c.Seeds = sweep.Seeds{First: 5, Last: 2} }, "seeds: seeds 5-2", ErrInvalid},
		{"objective", func(c *Config) { c.Objective = "speed" }, `objective: unknown objective "speed"`, ErrInvalid},
		{"skip", func(c *Config) { c.Check.Skip = true }, "check.skip", ErrInvalid},
		{"negative writes", func(c *Config) { c.Constraints.MaxStoreWritesPerSecond = f64(-1) }, "max_store_writes_per_workload_s", ErrInvalid},
		{"fraction", func(c *Config) { c.Constraints.MaxReexecutedFraction = f64(2) }, "max_reexecuted_fraction", ErrInvalid},
		{"failover", func(c *Config) { c.Constraints.MaxFailoverP99 = dur(-1) }, "max_failover_p99_ns", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := smallConfig()
			tt.edit(&cfg)
			_, err := Run(context.Background(), cfg, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
		})
	}
}

// checkpointWorkload has long tasks of many short units: four workers for
// an hour, a task every 75 seconds for the first 40 minutes, each 60 units
// of 5s, and six crashes an hour per worker (down 30s).
func checkpointWorkload(t testing.TB) workload.Opener {
	t.Helper()
	h := workload.Header{Version: workload.Version, Name: "long-tasks", Workers: 4, Duration: time.Hour,
		Env: workload.Env{Latency: ptr(sim.UniformDist(time.Millisecond, 5*time.Millisecond)), CrashPerHour: 6, RestartAfter: 30 * time.Second}}
	var buf bytes.Buffer
	w, err := workload.NewWriter(&buf, h)
	require.NoError(t, err)
	for i := range 32 {
		require.NoError(t, w.Write(workload.Event{Type: workload.TypeTask, At: time.Duration(i) * 75 * time.Second,
			ID: fmt.Sprintf("t%d", i+1), Units: 60, UnitTime: 5 * time.Second}))
	}
	require.NoError(t, w.Flush())
	return workload.Bytes(buf.Bytes())
}

// Shorter checkpoint intervals give less re-executed work and more store
// writes, over the same seeds: monotone over every 2, 5 and 10 units and
// none.
func TestShorterCheckpointsReexecuteLessAndWriteMore(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 32 hours")
	}
	res, err := Run(context.Background(), Config{
		Open: checkpointWorkload(t), Workload: "long-tasks.jsonl",
		TTLs: []time.Duration{5 * time.Second}, Renews: []Renew{{Divisor: 3}},
		Checkpoints: []Checkpoint{{EveryUnits: 2}, {EveryUnits: 5}, {EveryUnits: 10}, {}},
		Rho:         DefaultRho, Margin: DefaultMargin, Seeds: sweep.Seeds{First: 1, Last: 8},
	}, nil)
	require.NoError(t, err)
	require.Zero(t, res.ViolatingRuns)
	for _, c := range res.Configs {
		t.Logf("%s: %d of %d units re-executed (%.3f%%), %.3f store writes/s over %d failovers", c.Label,
			c.Metrics.UnitsReexecuted, c.Metrics.UnitsExecuted, 100*c.Metrics.ReexecutedFraction,
			c.Metrics.StoreWritesPerWorkloadSecond, c.Metrics.Failovers)
	}
	for i := 1; i < len(res.Configs); i++ {
		prev, c := res.Configs[i-1].Metrics, res.Configs[i].Metrics
		assert.Greater(t, c.UnitsReexecuted, prev.UnitsReexecuted, "%s re-executes more than %s", res.Configs[i].Label, res.Configs[i-1].Label)
		assert.Greater(t, c.ReexecutedFraction, prev.ReexecutedFraction)
		assert.Less(t, c.StoreWritesPerWorkloadSecond, prev.StoreWritesPerWorkloadSecond, "%s writes less than %s", res.Configs[i].Label, res.Configs[i-1].Label)
	}
}

// The example workloads tune end to end: every config runs clean, every
// task completes, and one config is recommended.
func TestExamplesTune(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates the example workloads")
	}
	for _, name := range []string{"steady-batch", "bursty-queue", "frequent-deploys"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			limit := 50.0
			res, err := Run(context.Background(), Config{
				Workload: examplePath(name),
				TTLs:     []time.Duration{2 * time.Second, 10 * time.Second},
				Renews:   []Renew{{Divisor: 3}}, Checkpoints: []Checkpoint{{EveryUnits: 5}, {}},
				Rho: DefaultRho, Margin: DefaultMargin, Seeds: sweep.Seeds{First: 1, Last: 2},
				Constraints: Constraints{MaxStoreWritesPerSecond: &limit}, Parallel: 1,
			}, nil)
			require.NoError(t, err)
			assert.Equal(t, name, res.Name)
			assert.Equal(t, 8, res.Runs)
			assert.Zero(t, res.ViolatingRuns)
			for _, c := range res.Configs {
				assert.True(t, c.Valid, c.Label)
				assert.Empty(t, c.Violations, c.Label)
				assert.Positive(t, c.Metrics.TasksCompleted, c.Label)
				assert.Zero(t, c.Metrics.TasksUnfinished, c.Label)
				assert.Positive(t, c.Metrics.StoreWritesPerWorkloadSecond, c.Label)
			}
			require.NotNil(t, res.Recommended, res.Explanation)
			assert.Positive(t, res.ParetoConfigs)
			measured := slices.ContainsFunc(res.Configs, func(c ConfigResult) bool { return c.Metrics.Failovers > 0 })
			if measured {
				assert.Contains(t, res.Explanation, *res.Recommended+": the lowest p99 failover")
			} else { // bursty-queue's two seeds crash no holder: no data, never the lowest
				assert.Contains(t, res.Explanation, *res.Recommended+": chosen from the")
				assert.Contains(t, res.Explanation, "no p99 failover was measured")
			}
		})
	}
}

// A configuration whose runs violate a property lists each failing run
// with the command that replays it, takes no part in the frontier, and
// running that seed again gives the same trace hash.
func TestRunListsViolations(t *testing.T) {
	impl, err := mutants.Lookup("mutant/silent-keepalive-death")
	require.NoError(t, err)
	cfg := smallConfig()
	cfg.Impl = impl
	cfg.TTLs, cfg.Checkpoints, cfg.Seeds = cfg.TTLs[:1], cfg.Checkpoints[:1], sweep.Seeds{First: 1, Last: 1}
	res, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, res.Configs, 1)
	c := res.Configs[0]
	require.Equal(t, 1, c.ViolatingRuns)
	require.Len(t, c.Violations, 1)
	v := c.Violations[0]
	assert.Equal(t, uint64(1), v.Seed)
	assert.Equal(t, []string{"P1"}, v.Properties)
	assert.Contains(t, v.Detail, "both believed they held")
	assert.Equal(t, "simrun run --workload ../examples/steady-batch.jsonl --ttl 2s --renew ttl/3 --checkpoint 2u "+
		"--rho 0.01 --margin 50ms --seed 1 --impl mutant/silent-keepalive-death", v.Replay)
	assert.Equal(t, 1, res.ViolatingRuns)
	assert.False(t, c.Pareto || c.Feasible || c.Recommended)
	assert.Nil(t, res.Recommended)
	assert.Equal(t, "No recommendation: the only valid config violated a property; see the violations and their replay commands.",
		res.Explanation)

	again, err := Run(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, v.TraceHash, again.Configs[0].Violations[0].TraceHash, "the replay is exact")
}
