package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/reports"
)

// The fixture zoo module (testdata/gozoo/lockfix) serves fixture/lock: a
// careful-client scenario and a broken-client one that violates P1 on some
// seeds (1 does, 2 does not).
const fixtureZoo = "testdata/gozoo"

// goSimrun runs simrun with the fixture's zoo directory.
func goSimrun(t *testing.T, args ...string) result {
	t.Helper()
	return simrun(t, append(args, "--zoo-dir", fixtureZoo)...)
}

// pasted runs a printed simrun line as a user pastes it.
func pasted(t *testing.T, line string) result {
	t.Helper()
	words := strings.Fields(line)
	require.Equal(t, repro.Program(), words[0], line)
	return simrun(t, words[1:]...)
}

func TestGoHostRunJudgesOneSeed(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	for _, tt := range []struct {
		seed string
		code int
		p1   checker.Status
	}{
		{"2", exitOK, checker.OK},
		{"1", exitViolated, checker.Violated},
	} {
		t.Run("seed="+tt.seed, func(t *testing.T) {
			r := goSimrun(t, "run", "--impl", "fixture/lock", "--scenario", "broken-client", "--seed", tt.seed, "--json")
			require.Equal(t, tt.code, r.code, r.stderr)
			var run goRun
			oneJSONObject(t, r.stdout, &run)
			assert.Equal(t, reports.RunSchemaVersion, run.SchemaVersion, "the run object every host prints")
			assert.Equal(t, hostGoroutine, run.Host)
			assert.Equal(t, tt.p1, run.Properties[0].Status, run.Properties[0].Summary)
			assert.Equal(t, gohost.DeterminismVerified, run.Determinism)
			assert.Equal(t, "broken-client", run.Scenario)
			assert.NotEmpty(t, run.Faults, "the fault log, from the history")
			assert.Contains(t, run.Report, "give --out DIR")
			// The replay line runs as printed and confirms the hash.
			again := pasted(t, run.Replay)
			assert.Equal(t, tt.code, again.code, again.stderr)
			assert.Contains(t, again.stdout, "trace hash "+run.TraceHash+", identical to --hash")

			text := goSimrun(t, "run", "--impl", "fixture/lock", "--scenario", "broken-client", "--seed", tt.seed)
			assert.Equal(t, tt.code, text.code)
			assert.Contains(t, text.stdout, "Determinism  verified")
			assert.Contains(t, text.stdout, "Trace        "+run.TraceHash)
		})
	}
}

func TestGoHostShrinkReplaysToItsHash(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	out := t.TempDir()
	r := goSimrun(t, "shrink", "--impl", "fixture/lock", "--scenario", "broken-client", "--seed", "1", "--out", out, "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var s goShrink
	oneJSONObject(t, r.stdout, &s)
	assert.Equal(t, "P1", s.Property)
	assert.LessOrEqual(t, s.EventsAfter, 3, "shrunk: %s", s.Schedule)
	assert.Less(t, s.EventsAfter, s.EventsBefore)
	assert.FileExists(t, filepath.Join(out, "schedule.json"))
	again := pasted(t, s.Replay)
	assert.Equal(t, exitViolated, again.code, "the shrunk schedule still violates P1: %s", again.stderr)
	assert.Contains(t, again.stdout, "trace hash "+s.TraceHash+", identical to --hash")
	assert.Contains(t, again.stdout, "violated P1")

	none := goSimrun(t, "shrink", "--impl", "fixture/lock", "--scenario", "broken-client", "--seed", "2", "--out", out)
	assert.Equal(t, exitUsage, none.code)
	assert.Contains(t, none.stderr, "nothing to shrink: seed 2 passes")
}

func TestGoHostBadInputExitsTwo(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	malformed := writeFile(t, "malformed.json", "{\"version\": 1,\n  \"events\": [}\n")
	stranger := writeFile(t, "stranger.json", `{"version": 1, "heal_at": "10s", "events": [{"at": "1s", "kind": "pause", "node": "h9", "duration": "1s"}]}`)
	badZoo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(badZoo, "m"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(badZoo, "m", manifestFile), []byte(`{"schema_version": 1, "impls": [{"name": "x", "wroker": "TestW"}]}`), 0o644))
	run := []string{"run", "--impl", "fixture/lock", "--scenario", "broken-client"}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown scenario", []string{"run", "--impl", "fixture/lock", "--scenario", "nope"}, `--scenario: fixture/lock: unknown scenario "nope"`},
		{"unknown impl", []string{"run", "--impl", "fixture/nope"}, "--impl: unknown implementation \"fixture/nope\""},
		{"malformed schedule", append(run, "--schedule", malformed), "--schedule " + malformed + ": faults: line 2"},
		{"schedule of other nodes", append(run, "--schedule", stranger), "--schedule " + stranger + ":"},
		{"trace stream", append(run, "--trace", filepath.Join(t.TempDir(), "t.jsonl")), "--trace: not for goroutine-host implementations"},
		{"bad seed", append(run, "--seed", "x"), "--seed \"x\""},
		{"bad hash", []string{"replay", "--impl", "fixture/lock", "--scenario", "broken-client", "--seed", "1", "--hash", "xyz"}, "--hash \"xyz\""},
		{"sweep bad shard", []string{"sweep", "--impl", "fixture/lock", "--shard", "3/2"}, "--shard:"},
		{"sweep rerun with seeds", []string{"sweep", "--impl", "fixture/lock", "--rerun-failures", stranger, "--seeds", "1-2"}, "--seeds: not with --rerun-failures"},
		{"sweep unknown scenario", []string{"sweep", "--impl", "fixture/lock", "--scenario", "nope"}, `--scenario: fixture/lock has no scenario "nope"`},
		{"event host with --hash", []string{"replay", "--scenario", "swarm", "--seed", "1", "--hash", "0000000000000000"}, "--schedule, --hash: only for goroutine-host"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := goSimrun(t, tt.args...)
			assert.Equal(t, exitUsage, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, tt.want)
		})
	}
	for _, tt := range []struct{ name, dir, want string }{
		{"missing zoo directory", filepath.Join(t.TempDir(), "none"), "--zoo-dir"},
		{"bad manifest", badZoo, filepath.Join(badZoo, "m", manifestFile) + `: line 1, column 47: impls[0].wroker: unknown field`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := simrun(t, "run", "--impl", "fixture/lock", "--zoo-dir", tt.dir)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.want)
		})
	}
}

func TestGoHostList(t *testing.T) {
	r := goSimrun(t, "list", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var c struct {
		Scenarios     []entry       `json:"scenarios"`
		GoroutineHost []goImplEntry `json:"goroutine_host_impls"`
	}
	oneJSONObject(t, r.stdout, &c)
	assert.NotEmpty(t, c.Scenarios, "the event host's catalogue is still there")
	require.Len(t, c.GoroutineHost, 1)
	assert.Equal(t, "fixture/lock", c.GoroutineHost[0].Name)
	assert.Equal(t, filepath.Join(fixtureZoo, "lockfix"), c.GoroutineHost[0].Module)

	r = goSimrun(t, "list", "--impl", "fixture/lock", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var l goScenarioList
	oneJSONObject(t, r.stdout, &l)
	require.Len(t, l.Scenarios, 2)
	assert.Equal(t, "broken-client", l.Scenarios[1].Name)
	assert.Equal(t, []string{"lock", "store", "c1", "c2"}, l.Scenarios[1].Nodes)

	text := goSimrun(t, "list")
	assert.Contains(t, text.stdout, "Goroutine-host implementations")
	assert.Contains(t, text.stdout, "fixture/lock")
}
