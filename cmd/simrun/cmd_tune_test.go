package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/tune"
)

// steadyBatch is the example workload the CLI tests tune.
const steadyBatch = "../../examples/steady-batch.jsonl"

// smallTune is a 2×1×2 grid on two seeds: a second of work.
func smallTune(extra ...string) []string {
	return append([]string{"tune", "--workload", steadyBatch, "--ttl", "2s,10s", "--checkpoint", "5u,none", "--seeds", "1-2"}, extra...)
}

func TestTuneBadInputExitsTwo(t *testing.T) {
	badWorkload := writeFile(t, "bad.jsonl", `{"type":"header","version":1,"name":"w","workers":2,"duration":"1m"}`+"\n"+
		`{"type":"task","at":"1s","id":"t1","units":0,"unit_time":"1s"}`+"\n")
	notJSON := writeFile(t, "notjson.jsonl", "hello\n")
	thirdMember := writeFile(t, "member.jsonl", `{"type":"header","version":1,"name":"w","workers":2,"duration":"1m"}`+"\n"+
		`{"type":"task","at":"1s","id":"t1","units":2,"unit_time":"1s"}`+"\n"+`{"type":"crash","at":"2s","member":"grantor3"}`+"\n")
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"no workload", []string{"tune"}, []string{"--workload: missing"}},
		{"missing workload", []string{"tune", "--workload", "/no/such/workload.jsonl"}, []string{"--workload /no/such/workload.jsonl", "no such file"}},
		{"bad workload field", []string{"tune", "--workload", badWorkload}, []string{"--workload " + badWorkload, "line 2", `task "t1"`, "units: must be positive"}},
		{"workload not JSON", []string{"tune", "--workload", notJSON}, []string{notJSON, "line 1"}},
		{"workload names a member the store lacks", []string{"tune", "--workload", thirdMember, "--ttl", "5s", "--checkpoint", "5u"},
			[]string{"--workload " + thirdMember, "line 3: crash: member: grantor3 is not a member of the lease store under test, which has 1 (grantor)"}},
		{"ttl not a duration", smallTune("--ttl", "x"), []string{`--ttl: "x"`}},
		{"ttl empty", smallTune("--ttl", ""), []string{"--ttl: empty"}},
		{"ttl repeated", smallTune("--ttl", "5s,5000ms"), []string{"--ttl:", "repeats value 1"}},
		{"renew malformed", smallTune("--renew", "often"), []string{`--renew: "often"`, "ttl/3"}},
		{"renew fraction zero", smallTune("--renew", "ttl/0"), []string{"--renew:", "ttl/N"}},
		{"checkpoint malformed", smallTune("--checkpoint", "0u"), []string{`--checkpoint: "0u"`}},
		{"seeds reversed", smallTune("--seeds", "9-3"), []string{"--seeds:", "below the first"}},
		{"seeds list malformed", smallTune("--seeds", "1,,3"), []string{"--seeds:", `"1,,3"`}},
		{"seeds random of none", smallTune("--seeds", "random:0"), []string{`--seeds "random:0"`, "1 <= N"}},
		{"objective unknown", smallTune("--objective", "speed"), []string{`--objective: unknown objective "speed"`}},
		{"store writes malformed", smallTune("--max-store-writes", "fast"), []string{`--max-store-writes: "fast"`}},
		{"reexecuted beyond 100%", smallTune("--max-reexecuted", "120%"), []string{`--max-reexecuted: "120%"`}},
		{"failover malformed", smallTune("--max-failover-p99", "soon"), []string{`--max-failover-p99: "soon"`}},
		{"rho out of range", smallTune("--rho", "0.7"), []string{"--rho: must lie in [0, 0.5)"}},
		{"rho not a number", smallTune("--rho", "x"), []string{`"--rho"`}},
		{"margin negative", smallTune("--margin", "-1s"), []string{"--margin: must not be negative"}},
		{"parallel negative", smallTune("--parallel", "-1"), []string{"--parallel: must not be negative"}},
		{"impl unknown", smallTune("--impl", "nope"), []string{`--impl: unknown implementation "nope"`}},
		{"election timeout, correct impl", smallTune("--election-timeout", "1s"),
			[]string{"--election-timeout: --impl correct has no election timeout to set", "zoo/etcdraft"}},
		{"election timeout, a mutant", smallTune("--election-timeout", "1s", "--impl", "mutant/silent-keepalive-death"),
			[]string{"--election-timeout: --impl mutant/silent-keepalive-death has no election timeout"}},
		{"election timeout malformed", smallTune("--election-timeout", "soon", "--impl", "zoo/etcdraft"),
			[]string{`--election-timeout: "soon": want a positive duration`}},
		{"election timeout zero", smallTune("--election-timeout", "0s", "--impl", "zoo/etcdraft"),
			[]string{`--election-timeout: "0s"`}},
		{"election timeout repeated", smallTune("--election-timeout", "1s,1000ms", "--impl", "zoo/etcdraft"),
			[]string{"--election-timeout:", "repeats value 1"}},
		{"election timeout not whole ticks", smallTune("--election-timeout", "1s,150ms", "--impl", "zoo/etcdraft"),
			[]string{"--election-timeout: value 2: 150ms: zoo/etcdraft counts its election timeout in whole ticks of 100ms"}},
		{"stray argument", append(smallTune(), "extra"), []string{`unknown command "extra"`}},
		{"no valid config", smallTune("--ttl", "60ms", "--renew", "ttl/3"), []string{"--ttl, --renew", "none of the 2 configs is valid", "renew 20ms >= TTL×(1−rho)−margin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := simrun(t, tt.args...)
			assert.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			for _, w := range tt.want {
				assert.Contains(t, r.stderr, w)
			}
			assert.True(t, strings.HasPrefix(r.stderr, "simrun: "), "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, "simrun tune --help")
			assert.NotContains(t, r.stderr, "panic")
		})
	}
}

func TestTuneJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	r := simrun(t, smallTune("--json", "--out", dir, "--max-store-writes", "2/s", "--parallel", "2")...)
	require.Equal(t, exitOK, r.code, "stderr: %s", r.stderr)
	var res tune.Result
	oneJSONObject(t, r.stdout, &res)
	assert.Equal(t, "steady-batch", res.Name)
	assert.Equal(t, steadyBatch, res.Workload)
	assert.Equal(t, "1-2", res.Seeds)
	assert.Equal(t, "correct", res.Impl)
	require.Len(t, res.Configs, 4)
	assert.Equal(t, "ttl=2s renew=ttl/3 checkpoint=5u", res.Configs[0].Label)
	assert.Equal(t, 8, res.Runs)
	require.NotNil(t, res.Constraints.MaxStoreWritesPerSecond)
	assert.Equal(t, 2.0, *res.Constraints.MaxStoreWritesPerSecond)
	assert.NotEmpty(t, res.Explanation)
	assert.Positive(t, res.WallSeconds)
	for _, key := range []string{`"configs"`, `"valid"`, `"invalid_reason"`, `"pareto"`, `"recommended"`, `"explanation"`,
		`"seeds"`, `"workload"`, `"wall_seconds"`, `"failover_p99_ns"`, `"store_writes_per_s"`, `"replay"`} {
		assert.Contains(t, r.stdout, key)
	}
	assert.Contains(t, r.stderr, "wrote "+filepath.Join(dir, reports.TuneJSONFile))
	for _, name := range []string{reports.TuneJSONFile, reports.TuneHTMLFile} {
		info, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Positive(t, info.Size())
	}
}

func TestTuneText(t *testing.T) {
	r := simrun(t, smallTune("--objective", "store-writes")...)
	require.Equal(t, exitOK, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "leasesim tune  steady-batch")
	assert.Contains(t, r.stdout, "minimise store-writes, no constraints")
	assert.Regexp(t, `(?m)^  ttl\s+renew\s+checkpoint\s+failover p99`, r.stdout)
	assert.Regexp(t, `(?m)^→`, r.stdout, "a recommendation")
	assert.Contains(t, r.stdout, ": the fewest store writes (")
	assert.True(t, strings.HasSuffix(r.stderr, "tune: 8/8 runs, 0 failing\n"), "a final progress line: %q", r.stderr)
	assert.NotContains(t, r.stderr, "FAIL", "no bar off a terminal, no failure")
}

// No config meets the constraints: nothing is recommended, the
// explanation says why, and the command still succeeds.
func TestTuneNothingMeetsTheConstraints(t *testing.T) {
	r := simrun(t, smallTune("--max-store-writes", "0.5/s")...)
	require.Equal(t, exitOK, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "No recommendation: none of the")
	assert.Contains(t, r.stdout, "need more than 0.5 store writes/s")
	assert.NotRegexp(t, `(?m)^→`, r.stdout)
}

// A failing run makes tune exit 1 and prints the simrun run command that
// replays it; the replay fails the same way, with the same trace hash, and
// writes the run's report. (TestReproductionLinesRunAsPrinted runs such a
// line through a shell.)
func TestTuneViolationReplays(t *testing.T) {
	r := simrun(t, "tune", "--workload", steadyBatch, "--ttl", "2s", "--checkpoint", "2u", "--seeds", "1",
		"--impl", "mutant/silent-keepalive-death")
	require.Equal(t, exitViolated, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "1 failing run (any makes simrun tune exit 1)")
	replay := regexp.MustCompile(`(?m)^\s+(simrun run --workload .*--seed 1.*)$`).FindStringSubmatch(r.stdout)
	require.Len(t, replay, 2, "stdout: %s", r.stdout)
	assert.Contains(t, replay[1], "--ttl 2s --renew ttl/3 --checkpoint 2u --rho 0.01 --margin 50ms")
	hash := regexp.MustCompile(`trace ([0-9a-f]+)`).FindStringSubmatch(r.stdout)
	require.Len(t, hash, 2)

	dir := t.TempDir()
	again := simrun(t, append(strings.Fields(strings.TrimPrefix(replay[1], "simrun ")), "--out", dir)...)
	require.Equal(t, exitViolated, again.code, "stderr: %s", again.stderr)
	assert.Regexp(t, `(?m)^Trace\s+`+hash[1]+`$`, again.stdout, "the replay is exact")
	assert.Contains(t, again.stdout, replay[1], "run prints the same line to replay it")
	assert.FileExists(t, filepath.Join(dir, reports.ReportFile))
}

// The replicated store takes an election-timeout axis: its failover is
// measured (from the dead holder's crash to the next holder's belief, the
// store's grants being creates, not acquire replies), the table and the
// JSON carry the axis, and a configuration's run replays with it.
func TestTuneElectionTimeoutAxis(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	// One tune prints the table and, with --out, writes the same result
	// as JSON (tune.json is what --json prints, indented): the sweep runs
	// once for both.
	dir := t.TempDir()
	text := simrun(t, "tune", "--workload", steadyBatch, "--impl", "zoo/etcdraft", "--ttl", "2s", "--checkpoint", "5u",
		"--election-timeout", "500ms,2s", "--seeds", "1-2", "--out", dir)
	require.Equal(t, exitOK, text.code, "stderr: %s", text.stderr)
	data, err := os.ReadFile(filepath.Join(dir, reports.TuneJSONFile))
	require.NoError(t, err)
	var res tune.Result
	oneJSONObject(t, string(data), &res)
	require.Len(t, res.Configs, 2)
	for i, want := range []string{"500ms", "2s"} {
		c := res.Configs[i]
		assert.Equal(t, "ttl=2s renew=ttl/3 checkpoint=5u election="+want, c.Label)
		assert.Equal(t, want, c.ElectionTimeout)
		assert.Positive(t, c.Metrics.Failovers, "%s: the lessor store's failovers are measured", c.Label)
		assert.Positive(t, c.Metrics.FailoverP99, c.Label)
		assert.Contains(t, c.Replay, "--election-timeout "+want)
	}
	assert.Contains(t, string(data), `"election_timeout_ns"`)

	assert.Regexp(t, `(?m)^  ttl\s+renew\s+checkpoint\s+election\s+failover p99`, text.stdout)
	assert.Regexp(t, `(?m)^..2s\s+ttl/3\s+5u\s+500ms\s+\d`, text.stdout, "a measured p99 failover, not -")

	// One configuration runs again as simrun run, with the axis's value.
	res.Workload = steadyBatch
	again := simrun(t, res.RunArgs(res.Configs[1], 1)...)
	require.Equal(t, exitOK, again.code, "stderr: %s", again.stderr)
	assert.Contains(t, again.stdout, "--election-timeout 2s")
}

// simrun run takes --election-timeout only with --workload, and only for
// an implementation that has one.
func TestRunElectionTimeoutRefused(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"without a workload", []string{"run", "--election-timeout", "1s"}, "--election-timeout: only with --workload FILE"},
		{"correct impl", []string{"run", "--workload", steadyBatch, "--ttl", "2s", "--checkpoint", "5u", "--election-timeout", "1s"},
			"--election-timeout: --impl correct has no election timeout to set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := simrun(t, tt.args...)
			assert.Equal(t, exitUsage, r.code, "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, tt.want)
		})
	}
}
