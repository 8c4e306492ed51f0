package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/tune"
)

// The fixture's one knob is the lock's TTL ("ttl", default 2s): its
// broken client overlaps c2 on seed 1 at 2 s and not at 5 s.

func TestGoHostKnobBites(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	base := []string{"run", "--impl", "fixture/lock", "--scenario", "broken-client", "--seed", "1", "--json"}
	def := goSimrun(t, base...)
	require.Equal(t, exitViolated, def.code, def.stderr)
	long := goSimrun(t, append(base, "--knob", "ttl=5s")...)
	require.Equal(t, exitOK, long.code, long.stderr)
	var a, b goRun
	oneJSONObject(t, def.stdout, &a)
	oneJSONObject(t, long.stdout, &b)
	assert.NotEqual(t, a.TraceHash, b.TraceHash, "the knob changed the run")
	assert.Contains(t, b.Replay, "--knob ttl=5s")
	again := pasted(t, b.Replay)
	assert.Equal(t, exitOK, again.code, again.stderr)
	assert.Contains(t, again.stdout, "trace hash "+b.TraceHash+", identical to --hash")
	sw := goSimrun(t, "sweep", "--impl", "fixture/lock", "--scenario", "broken-client", "--seeds", "1-1", "--knob", "ttl=5s", "--json")
	assert.Equal(t, exitOK, sw.code, "a sweep sets the knob too: %s", sw.stderr)
	var sum sweep.Summary
	oneJSONObject(t, sw.stdout, &sum)
	assert.Equal(t, []string{"ttl=5s"}, sum.Knobs, "the summary records the knobs")
}

// --rerun-failures re-runs the failing runs with the knobs the summary
// recorded: a summary of the default ttl's failure whose knobs say
// ttl=5s re-runs at 5s, and passes; knobs it cannot take exit 2.
func TestGoHostRerunTakesTheSummarysKnobs(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	sw := goSimrun(t, "sweep", "--impl", "fixture/lock", "--scenario", "broken-client", "--seeds", "1-1", "--json")
	require.Equal(t, exitViolated, sw.code, sw.stderr)
	var sum sweep.Summary
	oneJSONObject(t, sw.stdout, &sum)
	assert.Empty(t, sum.Knobs, "the defaults")
	rerun := func(knobs ...string) result {
		sum.Knobs = knobs
		data, err := json.Marshal(sum)
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "summary.json")
		require.NoError(t, os.WriteFile(path, data, 0o644))
		return goSimrun(t, "sweep", "--rerun-failures", path, "--json")
	}
	r := rerun()
	assert.Equal(t, exitViolated, r.code, "the same failure at the default: %s", r.stderr)
	r = rerun("ttl=5s")
	require.Equal(t, exitOK, r.code, "ttl=5s passes: %s", r.stderr)
	assert.Contains(t, r.stderr, "re-running 1 failing runs of fixture/lock --knob ttl=5s")
	var again sweep.Summary
	oneJSONObject(t, r.stdout, &again)
	assert.Equal(t, []string{"ttl=5s"}, again.Knobs)
	r = rerun("ttl=1h")
	assert.Equal(t, exitUsage, r.code, r.stderr)
	assert.Contains(t, r.stderr, "summary.json: knobs: bad knob ttl=1h0m0s: out of range")
}

func TestGoHostBadKnobsExit2(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	run := []string{"run", "--impl", "fixture/lock", "--scenario", "broken-client", "--seed", "1"}
	tuneArgs := []string{"tune", "--impl", "fixture/lock", "--scenario", "broken-client", "--seeds", "1-1"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no value", append(run, "--knob", "ttl"), `--knob: bad knob "ttl": want NAME=VALUE`},
		{"unknown knob", append(run, "--knob", "speed=1s"), `--knob: bad knob "speed": unknown (known: ttl)`},
		{"out of range", append(run, "--knob", "ttl=1h"), "--knob: bad knob ttl=1h0m0s: out of range: want 500ms to 10s"},
		{"a list on run", append(run, "--knob", "ttl=1s,2s"), "--knob ttl=1s,2s: one value here"},
		{"the event host", []string{"run", "--scenario", "kleppmann-gc-pause", "--seed", "1", "--knob", "ttl=1s"},
			"--knob: only for goroutine-host implementations"},
		{"tune: not a duration", append(tuneArgs, "--knob", "ttl=2s,x"), `--knob: bad knob ttl: "x" is not a duration`},
		{"tune: out of range", append(tuneArgs, "--knob", "ttl=2s,20s"), "--knob ttl=2s,20s: bad knob ttl=20s: out of range"},
		{"tune: a knob twice", append(tuneArgs, "--knob", "ttl=2s", "--knob", "ttl=3s"), "knob ttl is given twice"},
		{"tune: no knob", tuneArgs, "--knob: missing: give at least one axis, NAME=V1,V2 (fixture/lock's knobs: ttl)"},
		{"tune: a workload's flag", append(tuneArgs, "--knob", "ttl=2s", "--ttl", "5s"), "--ttl: a workload's lease setting"},
		{"tune: no scenario", []string{"tune", "--impl", "fixture/lock", "--knob", "ttl=2s"}, "--scenario: name the stories"},
		{"tune: knobs on the event host", []string{"tune", "--workload", "examples/steady-batch.jsonl", "--knob", "ttl=2s"},
			"--knob: not for goroutine-host implementations yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := goSimrun(t, tt.args...)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.want)
		})
	}
}

func TestGoHostTuneOverKnobs(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	dir := filepath.Join(t.TempDir(), "tune")
	r := goSimrun(t, "tune", "--impl", "fixture/lock", "--scenario", "broken-client", "--knob", "ttl=2s,5s",
		"--seeds", "1-2", "--json", "--out", dir)
	require.Equal(t, exitViolated, r.code, "seed 1 at ttl=2s violates P1: %s", r.stderr)
	var res tune.Result
	oneJSONObject(t, r.stdout, &res)
	written, err := os.ReadFile(filepath.Join(dir, reports.TuneJSONFile))
	require.NoError(t, err, "--out writes tune.json")
	assert.JSONEq(t, r.stdout, string(written), "tune.json is the result --json prints")
	assert.NoFileExists(t, filepath.Join(dir, reports.TuneHTMLFile), "its charts are over TTL and renew, which knobs lack")
	require.Len(t, res.Configs, 2)
	short, long := res.Configs[0], res.Configs[1]
	assert.Equal(t, "ttl=2s", short.Label)
	assert.Equal(t, 2, short.Runs)
	assert.Equal(t, map[string]int{"P1": 1}, short.Violated)
	require.Len(t, short.Violations, 1)
	assert.Equal(t, uint64(1), short.Violations[0].Seed)
	assert.Zero(t, long.ViolatingRuns, "ttl=5s holds on both seeds")
	require.NotNil(t, long.Metrics.P1MarginMin)
	assert.Positive(t, *long.Metrics.P1MarginMin)
	assert.Negative(t, *short.Metrics.P1MarginMin, "an overlap")
	assert.True(t, long.Recommended, res.Explanation)
	// Each printed line runs as pasted and gives what the row says.
	one := pasted(t, short.Violations[0].Replay)
	assert.Equal(t, exitViolated, one.code, one.stderr)
	again := pasted(t, long.Replay)
	assert.Equal(t, exitOK, again.code, again.stderr)

	text := goSimrun(t, "tune", "--impl", "fixture/lock", "--scenario", "broken-client", "--knob", "ttl=5s", "--seeds", "2-2")
	require.Equal(t, exitOK, text.code, text.stderr)
	assert.Contains(t, text.stdout, "→ ttl=5s")
}
