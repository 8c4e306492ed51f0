package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// shardFiles runs a sweep in n shards and writes each one's JSON summary
// into dir; it returns the paths.
func shardFiles(t *testing.T, dir string, n int, args ...string) []string {
	t.Helper()
	var paths []string
	for i := 1; i <= n; i++ {
		shard := []string{"--shard", sweep.Shard{Index: i, Count: n}.String(), "--json", "--parallel", "2"}
		r := simrun(t, append(append([]string{"sweep"}, args...), shard...)...)
		require.Contains(t, []int{exitOK, exitViolated}, r.code, r.stderr)
		path := filepath.Join(dir, "shard"+sweep.Shard{Index: i, Count: n}.String()[:1]+".json")
		require.NoError(t, os.WriteFile(path, []byte(r.stdout), 0o644))
		paths = append(paths, path)
	}
	return paths
}

func TestMergeOfSomeShardsIsNotAPass(t *testing.T) {
	dir := t.TempDir()
	parts := shardFiles(t, dir, 2, "--scenario", "kleppmann-gc-pause", "--seeds", "1-4")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
		wantStdout string
	}{
		{"1 of 2 shards", []string{parts[0]}, exitUsage, "incomplete: shards 2/2 missing (2 of 4 runs merged)", "PARTIAL: shards 2/2 missing"},
		{"1 of 2 shards, accepted", []string{"--allow-partial", parts[0]}, exitOK, "", "PARTIAL: shards 2/2 missing"},
		{"a shard twice", []string{parts[0], parts[0]}, exitUsage, parts[0] + ": shard 1/2 is already merged", ""},
		{"both shards", parts, exitOK, "", "4 runs: every property held"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := simrun(t, append([]string{"merge"}, tt.args...)...)
			assert.Equal(t, tt.wantCode, r.code, r.stderr)
			assert.Contains(t, r.stderr, tt.wantStderr)
			assert.Contains(t, r.stdout, tt.wantStdout)
			if tt.wantCode == exitOK && strings.Contains(tt.wantStdout, "PARTIAL") {
				assert.NotContains(t, r.stdout, "every property held\n", "partial is never an unqualified pass")
			}
		})
	}
	// sweep.html of a partial merge says PARTIAL, not a green OK.
	out := filepath.Join(dir, "merged")
	r := simrun(t, "merge", "--allow-partial", "--out", out, parts[1])
	require.Equal(t, exitOK, r.code, r.stderr)
	page, err := os.ReadFile(filepath.Join(out, reports.SweepHTMLFile))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<span class="verdict unknown">PARTIAL</span>`)
	assert.Contains(t, string(page), "shards 1/2 missing")
}

func TestMergeOfAFailingShardNamesTheMissingOne(t *testing.T) {
	parts := shardFiles(t, t.TempDir(), 2, "--scenario", "kleppmann-gc-pause", "--seeds", "1-4", "--impl", "mutant/unfenced-resource")
	r := simrun(t, "merge", parts[1])
	assert.Equal(t, exitViolated, r.code, "a violation is reported as one")
	assert.Contains(t, r.stderr, "shards 1/2 missing")
}

// A failing run's printed line runs as pasted and reproduces the run; the
// sweep keeps its report directory, which sweep.html links; and
// --rerun-failures re-runs exactly the failing runs.
func TestSweepFailuresReplayKeepAndRerun(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs a POSIX shell")
	}
	dir := workDir(t)
	out := filepath.Join(dir, "out")
	code, text := shell(t, dir, "bin/simrun sweep --scenario kleppmann-gc-pause,asymmetric-partition --seeds 1-4 "+
		"--impl mutant/unfenced-resource --out out --parallel 2")
	require.Equal(t, exitViolated, code, text)
	data, err := os.ReadFile(filepath.Join(out, reports.SweepJSONFile))
	require.NoError(t, err)
	var s sweep.Summary
	require.NoError(t, json.Unmarshal(data, &s))
	require.NotEmpty(t, s.Failures)
	f := s.Failures[0]
	assert.Contains(t, text, f.Replay)
	assert.True(t, strings.HasPrefix(f.Replay, "bin/simrun run --scenario "), "the line names the CLI as it was invoked: %s", f.Replay)

	code, replayed := shell(t, dir, f.Replay)
	assert.Equal(t, exitViolated, code, replayed)
	assert.Contains(t, replayed, f.TraceHash, "the same run")

	require.NotEmpty(t, f.Dir)
	assert.FileExists(t, filepath.Join(out, f.Dir, reports.ReportFile))
	assert.FileExists(t, filepath.Join(out, f.Dir, reports.RunJSONFile))
	page, err := os.ReadFile(filepath.Join(out, reports.SweepHTMLFile))
	require.NoError(t, err)
	assert.Contains(t, string(page), `href="`+f.Dir+`/report.html"`)

	r := simrun(t, "sweep", "--rerun-failures", filepath.Join(out, reports.SweepJSONFile), "--json")
	require.Equal(t, exitViolated, r.code, r.stderr)
	var again sweep.Summary
	oneJSONObject(t, r.stdout, &again)
	assert.Equal(t, s.Failed(), again.Runs, "exactly the failing runs")
	assert.Equal(t, s.Failed(), again.Failed(), "and they fail again")
	assert.Equal(t, "mutant/unfenced-resource", again.Impl, "with the summary's implementation")
	assert.Contains(t, r.stderr, "re-running")

	bad := simrun(t, "sweep", "--rerun-failures", filepath.Join(out, reports.SweepJSONFile), "--seeds", "1-2")
	assert.Equal(t, exitUsage, bad.code)
	assert.Contains(t, bad.stderr, "--seeds: not with --rerun-failures")
}

func TestSweepSaysWhatItVerified(t *testing.T) {
	r := simrun(t, "sweep", "--scenario", "kleppmann-gc-pause", "--seeds", "1-3", "--verify-determinism")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "each of the 3 runs executed twice: every pair of trace hashes identical")
	assert.Contains(t, r.stdout, "runs/s")
	assert.NotContains(t, r.stdout, "seeds/s")
}

// A deliberately injected runtime error in harness code is a harness bug:
// exit 3, never a verdict on the implementation.
func TestSweepHarnessBugExitsThree(t *testing.T) {
	disarm := scenarios.InjectHarnessFault()
	defer disarm()
	r := simrunContext(t, context.Background(), "sweep", "--scenario", "kleppmann-gc-pause", "--seeds", "1-3")
	assert.Equal(t, exitInternal, r.code, r.stderr)
	assert.Contains(t, r.stderr, "internal error")
	assert.Contains(t, r.stderr, "not of correct")
}
