package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
)

func TestExitForVerdicts(t *testing.T) {
	tests := []struct {
		violated, unknown int
		policy            unknownPolicy
		want              int
	}{
		{0, 0, unknownFail, exitOK},
		{0, 0, unknownPass, exitOK},
		{0, 0, "", exitOK},
		{1, 0, unknownFail, exitViolated},
		{1, 0, unknownPass, exitViolated},
		{0, 2, unknownFail, exitViolated},
		{0, 2, "", exitViolated},
		{0, 2, unknownPass, exitOK},
		{3, 2, unknownPass, exitViolated},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, exitForVerdicts(tt.violated, tt.unknown, tt.policy),
			"violated %d unknown %d policy %q", tt.violated, tt.unknown, tt.policy)
	}
}

// A run's verdicts decide its exit code by the one rule: a plain unknown
// fails under the default policy; an exceeded assumption never fails.
func TestRunVerdict(t *testing.T) {
	ok := checker.Result{Property: "P2", Name: "fencing", Status: checker.OK}
	unknown := checker.Result{Property: "P4", Name: "liveness", Status: checker.Unknown, Summary: "run too short"}
	exceeded := checker.Result{Property: "P1", Name: "exclusivity", Status: checker.Unknown, AssumptionExceeded: true}
	violated := checker.Result{Property: "P2", Name: "fencing", Status: checker.Violated,
		Violations: []checker.Violation{{Property: "P2", Detail: "stale write"}}}
	tests := []struct {
		name    string
		checks  []checker.Result
		stopped string
		policy  unknownPolicy
		code    int
		message string
	}{
		{name: "all ok", checks: []checker.Result{ok}, code: exitOK},
		{name: "assumption exceeded", checks: []checker.Result{ok, exceeded}, code: exitOK},
		{name: "unknown fails by default", checks: []checker.Result{ok, unknown}, policy: unknownFail, code: exitViolated,
			message: "P4 liveness (run too short); unknown is never a pass (--unknown=pass"},
		{name: "unknown passes when told", checks: []checker.Result{ok, unknown}, policy: unknownPass, code: exitOK},
		{name: "violated", checks: []checker.Result{violated, unknown}, policy: unknownPass, code: exitViolated},
		{name: "stopped at a limit", checks: []checker.Result{ok}, stopped: "event limit", code: exitViolated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := reports.Run{Properties: tt.checks, Stopped: tt.stopped}
			for _, c := range tt.checks {
				run.Violations = append(run.Violations, c.Violations...)
			}
			var stderr bytes.Buffer
			code := (&app{stderr: &stderr}).exitCode(nil, runVerdict(run, tt.policy))
			assert.Equal(t, tt.code, code)
			if tt.message != "" {
				assert.Contains(t, stderr.String(), tt.message)
			}
		})
	}
}

// P1 under drift beyond rho is "assumption exceeded": shown, and exit 0.
func TestRunAssumptionExceededPasses(t *testing.T) {
	r := simrun(t, "run", "--scenario", "clock-drift-beyond", "--seed", "1")
	require.Equal(t, exitOK, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "ASSUMPTION EXCEEDED")
	assert.Empty(t, r.stderr)
}

// A harness bug (a runtime error in the wiring) exits 3, says it is
// leasesim's bug, and gives no verdict on the implementation.
func TestRunHarnessBugExitsThree(t *testing.T) {
	t.Cleanup(scenarios.InjectHarnessFault())
	for _, args := range [][]string{
		{"run", "--scenario", "kleppmann-gc-pause", "--seed", "1"},
		{"run", "--scenario", "swarm", "--seed", "3", "--json"},
		{"replay", "--scenario", "swarm", "--seed", "3"},
		{"shrink", "--scenario", "kleppmann-gc-pause", "--seed", "1", "--impl", "mutant/unfenced-resource", "--out", t.TempDir()},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := simrun(t, args...)
			assert.Equal(t, exitInternal, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, "harness bug")
			assert.Contains(t, r.stderr, "index out of range")
			assert.Contains(t, r.stderr, "not of the implementation under test")
			assert.Empty(t, r.stdout, "no verdict")
		})
	}
}

func TestSeedFlags(t *testing.T) {
	random := bytes.Repeat([]byte{0, 0, 0, 0, 0, 0, 0x30, 0x39}, 2) // 12345
	tests := []struct {
		args   []string
		code   int
		stderr string // on stderr, first
		seed   uint64 // the run's seed, when code is 0
	}{
		{args: []string{"run", "--scenario", "kleppmann-gc-pause", "--seed", "7", "--json"}, seed: 7},
		{args: []string{"run", "--scenario", "kleppmann-gc-pause", "--seed", "random", "--json"}, seed: 12345,
			stderr: "--seed random: drew 12345 (repeat with --seed 12345)\n"},
		{args: []string{"run", "--seed", "random:3"}, code: exitUsage, stderr: `--seed "random:3": want one seed`},
		{args: []string{"tune", "--workload", steadyBatch, "--seeds", "random:x"}, code: exitUsage,
			stderr: `--seeds "random:x": want random:N`},
		{args: []string{"tune", "--workload", steadyBatch, "--seeds", "2-"}, code: exitUsage,
			stderr: `--seeds: seeds "2-"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			a := &app{random: bytes.NewReader(random)}
			code := a.runWith(context.Background(), tt.args, &stdout, &stderr)
			require.Equal(t, tt.code, code, "stderr: %s", stderr.String())
			if tt.code == exitOK && tt.args[0] == "run" {
				var run struct{ Seed uint64 }
				oneJSONObject(t, stdout.String(), &run)
				assert.Equal(t, tt.seed, run.Seed)
			}
			if tt.stderr != "" {
				if tt.code == exitOK {
					assert.True(t, strings.HasPrefix(stderr.String(), tt.stderr), "printed first: %q", stderr.String())
				} else {
					assert.Contains(t, stderr.String(), tt.stderr)
				}
			}
		})
	}
}

// A seed set flag reads every form, and draws random seeds once, printing
// them first with the flag that repeats them.
func TestParseSeedsFlag(t *testing.T) {
	tests := []struct {
		value, want, printed string
	}{
		{value: "1-5,9", want: "1-5,9"},
		{value: "5", want: "5"},
		{value: "random", want: "12345", printed: "--seeds random: drew 12345 (repeat with --seeds 12345)\n"},
		{value: "random:3", want: "12345-12347", printed: "--seeds random:3: drew 12345-12347 (repeat with --seeds 12345-12347)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			var stderr bytes.Buffer
			a := &app{stderr: &stderr, random: bytes.NewReader([]byte{0, 0, 0, 0, 0, 0, 0x30, 0x39})}
			got, err := a.parseSeeds(nil, "--seeds", tt.value)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.String())
			assert.Equal(t, tt.printed, stderr.String())
		})
	}
}

func TestReplayAndShrinkJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	require.Equal(t, exitViolated, simrun(t, "run", "--scenario", "kleppmann-gc-pause", "--seed", "1",
		"--impl", "mutant/unfenced-resource", "--out", dir).code)
	for _, arg := range []string{dir, filepath.Join(dir, reports.RunJSONFile)} {
		r := simrun(t, "replay", arg, "--json")
		require.Equal(t, exitViolated, r.code, "the replayed run violates P2 again: %s", r.stderr)
		var res replayResult
		oneJSONObject(t, r.stdout, &res)
		assert.Equal(t, replaySchemaVersion, res.SchemaVersion)
		assert.True(t, res.Identical)
		assert.Contains(t, res.Violated, "P2 fencing")
	}
	text := simrun(t, "replay", filepath.Join(dir, reports.RunJSONFile))
	assert.Contains(t, text.stdout, "identical to")
	assert.Contains(t, text.stdout, "verdict: violated P2 fencing")
	assert.Equal(t, exitViolated, text.code)

	r := simrun(t, "shrink", "--scenario", "kleppmann-gc-pause", "--seed", "1", "--impl", "mutant/unfenced-resource",
		"--out", t.TempDir(), "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var res map[string]any
	oneJSONObject(t, r.stdout, &res)
	assert.EqualValues(t, shrinkSchemaVersion, res["schema_version"])
	assert.Equal(t, "P2", res["property"])
	assert.Contains(t, res["replay"], "--schedule ")
	assert.Contains(t, r.stderr, "shrinking", "progress on stderr")
	data, err := os.ReadFile(res["schedule_file"].(string))
	require.NoError(t, err)
	var onDisk map[string]any
	require.NoError(t, json.Unmarshal(data, &onDisk))
	assert.Equal(t, res["schedule"], onDisk)
}

func TestCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "run", "--scenario", "kleppmann"}, []string{"kleppmann-gc-pause"}},
		{[]string{"__complete", "run", "--impl", "mutant/unf"}, []string{"mutant/unfenced-resource"}},
		{[]string{"__complete", "sweep", "--scenario", "swarm,kle"}, []string{"swarm,kleppmann-gc-pause"}},
		{[]string{"__complete", "sweep", "--scenario", "al"}, []string{"all"}},
		{[]string{"completion", "bash"}, []string{"bash completion"}},
	}
	for _, tt := range tests {
		r := simrun(t, tt.args...)
		require.Equal(t, exitOK, r.code, r.stderr)
		for _, w := range tt.want {
			assert.Contains(t, r.stdout, w, "%v", tt.args)
		}
	}
}

func TestSweepFinalProgressLine(t *testing.T) {
	r := simrun(t, "sweep", "--scenario", "kleppmann-gc-pause", "--seeds", "1-3,7", "--json")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.True(t, strings.HasSuffix(r.stderr, "sweep: 4/4 runs, 0 failing\n"), "stderr: %q", r.stderr)
}

// A run whose premise did not happen (the isolation missed the holder) is
// unknown: exit 1 by default, naming why, and 0 only with --unknown=pass.
func TestRunUnknownPolicy(t *testing.T) {
	schedule := writeFile(t, "s.json", `{"version": 1, "heal_at": "90s", "events": [{"at": "10s", "kind": "isolate", "node": "h2"}, {"at": "30s", "kind": "heal"}]}`)
	args := []string{"run", "--scenario", "partition-heal", "--seed", "4", "--schedule", schedule}
	r := simrun(t, args...)
	assert.Equal(t, exitViolated, r.code, "unknown is never a pass: %s", r.stdout)
	assert.Contains(t, r.stderr, "unknown: ")
	assert.Contains(t, r.stderr, "the story did not happen")
	assert.Contains(t, r.stderr, "--unknown=pass")

	r = simrun(t, append(args, "--unknown=pass")...)
	assert.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stderr)
}
