package workload_test

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/workload"
)

var update = flag.Bool("update", false, "rewrite the example workloads in ../examples")

// exampleSeed seeds the generation of every example workload.
const exampleSeed = 2026

// examples are the parameters of the workloads in ../examples; README.md
// there repeats them.
var examples = []workload.GenParams{
	{
		Name: "steady-batch", Workers: 4, Duration: 20 * time.Minute,
		TasksPerMinute: 15, UnitsMin: 10, UnitsMax: 40, UnitTime: 250 * time.Millisecond,
		Env: workload.Env{
			Latency: ptr(sim.ParetoDist(time.Millisecond, 200*time.Millisecond, 1.5)), Loss: 0.001,
			GCPause:      &workload.GCPause{PerMinute: 1, P50: 20 * time.Millisecond, P99: 300 * time.Millisecond, Max: 2 * time.Second},
			CrashPerHour: 1, RestartAfter: 10 * time.Second,
		},
	},
	{
		Name: "bursty-queue", Workers: 6, Duration: 20 * time.Minute,
		TasksPerMinute: 2, BurstSize: 40, BurstEvery: 2 * time.Minute, BurstSpread: 10 * time.Second,
		UnitsMin: 5, UnitsMax: 200, UnitsAlpha: 1.2, UnitTime: 100 * time.Millisecond,
		Env: workload.Env{
			Latency:      ptr(sim.UniformDist(time.Millisecond, 10*time.Millisecond)),
			GCPause:      &workload.GCPause{PerMinute: 2, P50: 30 * time.Millisecond, P99: 500 * time.Millisecond, Max: 3 * time.Second},
			CrashPerHour: 0.5, RestartAfter: 20 * time.Second,
		},
	},
	{
		Name: "frequent-deploys", Workers: 5, Duration: 30 * time.Minute,
		TasksPerMinute: 10, UnitsMin: 20, UnitsMax: 60, UnitTime: 500 * time.Millisecond,
		Env: workload.Env{
			Latency: ptr(sim.UniformDist(time.Millisecond, 5*time.Millisecond)),
			GCPause: &workload.GCPause{PerMinute: 0.5, P50: 10 * time.Millisecond, P99: 200 * time.Millisecond, Max: time.Second},
		},
		DeployEvery: 4 * time.Minute, DeploySpacing: 30 * time.Second, DeployDown: 15 * time.Second,
	},
	{
		Name: "leader-failover", Workers: 4, Duration: 10 * time.Minute,
		TasksPerMinute: 30, UnitsMin: 20, UnitsMax: 60, UnitTime: 250 * time.Millisecond,
		Env: workload.Env{
			Latency:      ptr(sim.UniformDist(time.Millisecond, 5*time.Millisecond)),
			RestartAfter: 30 * time.Second,
		},
		CrashEvery: time.Minute, LeaderPauseEvery: time.Minute, LeaderPause: 6 * time.Second,
	},
}

func ptr[T any](v T) *T { return &v }

// exampleConfig is the lease configuration the examples are run with: the
// built-in scenarios' 5s TTL, 1% drift bound and 50ms margin, with a
// checkpoint every five units.
func exampleConfig() lease.Config {
	return lease.Config{TTL: 5 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond, CheckpointEveryUnits: 5}
}

func examplePath(name string) string { return filepath.Join("..", "examples", name+".jsonl") }

// TestExamplesAreGenerated checks that each example workload is exactly
// what Generate writes from its parameters and seed; -update rewrites
// them.
func TestExamplesAreGenerated(t *testing.T) {
	for _, p := range examples {
		t.Run(p.Name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, workload.Generate(p, rand.New(rand.NewPCG(exampleSeed, 0)), &buf))
			if *update {
				require.NoError(t, os.WriteFile(examplePath(p.Name), buf.Bytes(), 0o644))
			}
			data, err := os.ReadFile(examplePath(p.Name))
			require.NoError(t, err)
			require.Equal(t, buf.String(), string(data), "regenerate with go test ./workload -run TestExamplesAreGenerated -update")
		})
	}
}

// TestExamplesRunClean runs every example workload end to end: every task
// completes and no property is violated.
func TestExamplesRunClean(t *testing.T) {
	if testing.Short() {
		t.Skip("runs simulated hours")
	}
	for _, p := range examples {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			open := workload.File(examplePath(p.Name))
			plan, err := workload.Inspect(open)
			require.NoError(t, err)
			plan, err = plan.ForStore(1) // leasesim's one grantor: a leader pause pauses it
			require.NoError(t, err)
			sc, err := plan.Scenario(open, exampleConfig())
			require.NoError(t, err)
			for seed := uint64(1); seed <= 2; seed++ {
				out, err := scenarios.Execute(sc, seed, scenarios.Options{})
				require.NoError(t, err)
				requireClean(t, out)
			}
		})
	}
}

// requireClean fails unless the run reached its end, completed every task
// and violated no property.
func requireClean(t *testing.T, out *scenarios.Outcome) {
	t.Helper()
	require.NoError(t, out.Sim.Err, "seed %d", out.Seed)
	require.NotEmpty(t, out.History.Tasks)
	for _, task := range out.History.Tasks {
		require.NotEqual(t, sim.Never, task.Done, "seed %d: task %s (arrived %v) never completed", out.Seed, task.ID, task.Arrival)
	}
	for _, v := range out.Violated() {
		require.Failf(t, "property violated", "seed %d: %s %s: %s", out.Seed, v.Property, v.Name, v.Summary)
	}
}
