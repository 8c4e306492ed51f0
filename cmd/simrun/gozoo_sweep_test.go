package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/reports"
	"github.com/leasesim/leasesim/sweep"
)

// goSweep runs a goroutine-host sweep of the fixture with --json and
// returns its exit code and summary.
func goSweep(t *testing.T, args ...string) (int, sweep.Summary) {
	t.Helper()
	r := goSimrun(t, append([]string{"sweep", "--impl", "fixture/lock", "--json"}, args...)...)
	require.Contains(t, []int{exitOK, exitViolated}, r.code, r.stderr)
	var s sweep.Summary
	oneJSONObject(t, r.stdout, &s)
	return r.code, s
}

// sansWall is s without the figures that depend on the machine and on
// --parallel (sweep.Run's wall-clock fields), and without its failures'
// report directories.
func sansWall(s sweep.Summary) sweep.Summary {
	s.WallSeconds, s.CPUSeconds, s.EventsPerSecond, s.RunsPerSecond, s.MeanAcceleration, s.Parallel = 0, 0, 0, 0, 0, 0
	s.Failures = slices.Clone(s.Failures)
	for i := range s.Failures {
		s.Failures[i].Dir = ""
	}
	return s
}

// TestGoHostSweepIsOneSweep: a goroutine-host sweep is package sweep's
// summary, the same at any --parallel, and shards 1/2 and 2/2 merged by
// simrun merge equal the whole sweep; --out keeps a report directory per
// failing run, whose history simrun check judges the same; the failures'
// replay lines run as printed; --rerun-failures re-runs exactly them.
func TestGoHostSweepIsOneSweep(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	out := filepath.Join(t.TempDir(), "sweep")
	code, whole := goSweep(t, "--seeds", "1-8", "--parallel", "2", "--out", out)
	require.Equal(t, exitViolated, code)
	assert.Equal(t, "fixture/lock", whole.Impl)
	assert.Equal(t, []string{"careful-client", "broken-client"}, whole.Scenarios)
	assert.Equal(t, 16, whole.Runs)
	require.NotEmpty(t, whole.Failures)
	for _, f := range whole.Failures {
		assert.Equal(t, "broken-client", f.Scenario, "the careful client never fails")
		assert.Equal(t, []string{"P1"}, f.Properties)
	}
	assert.Equal(t, sweep.SeedSetOf(1, 5), whole.ByProperty["P1"]["broken-client"], "seed 1 violates P1, seed 2 does not")
	assert.Contains(t, whole.CoverageNotApplicable, "handoff", "the fixture runs no checkpointed task")

	_, serial := goSweep(t, "--seeds", "1-8", "--parallel", "1")
	assert.Equal(t, sansWall(whole), sansWall(serial), "the summary does not depend on --parallel")

	dir := t.TempDir()
	var parts []string
	for _, shard := range []string{"1/2", "2/2"} {
		r := goSimrun(t, "sweep", "--impl", "fixture/lock", "--seeds", "1-8", "--shard", shard, "--json")
		require.Contains(t, []int{exitOK, exitViolated}, r.code, r.stderr)
		path := filepath.Join(dir, "shard"+shard[:1]+".json")
		require.NoError(t, os.WriteFile(path, []byte(r.stdout), 0o644))
		parts = append(parts, path)
	}
	m := simrun(t, append([]string{"merge", "--json"}, parts...)...)
	require.Equal(t, exitViolated, m.code, m.stderr)
	var merged sweep.Summary
	oneJSONObject(t, m.stdout, &merged)
	assert.Equal(t, sansWall(whole), sansWall(merged), "shard 1/2 + 2/2 merged is the whole sweep")

	first := whole.Failures[0]
	require.NotEmpty(t, first.Dir, "--out kept a report directory for the failing run")
	failDir := filepath.Join(out, first.Dir)
	for _, f := range []string{reports.ReportFile, reports.HistoryFile, reports.PerfettoFile} {
		assert.FileExists(t, filepath.Join(failDir, f))
	}
	c := simrun(t, "check", filepath.Join(failDir, reports.HistoryFile), "--json")
	require.Equal(t, exitViolated, c.code, c.stderr)
	var judged reports.Run
	oneJSONObject(t, c.stdout, &judged)
	assert.Equal(t, checker.Violated, judged.Properties[0].Status, "P1, as the sweep found")
	again := pasted(t, first.Replay)
	assert.Equal(t, exitViolated, again.code, again.stderr)
	assert.Contains(t, again.stdout, "trace hash "+first.TraceHash+", identical to --hash")

	// --rerun-failures takes the implementation from the summary.
	r := goSimrun(t, "sweep", "--rerun-failures", filepath.Join(out, reports.SweepJSONFile), "--json")
	require.Equal(t, exitViolated, r.code, r.stderr)
	var rerun sweep.Summary
	oneJSONObject(t, r.stdout, &rerun)
	assert.Equal(t, len(whole.Failures), rerun.Runs, "exactly the failing runs")
	assert.Equal(t, whole.ByProperty, rerun.ByProperty)
	assert.Contains(t, r.stderr, "re-running 2 failing runs of fixture/lock")
}

// TestGoHostSweepVerifiesDeterminism: --verify-determinism runs each seed
// in a second worker process too; the fixture's careful client gives the
// same trace in both.
func TestGoHostSweepVerifiesDeterminism(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	code, s := goSweep(t, "--scenario", "careful-client", "--seeds", "1-3", "--verify-determinism")
	assert.Equal(t, exitOK, code)
	assert.True(t, s.VerifyDeterminism)
	assert.Equal(t, 3, s.Runs)
	assert.Empty(t, s.ByProperty[sweep.PropertyDeterminism])
}
