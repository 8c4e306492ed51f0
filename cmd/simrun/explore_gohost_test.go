package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
)

// explore searches a goroutine-host implementation's schedules in its
// worker processes: it finds the fixture's broken client, shrinks the
// failure in the worker, verifies the shrunk schedule by repetition, and
// prints a replay line that runs as pasted and reproduces the violation
// with the same trace hash.
func TestExploreGoHostFindsAndReplays(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	dir := t.TempDir()
	r := goSimrun(t, "explore", "--impl", "fixture/lock", "--scenario", "broken-client", "--budget", "10",
		"--max-attempts", "10", "--out", dir, "--json")
	require.Equal(t, exitViolated, r.code, r.stderr)
	var out exploreResult
	oneJSONObject(t, r.stdout, &out)
	assert.Equal(t, hostGoroutine, out.Host)
	require.NotNil(t, out.Failure)
	f := out.Failure
	assert.Equal(t, "P1", f.Property)
	assert.Equal(t, out.Runs, f.Run, "the search stops at the first failure")
	assert.LessOrEqual(t, f.EventsAfter, f.EventsBefore)
	assert.Equal(t, gohost.DeterminismVerified, f.Determinism, f.Level)
	assert.Equal(t, filepath.Join(dir, "schedule.json"), f.ScheduleFile)
	assert.Contains(t, f.Replay, "replay --impl fixture/lock --scenario broken-client --seed ")

	again := pasted(t, f.Replay)
	assert.Equal(t, exitViolated, again.code, "the replay line violates again: %s", again.stderr)
	assert.Contains(t, again.stdout, "trace hash "+f.TraceHash+", identical to --hash")
	assert.Contains(t, again.stdout, "violated P1")
}

// --scenario all explores every scenario of a goroutine-host
// implementation at once: it finds the broken client's failure, names its
// scenario, and the replay line reproduces it.
func TestExploreGoHostAllScenarios(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	r := goSimrun(t, "explore", "--impl", "fixture/lock", "--scenario", "all", "--budget", "30", "--max-attempts", "5",
		"--out", t.TempDir(), "--json")
	require.Equal(t, exitViolated, r.code, r.stderr)
	var out exploreResult
	oneJSONObject(t, r.stdout, &out)
	assert.ElementsMatch(t, []string{"careful-client", "broken-client"}, out.Scenarios)
	require.NotNil(t, out.Failure)
	assert.Equal(t, "broken-client", out.Scenario)
	assert.Equal(t, "broken-client", out.Steps[len(out.Steps)-1].Scenario)
	again := pasted(t, out.Failure.Replay)
	assert.Equal(t, exitViolated, again.code, "the replay line violates again: %s", again.stderr)
	assert.Contains(t, again.stdout, "trace hash "+out.Failure.TraceHash+", identical to --hash")
}

// The same explorer seed makes the same inputs on the goroutine host, and
// where the host is deterministic (the fixture is, verified by
// repetition) the same coverage after every run; a correct client within
// the budget exits 0 with what was reached and never reached.
func TestExploreGoHostDeterministic(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	args := []string{"explore", "--impl", "fixture/lock", "--scenario", "careful-client", "--budget", "5", "--json"}
	var a, b exploreResult
	r := goSimrun(t, args...)
	require.Equal(t, exitOK, r.code, r.stderr)
	oneJSONObject(t, r.stdout, &a)
	r = goSimrun(t, args...)
	require.Equal(t, exitOK, r.code, r.stderr)
	oneJSONObject(t, r.stdout, &b)
	require.Len(t, a.Steps, 5)
	assert.Equal(t, a.Steps, b.Steps, "the same inputs, reaching the same behaviours")
	assert.NotEmpty(t, a.Reached)
	assert.NotEmpty(t, a.Unreached, "a sweep this small leaves behaviours unreached, and says which")
	assert.Contains(t, a.NotApplicable, "checkpoint-accepted", "the fixture has no checkpointed tasks")

	text := goSimrun(t, "explore", "--impl", "fixture/lock", "--scenario", "careful-client", "--budget", "3", "--seed", "2")
	require.Equal(t, exitOK, text.code, text.stderr)
	assert.Contains(t, text.stdout, "no property violated in 3 runs")
	assert.Contains(t, text.stdout, "never reached (")
}

// Bad input exits 2 and names the flag; the worker lists what a search may
// use of each scenario.
func TestExploreGoHostBadInput(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown scenario", []string{"--scenario", "nope"}, `--scenario: fixture/lock has no scenario "nope"`},
		{"several scenarios", nil, `--scenario: fixture/lock has 2 scenarios, name one or "all": careful-client, broken-client`},
		{"bad budget", []string{"--scenario", "broken-client", "--budget", "0"}, "--budget"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := goSimrun(t, append([]string{"explore", "--impl", "fixture/lock"}, tt.args...)...)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.want)
		})
	}
	r := goSimrun(t, "list", "--impl", "fixture/lock", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var l goScenarioList
	oneJSONObject(t, r.stdout, &l)
	require.Len(t, l.Scenarios, 2)
	assert.Equal(t, []string{"c1", "c2"}, l.Scenarios[1].Targets, "the nemesis's targets")
	assert.Equal(t, gohost.Triggers(), l.Scenarios[1].Failpoints, "the host's triggers; the fixture marks none of its own")
	assert.ElementsMatch(t, []string{"pause", "partition"}, l.Scenarios[1].FaultKinds, "the kinds its nemesis draws")
}
