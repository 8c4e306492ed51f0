package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/workload"
)

func TestWorkloadBadInputExitsTwo(t *testing.T) {
	malformedLog := writeFile(t, "malformed.log", `{"kind":"grant","node":"h1","wall":"2026-03-01T12:00:00Z"}`+"\n{oops\n")
	emptyLog := writeFile(t, "empty.log", "")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no subcommand", []string{"workload"}, []string{"give a subcommand: gen or from-events"}},
		{"unknown subcommand", []string{"workload", "make"}, []string{`unknown command "make"`}},
		{"gen: units-min zero", []string{"workload", "gen", "--units-min", "0"}, []string{"--units-min: want 1 <= --units-min <= --units-max"}},
		{"gen: units-max below min", []string{"workload", "gen", "--units-max", "5"}, []string{"--units-min:", "got 10 and 5"}},
		{"gen: no workers", []string{"workload", "gen", "--workers", "0"}, []string{"--workers: must be positive, got 0"}},
		{"gen: too many workers", []string{"workload", "gen", "--workers", "5000"}, []string{"--workers: 5000 exceeds the limit of 1000"}},
		{"gen: zero duration", []string{"workload", "gen", "--duration", "0s"}, []string{"--duration: must be positive"}},
		{"gen: negative rate", []string{"workload", "gen", "--tasks-per-minute", "-1"}, []string{"--tasks-per-minute: must be in [0, 1e6]"}},
		{"gen: no arrivals", []string{"workload", "gen", "--tasks-per-minute", "0"}, []string{"--tasks-per-minute: no arrivals"}},
		{"gen: bursts without a size", []string{"workload", "gen", "--burst-every", "1m"}, []string{"--burst-size: must be in [1, 1e6]"}},
		{"gen: overlapping bursts", []string{"workload", "gen", "--burst-every", "1m", "--burst-size", "3", "--burst-spread", "2m"}, []string{"--burst-spread: 2m0s is longer than --burst-every 1m0s"}},
		{"gen: units alpha", []string{"workload", "gen", "--units-alpha", "-1"}, []string{"--units-alpha: must be in [0, 1000]"}},
		{"gen: unit time", []string{"workload", "gen", "--unit-time", "0s"}, []string{"--unit-time: must be positive"}},
		{"gen: unit time dist malformed", []string{"workload", "gen", "--unit-time-dist", "uniform:x:1s"}, []string{`--unit-time-dist: "uniform:x:1s": "x" is not a duration`}},
		{"gen: unit time dist zero", []string{"workload", "gen", "--unit-time-dist", "fixed:0s"}, []string{"--unit-time-dist: min: must be positive"}},
		{"gen: latency kind", []string{"workload", "gen", "--latency", "normal:1ms"}, []string{`--latency: "normal:1ms": want fixed:D, uniform:MIN:MAX or pareto:MIN:MAX:ALPHA`}},
		{"gen: latency reversed", []string{"workload", "gen", "--latency", "uniform:5ms:1ms"}, []string{"--latency:", "max: 1ms is below min 5ms"}},
		{"gen: latency alpha", []string{"workload", "gen", "--latency", "pareto:1ms:5ms:0"}, []string{"--latency:", "alpha"}},
		{"gen: loss", []string{"workload", "gen", "--loss", "2"}, []string{"--loss: must be a probability in [0, 1], got 2"}},
		{"gen: gc p50", []string{"workload", "gen", "--gc-per-minute", "1", "--gc-p50", "0s"}, []string{"--gc-p50: must be positive"}},
		{"gen: gc p99 below p50", []string{"workload", "gen", "--gc-per-minute", "1", "--gc-p99", "1ms"}, []string{"--gc-p99: 1ms is below p50 20ms"}},
		{"gen: gc max below p99", []string{"workload", "gen", "--gc-per-minute", "1", "--gc-max", "100ms"}, []string{"--gc-max: 100ms is below p99 300ms"}},
		{"gen: gc rate", []string{"workload", "gen", "--gc-per-minute", "-1"}, []string{"--gc-per-minute: must be in (0, 6000]"}},
		{"gen: crash rate", []string{"workload", "gen", "--crash-per-hour", "-1"}, []string{"--crash-per-hour: must be in [0, 3600]"}},
		{"gen: restart after", []string{"workload", "gen", "--restart-after", "-1s"}, []string{"--restart-after: must be positive"}},
		{"gen: deploys without downtime", []string{"workload", "gen", "--deploy-every", "5m", "--deploy-down", "0s"}, []string{"--deploy-down: must be positive when deploys are on"}},
		{"gen: crash every negative", []string{"workload", "gen", "--crash-every", "-1s"}, []string{"--crash-every: must not be negative"}},
		{"gen: crash every too often", []string{"workload", "gen", "--crash-every", "2s"}, []string{"--crash-every: 2s on 4 workers crashes a worker again"}},
		{"gen: leader pause too long", []string{"workload", "gen", "--leader-pause-every", "10s", "--leader-pause", "10s"},
			[]string{"--leader-pause: must be positive and shorter than --leader-pause-every 10s, got 10s"}},
		{"gen: no name", []string{"workload", "gen", "--name", ""}, []string{"--name: must not be empty"}},
		{"gen: seed not a number", []string{"workload", "gen", "--seed", "x"}, []string{`"--seed"`}},
		{"gen: unwritable output", []string{"workload", "gen", "-o", "/no/such/dir/w.jsonl"}, []string{"-o:", "/no/such/dir"}},
		{"from-events: no log", []string{"workload", "from-events"}, []string{"accepts 1 arg(s), received 0"}},
		{"from-events: missing log", []string{"workload", "from-events", "/no/such/events.log"}, []string{"/no/such/events.log", "no such file"}},
		{"from-events: malformed log", []string{"workload", "from-events", malformedLog}, []string{malformedLog + ": workload: line 2: lease event:"}},
		{"from-events: empty log", []string{"workload", "from-events", emptyLog}, []string{emptyLog + ": workload: the event log has no events"}},
		{"from-events: renew interval", []string{"workload", "from-events", emptyLog, "--renew-interval", "-1s"}, []string{"--renew-interval: must not be negative"}},
		{"from-events: pause factor", []string{"workload", "from-events", emptyLog, "--pause-factor", "1"}, []string{"--pause-factor: must be in (1, 1000]"}},
		{"from-events: units per checkpoint", []string{"workload", "from-events", emptyLog, "--units-per-checkpoint", "0"}, []string{"--units-per-checkpoint: must be in [1,"}},
		{"from-events: loss", []string{"workload", "from-events", emptyLog, "--loss", "1.5"}, []string{"--loss: must be a probability"}},
		{"from-events: no name", []string{"workload", "from-events", emptyLog, "--name", ""}, []string{"--name: must not be empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := simrun(t, tt.args...)
			assert.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
			assert.True(t, strings.HasPrefix(r.stderr, "simrun: "), "stderr: %s", r.stderr)
			assert.NotContains(t, r.stderr, "panic")
			assert.Empty(t, r.stdout, "no half-written workload")
		})
	}
}

func TestWorkloadGen(t *testing.T) {
	args := []string{"workload", "gen", "--name", "fleet", "--workers", "3", "--duration", "5m", "--tasks-per-minute", "4",
		"--unit-time-dist", "uniform:100ms:400ms", "--latency", "pareto:1ms:200ms:1.5", "--gc-per-minute", "1",
		"--crash-per-hour", "2", "--deploy-every", "2m", "--deploy-spacing", "10s", "--deploy-down", "5s", "--seed", "7"}
	a := simrun(t, args...)
	require.Equal(t, exitOK, a.code, "stderr: %s", a.stderr)
	b := simrun(t, args...)
	assert.Equal(t, a.stdout, b.stdout, "the same flags and seed give the same bytes")
	c := simrun(t, append(slices.Clone(args[:len(args)-1]), "8")...)
	assert.NotEqual(t, a.stdout, c.stdout, "another seed, another workload")

	plan, err := workload.Inspect(workload.Bytes([]byte(a.stdout)))
	require.NoError(t, err)
	assert.Equal(t, "fleet", plan.Header.Name)
	assert.Equal(t, 3, plan.Header.Workers)
	assert.Equal(t, 5*time.Minute, plan.Duration)
	assert.Positive(t, plan.Tasks)
	require.NotNil(t, plan.Header.Env.GCPause)
	assert.Equal(t, 20*time.Millisecond, plan.Header.Env.GCPause.P50)
	assert.NotEmpty(t, plan.Faults.Events, "the deploys")

	path := filepath.Join(t.TempDir(), "fleet.jsonl")
	d := simrun(t, append(args, "-o", path)...)
	require.Equal(t, exitOK, d.code, "stderr: %s", d.stderr)
	assert.Empty(t, d.stdout)
	assert.Equal(t, "wrote "+path+"\n", d.stderr)
	written, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, a.stdout, string(written))
	leftovers, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	require.NoError(t, err)
	assert.Empty(t, leftovers, "no temporary file left behind")
}

// A lease event log recorded from a simulated run becomes a workload that
// tune can replay.
func TestWorkloadFromEvents(t *testing.T) {
	gen := simrun(t, "workload", "gen", "--workers", "3", "--duration", "3m", "--tasks-per-minute", "6",
		"--crash-per-hour", "20", "--seed", "3")
	require.Equal(t, exitOK, gen.code, "stderr: %s", gen.stderr)
	cfg := lease.Config{TTL: 2 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond, CheckpointEveryUnits: 1}
	sc, err := workload.ScenarioOf(workload.Bytes([]byte(gen.stdout)), cfg)
	require.NoError(t, err)
	var log bytes.Buffer
	obs := lease.NewJSONLinesObserver(&log)
	out, err := scenarios.Execute(sc, 1, scenarios.Options{Observer: obs})
	require.NoError(t, err)
	require.Empty(t, out.Violated())
	require.NoError(t, obs.Err())
	logPath := writeFile(t, "events.log", log.String())

	path := filepath.Join(t.TempDir(), "recorded.jsonl")
	r := simrun(t, "workload", "from-events", logPath, "-o", path, "--name", "recorded", "--renew-interval", "666ms")
	require.Equal(t, exitOK, r.code, "stderr: %s", r.stderr)
	assert.Empty(t, r.stdout)
	for _, want := range []string{"from-events: ", "holders became workers w1..w3", "tasks: ", "renew interval 666ms (given)",
		`workload "recorded": 3 workers`, "wrote " + path} {
		assert.Contains(t, r.stderr, want)
	}
	plan, err := workload.Inspect(workload.File(path))
	require.NoError(t, err)
	assert.Equal(t, "recorded", plan.Header.Name)
	assert.Positive(t, plan.Tasks)

	tuned := simrun(t, "tune", "--workload", path, "--ttl", "2s", "--checkpoint", "1u", "--seeds", "1")
	assert.Equal(t, exitOK, tuned.code, "stderr: %s", tuned.stderr)
}
