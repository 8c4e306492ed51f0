package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/sweep"
)

// result is what one in-process run of simrun gave.
type result struct {
	code           int
	stdout, stderr string
}

func simrun(t *testing.T, args ...string) result {
	t.Helper()
	return simrunContext(t, context.Background(), args...)
}

func simrunContext(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runContext(ctx, args, &stdout, &stderr)
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// writeFile writes content to name in a fresh temporary directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// oneJSONObject decodes s, which must hold exactly one JSON object, into v.
func oneJSONObject(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	require.NoError(t, dec.Decode(v), "stdout: %s", s)
	var extra json.RawMessage
	require.ErrorIs(t, dec.Decode(&extra), io.EOF, "stdout holds more than one JSON value")
	require.True(t, strings.HasPrefix(strings.TrimSpace(s), "{"), "an object, not another JSON value")
}

func TestBadInputExitsTwo(t *testing.T) {
	malformed := writeFile(t, "malformed.json", "{\"version\": 1,\n  \"events\": [}\n")
	malformedSummary := writeFile(t, "malformed-summary.json", "{\"schema_version\": 3,\n  \"failures\": [}\n")
	strangerSummary := writeFile(t, "stranger-summary.json", "{\"schema_version\": 3,\n  \"runs\": 2,\n  \"run\": 2}\n")
	unknownField := writeFile(t, "field.json", `{"version": 1, "heal_at": "30s", "events": [{"at": "1s", "kind": "pause", "node": "h1", "duration": "2s", "bogus": 1}]}`)
	unknownNode := writeFile(t, "node.json", `{"version": 1, "heal_at": "30s", "events": [{"at": "1s", "kind": "pause", "node": "zz", "duration": "2s"}]}`)
	badDuration := writeFile(t, "duration.json", `{"version": 1, "heal_at": "30s", "events": [{"at": "1s", "kind": "pause", "node": "h1", "duration": "-2s"}]}`)
	notSummary := writeFile(t, "notsummary.json", `{"runs": "many"}`)
	shard1 := writeFile(t, "shard1.json", `{"schema_version": `+strconv.Itoa(sweep.SummarySchema)+`, "scenarios": ["swarm"], "impl": "correct", "seeds": "1-10", "seed_first": 1, "seed_last": 10, "shard": "1/2"}`)
	otherImpl := writeFile(t, "other.json", `{"schema_version": `+strconv.Itoa(sweep.SummarySchema)+`, "scenarios": ["swarm"], "impl": "mutant/unfenced-resource", "seeds": "1-10", "seed_first": 1, "seed_last": 10, "shard": "2/2"}`)

	tests := []struct {
		name string
		args []string
		want []string // every one must appear on stderr
	}{
		{"unknown command", []string{"frobnicate"}, []string{`unknown command "frobnicate"`}},
		{"unknown flag", []string{"run", "--bogus"}, []string{"unknown flag: --bogus", "simrun run --help"}},
		{"unknown scenario", []string{"run", "--scenario", "nope"}, []string{`unknown scenario "nope"`, "kleppmann-gc-pause", "swarm"}},
		{"unknown impl", []string{"run", "--impl", "bogus"}, []string{`unknown implementation "bogus"`, "correct", "mutant/unfenced-resource"}},
		{"unknown mutant", []string{"run", "--impl", "mutant/nope"}, []string{`"mutant/nope"`, "mutant/unfenced-resource"}},
		{"seed not a number", []string{"run", "--seed", "x"}, []string{`--seed "x"`, "random"}},
		{"negative seed", []string{"run", "--seed", "-1"}, []string{`--seed "-1"`}},
		{"seed a range", []string{"run", "--seed", "1-5"}, []string{`--seed "1-5"`, "sweep --seeds"}},
		{"unknown policy", []string{"run", "--unknown", "maybe"}, []string{`"--unknown"`, "want fail or pass"}},
		{"replay unknown policy", []string{"replay", "--seed", "1", "--unknown", "x"}, []string{`"--unknown"`}},
		{"ttl without workload", []string{"run", "--ttl", "5s"}, []string{"--ttl: only with --workload"}},
		{"workload and scenario", []string{"run", "--workload", "w.jsonl", "--scenario", "swarm"}, []string{"--scenario", "not both"}},
		{"workload without ttl", []string{"run", "--workload", "../../examples/steady-batch.jsonl", "--checkpoint", "5u"}, []string{"--ttl: missing"}},
		{"workload two ttls", []string{"run", "--workload", "../../examples/steady-batch.jsonl", "--ttl", "2s,5s", "--checkpoint", "5u"}, []string{`--ttl "2s,5s": want one TTL`}},
		{"workload bad checkpoint", []string{"run", "--workload", "../../examples/steady-batch.jsonl", "--ttl", "2s", "--checkpoint", "0u"}, []string{`--checkpoint "0u"`}},
		{"workload invalid config", []string{"run", "--workload", "../../examples/steady-batch.jsonl", "--ttl", "60ms", "--checkpoint", "5u"}, []string{"--ttl, --renew", "renew 20ms >= TTL"}},
		{"workload missing", []string{"run", "--workload", "/no/such.jsonl", "--ttl", "2s", "--checkpoint", "5u"}, []string{"--workload /no/such.jsonl"}},
		{"stray argument", []string{"run", "swarm"}, []string{`unknown command "swarm"`}},
		{"schedule missing", []string{"run", "--schedule", "/no/such/schedule.json"}, []string{"--schedule", "/no/such/schedule.json"}},
		{"schedule malformed", []string{"run", "--schedule", malformed}, []string{malformed, "line 2"}},
		{"schedule unknown field", []string{"run", "--scenario", "kleppmann-gc-pause", "--schedule", unknownField}, []string{unknownField, "events[0].bogus", "unknown field"}},
		{"schedule unknown node", []string{"run", "--scenario", "kleppmann-gc-pause", "--schedule", unknownNode}, []string{unknownNode, "event 0 (pause): node", `"zz"`}},
		{"schedule bad duration", []string{"run", "--scenario", "kleppmann-gc-pause", "--schedule", badDuration}, []string{"duration: must be positive"}},
		{"trace unwritable", []string{"run", "--trace", "/no/such/dir/trace.jsonl"}, []string{"--trace"}},
		{"seeds reversed", []string{"sweep", "--seeds", "5-2"}, []string{"--seeds", "5-2", "below the first"}},
		{"seeds not numbers", []string{"sweep", "--seeds", "x"}, []string{"--seeds", `"x"`}},
		{"seeds open", []string{"sweep", "--seeds", "1-"}, []string{"--seeds", "1-"}},
		{"seeds empty", []string{"sweep", "--seeds", ""}, []string{"--seeds"}},
		{"shard beyond count", []string{"sweep", "--shard", "3/2"}, []string{"--shard", "3/2", "between 1 and 2"}},
		{"shard zero", []string{"sweep", "--shard", "0/2"}, []string{"--shard", "0/2"}},
		{"shard of zero", []string{"sweep", "--shard", "1/0"}, []string{"--shard", "at least 1"}},
		{"shard malformed", []string{"sweep", "--shard", "half"}, []string{"--shard", "want I/N"}},
		{"negative parallel", []string{"sweep", "--parallel", "-1"}, []string{"--parallel", "must not be negative"}},
		{"sweep unknown scenario", []string{"sweep", "--scenario", "swarm,nope"}, []string{`unknown scenario "nope"`, `"all"`}},
		{"sweep unknown impl", []string{"sweep", "--impl", "nope"}, []string{`unknown implementation "nope"`}},
		{"replay with nothing", []string{"replay"}, []string{"give a run directory"}},
		{"replay with both", []string{"replay", t.TempDir(), "--seed", "3"}, []string{"not both"}},
		{"replay of a missing directory", []string{"replay", "/no/such/run"}, []string{"/no/such/run/run.json"}},
		{"replay of two directories", []string{"replay", "a", "b"}, []string{"accepts at most 1 arg"}},
		{"shrink a passing seed", []string{"shrink", "--scenario", "kleppmann-gc-pause", "--seed", "1"}, []string{"nothing to shrink: seed 1 passes"}},
		{"shrink with no attempts", []string{"shrink", "--max-attempts", "0"}, []string{"--max-attempts"}},
		{"merge nothing", []string{"merge"}, []string{"requires at least 1 arg"}},
		{"merge a missing file", []string{"merge", "/no/such/summary.json"}, []string{"/no/such/summary.json"}},
		{"merge a malformed file", []string{"merge", malformedSummary}, []string{malformedSummary, "line 2"}},
		{"merge a summary with a field it lacks", []string{"merge", strangerSummary}, []string{strangerSummary, "line 3", "run: unknown field"}},
		{"rerun a summary with a field it lacks", []string{"sweep", "--rerun-failures", strangerSummary}, []string{"--rerun-failures", strangerSummary, "line 3", "run: unknown field"}},
		{"merge a wrong type", []string{"merge", notSummary}, []string{notSummary, "runs"}},
		{"merge other impls", []string{"merge", shard1, otherImpl}, []string{otherImpl, `impl "mutant/unfenced-resource" differs`}},
		{"merge a shard twice", []string{"merge", shard1, shard1}, []string{"shard 1/2 is already merged"}},
		{"list with an argument", []string{"list", "all"}, []string{`unknown command "all"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := simrun(t, tt.args...)
			assert.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
			assert.True(t, strings.HasPrefix(r.stderr, "simrun: "), "stderr: %s", r.stderr)
			assert.NotContains(t, r.stderr, "Usage:", "no usage block after the message")
			assert.NotContains(t, r.stderr, "panic")
			assert.Empty(t, r.stdout)
		})
	}
}

func TestRun(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		r := simrun(t, "run", "--scenario", "kleppmann-gc-pause", "--seed", "1")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "kleppmann-gc-pause")
		assert.Contains(t, r.stdout, "simrun run --scenario kleppmann-gc-pause --seed 1")
		assert.Empty(t, r.stderr)
	})
	t.Run("json", func(t *testing.T) {
		r := simrun(t, "run", "--scenario", "kleppmann-gc-pause", "--seed", "1", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var run map[string]any
		oneJSONObject(t, r.stdout, &run)
		for _, field := range []string{"scenario", "impl", "seed", "trace_hash", "events", "sim_seconds", "wall_seconds",
			"acceleration", "faults", "violations", "metrics", "replay"} {
			assert.Contains(t, run, field)
		}
		assert.Equal(t, "kleppmann-gc-pause", run["scenario"])
	})
	t.Run("default scenario and seed", func(t *testing.T) {
		r := simrun(t, "run", "--json")
		var run struct {
			Scenario string `json:"scenario"`
			Seed     uint64 `json:"seed"`
		}
		oneJSONObject(t, r.stdout, &run)
		assert.Equal(t, "swarm", run.Scenario)
		assert.Equal(t, uint64(1), run.Seed)
	})
	t.Run("a violated property exits 1", func(t *testing.T) {
		r := simrun(t, "run", "--scenario", "kleppmann-gc-pause", "--impl", "mutant/unfenced-resource", "--json")
		require.Equal(t, exitViolated, r.code, r.stderr)
		var run struct {
			Violations []struct{ Property string } `json:"violations"`
			Replay     string                      `json:"replay"`
		}
		oneJSONObject(t, r.stdout, &run)
		require.NotEmpty(t, run.Violations)
		assert.Equal(t, "P2", run.Violations[0].Property)
		assert.Contains(t, run.Replay, "--impl mutant/unfenced-resource")
	})
	t.Run("out and trace", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "run")
		trace := filepath.Join(t.TempDir(), "trace.jsonl")
		r := simrun(t, "run", "--scenario", "kleppmann-gc-pause", "--out", dir, "--trace", trace, "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var run map[string]any
		oneJSONObject(t, r.stdout, &run)
		assert.Contains(t, r.stderr, filepath.Join(dir, reports.RunJSONFile), "where the files went, on stderr with --json")
		assert.FileExists(t, filepath.Join(dir, reports.RunJSONFile))
		assert.FileExists(t, filepath.Join(dir, reports.ScheduleFile))
		data, err := os.ReadFile(trace)
		require.NoError(t, err)
		assert.Greater(t, bytes.Count(data, []byte("\n")), 100, "the trace streams every record")
	})
}

func TestShrinkThenRunTheSchedule(t *testing.T) {
	dir := t.TempDir()
	r := simrun(t, "shrink", "--scenario", "kleppmann-gc-pause", "--seed", "1", "--impl", "mutant/unfenced-resource", "--out", dir)
	require.Equal(t, exitOK, r.code, r.stderr)
	path := filepath.Join(dir, reports.ScheduleFile)
	replay := "simrun run --scenario kleppmann-gc-pause --seed 1 --impl mutant/unfenced-resource --schedule " + path
	assert.Contains(t, r.stdout, replay)
	assert.Contains(t, r.stdout, "shrunk 1 fault events to")
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s, err := faults.Parse(f)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(s.Events), 5)

	again := simrun(t, strings.Fields(replay)[1:]...)
	assert.Equal(t, exitViolated, again.code, "the shrunk schedule still fails: %s", again.stdout)
	assert.Contains(t, again.stdout, "--schedule "+path, "the replay command names the schedule")
}

func TestReplay(t *testing.T) {
	t.Run("scenario and seed", func(t *testing.T) {
		r := simrun(t, "replay", "--scenario", "kleppmann-gc-pause", "--seed", "2")
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Contains(t, r.stdout, "identical")
	})
	for _, withSchedule := range []bool{false, true} {
		name := "directory"
		if withSchedule {
			name = "directory of a run with --schedule"
		}
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"run", "--scenario", "partition-heal", "--seed", "4", "--out", dir}
			if withSchedule {
				schedule := writeFile(t, "s.json", `{"version": 1, "heal_at": "90s", "events": [{"at": "10s", "kind": "isolate", "node": "h1"}, {"at": "30s", "kind": "heal"}]}`)
				args = append(args, "--schedule", schedule)
			}
			require.Equal(t, exitOK, simrun(t, args...).code)
			r := simrun(t, "replay", dir)
			require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "identical")
			assert.NotContains(t, r.stdout, "schedule differs")

			// A recorded hash that the run does not give is a failure, with both hashes.
			path := filepath.Join(dir, reports.RunJSONFile)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			var run map[string]any
			require.NoError(t, json.Unmarshal(data, &run))
			real := run["trace_hash"].(string)
			run["trace_hash"] = "00000000deadbeef"
			data, err = json.Marshal(run)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, data, 0o644))
			r = simrun(t, "replay", dir)
			assert.Equal(t, exitViolated, r.code)
			assert.Contains(t, r.stdout, "00000000deadbeef")
			assert.Contains(t, r.stdout, real)
		})
	}
}

func TestSweepAndMerge(t *testing.T) {
	dir := t.TempDir()
	var parts []string
	for _, shard := range []string{"1/2", "2/2"} {
		r := simrun(t, "sweep", "--scenario", "kleppmann-gc-pause,asymmetric-partition", "--seeds", "1-6",
			"--shard", shard, "--parallel", "2", "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var s sweep.Summary
		oneJSONObject(t, r.stdout, &s)
		assert.Equal(t, shard, s.Shard)
		assert.Equal(t, 6, s.Runs)
		path := filepath.Join(dir, "shard"+shard[:1]+".json")
		require.NoError(t, os.WriteFile(path, []byte(r.stdout), 0o644))
		parts = append(parts, path)
	}
	out := filepath.Join(dir, "merged")
	r := simrun(t, append([]string{"merge", "--json", "--out", out}, parts...)...)
	require.Equal(t, exitOK, r.code, r.stderr)
	var merged sweep.Summary
	oneJSONObject(t, r.stdout, &merged)
	assert.Equal(t, "1/1", merged.Shard)
	assert.Equal(t, 12, merged.Runs)
	assert.FileExists(t, filepath.Join(out, reports.SweepJSONFile))

	text := simrun(t, append([]string{"merge"}, parts...)...)
	require.Equal(t, exitOK, text.code, text.stderr)
	assert.Contains(t, text.stdout, "12 runs")
}

func TestSweepWithFailuresExitsOne(t *testing.T) {
	r := simrun(t, "sweep", "--scenario", "kleppmann-gc-pause", "--seeds", "1-3", "--impl", "mutant/unfenced-resource")
	require.Equal(t, exitViolated, r.code, r.stderr)
	assert.Contains(t, r.stdout, "simrun run --scenario kleppmann-gc-pause --seed 2 --impl mutant/unfenced-resource")
	assert.Contains(t, r.stderr, "FAIL kleppmann-gc-pause seed", "plain progress lines when stderr is not a terminal")
}

func TestSweepInterruptedIsPartial(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	r := simrunContext(t, ctx, "sweep", "--scenario", "swarm", "--seeds", "1-50", "--out", dir)
	assert.Equal(t, exitInternal, r.code, "interrupted is not a pass")
	assert.Contains(t, r.stdout, "PARTIAL")
	assert.Contains(t, r.stderr, "PARTIAL")
	data, err := os.ReadFile(filepath.Join(dir, reports.SweepJSONFile))
	require.NoError(t, err)
	var s sweep.Summary
	require.NoError(t, json.Unmarshal(data, &s))
	assert.True(t, s.Partial)
	assert.Equal(t, 50, s.RunsExpected)
}

func TestList(t *testing.T) {
	r := simrun(t, "list", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var c catalogue
	oneJSONObject(t, r.stdout, &c)
	require.NotEmpty(t, c.Scenarios)
	assert.Equal(t, "kleppmann-gc-pause", c.Scenarios[0].Name)
	assert.Equal(t, "correct", c.Impls[0].Name)
	assert.Greater(t, len(c.Impls), 1, "the mutants are listed")
	assert.Equal(t, faults.Kinds(), c.FaultKinds)
	for _, e := range c.Scenarios {
		assert.NotEmpty(t, e.Doc, "%s has a one-line description", e.Name)
	}
	for _, e := range c.Impls {
		assert.NotEmpty(t, e.Doc, "%s has a one-line description", e.Name)
		assert.NotEmpty(t, e.Spec, "%s names the specification P3 judges it by", e.Name)
	}
	assert.Equal(t, "lease-store", c.Impls[0].Spec)
	assert.Empty(t, c.Impls[0].Lacks, "leasesim's own declares every capability")
	assert.NotEmpty(t, c.Failpoints)

	text := simrun(t, "list")
	require.Equal(t, exitOK, text.code)
	for _, want := range []string{"swarm", "mutant/unfenced-resource", "partition-oneway", "[spec lease-store]", "on-reply"} {
		assert.Contains(t, text.stdout, want)
	}
}

// list --impl of an event-host implementation lists the catalogue
// scenarios it runs and those it skips, with the reason, as a sweep of
// every scenario would.
func TestListEventHostImpl(t *testing.T) {
	for _, tc := range []struct {
		impl, runs, skips, reason string
	}{
		{"zoo/redislock", "kleppmann-gc-pause", "worker-crash-handoff", "needs checkpoints"},
		{"zoo/etcdraft", "leader-churn", "multi-key-read-back", "needs reads"},
		{"correct", "multi-key-read-back", "leader-churn", "needs a replicated lease store of 3 members"},
	} {
		r := simrun(t, "list", "--impl", tc.impl, "--json")
		require.Equal(t, exitOK, r.code, r.stderr)
		var l eventScenarioList
		oneJSONObject(t, r.stdout, &l)
		assert.Equal(t, tc.impl, l.Impl)
		assert.Contains(t, names(l.Scenarios), tc.runs)
		i := slices.IndexFunc(l.Skipped, func(s skippedEntry) bool { return s.Name == tc.skips })
		require.GreaterOrEqual(t, i, 0, "%s skips %s", tc.impl, tc.skips)
		assert.Contains(t, l.Skipped[i].Reason, tc.reason)
		assert.NotContains(t, names(l.Scenarios), tc.skips)

		text := simrun(t, "list", "--impl", tc.impl)
		require.Equal(t, exitOK, text.code, text.stderr)
		assert.Contains(t, text.stdout, "  "+tc.skips+"  "+tc.reason)
	}
}

// names are the entries' names.
func names(es []entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}
