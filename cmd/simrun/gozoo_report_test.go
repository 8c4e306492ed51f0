package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/reports"
)

// runIdentity is what a run's report says about the run itself rather than
// about its history: the implementation's name, the trace hash, the wall
// time, the replay line, the file it was read from and the fault plan. A
// check of the run's history.jsonl names itself there instead.
var runIdentity = []string{"impl", "host", "trace_hash", "events", "wall_seconds", "acceleration", "replay", "source", "producer"}

// judgedPart is a run directory's report with the run's identity left
// out: report.html without its "Run" section and title's implementation,
// run.json without runIdentity, trace.perfetto.json without otherData.
func judgedPart(t *testing.T, dir string) (page string, run, trace map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, reports.ReportFile))
	require.NoError(t, err)
	page = regexp.MustCompile(`(?s)<section>\s*<h2>Run</h2>.*?</section>`).ReplaceAllString(string(b), "")
	page = regexp.MustCompile(` · impl [^<]*</small>`).ReplaceAllString(page, "</small>")
	require.NotContains(t, page, "<h2>Run</h2>")
	for name, v := range map[string]*map[string]any{reports.RunJSONFile: &run, reports.PerfettoFile: &trace} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, v), name)
	}
	for _, k := range runIdentity {
		delete(run, k)
	}
	delete(trace, "otherData")
	return page, run, trace
}

// TestGoHostRunOutIsWhatCheckDraws: a goroutine-host run with --out writes
// report.html, history.jsonl and trace.perfetto.json, and simrun check of
// its history.jsonl gives the same verdicts, the same history file and the
// same report but for the run's own block.
func TestGoHostRunOutIsWhatCheckDraws(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	for _, tt := range []struct {
		seed string
		code int
		p1   checker.Status
	}{
		{"1", exitViolated, checker.Violated},
		{"2", exitOK, checker.OK},
	} {
		t.Run("seed="+tt.seed, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			r := goSimrun(t, "run", "--impl", "fixture/lock", "--scenario", "broken-client", "--seed", tt.seed, "--out", dir, "--json")
			require.Equal(t, tt.code, r.code, r.stderr)
			var run goRun
			oneJSONObject(t, r.stdout, &run)
			assert.Equal(t, filepath.Join(dir, reports.ReportFile), run.Report)
			assert.Contains(t, r.stderr, "wrote "+filepath.Join(dir, reports.RunJSONFile))
			for _, f := range []string{reports.ReportFile, reports.HistoryFile, reports.PerfettoFile, reports.ScheduleFile} {
				assert.FileExists(t, filepath.Join(dir, f))
			}

			checked := filepath.Join(t.TempDir(), "check")
			c := simrun(t, "check", filepath.Join(dir, reports.HistoryFile), "--out", checked, "--json")
			require.Equal(t, tt.code, c.code, c.stderr)
			var judged reports.Run
			oneJSONObject(t, c.stdout, &judged)
			require.Len(t, judged.Properties, len(run.Properties))
			for i, v := range run.Properties {
				assert.Equal(t, v.Property, judged.Properties[i].Property)
				assert.Equal(t, v.Status, judged.Properties[i].Status, "%s: the run said %s", v.Property, v.Summary)
			}
			assert.Equal(t, tt.p1, judged.Properties[0].Status)
			// run --json is the run object simrun check prints for the file.
			assert.Equal(t, run.Properties, judged.Properties)
			assert.Equal(t, run.Violations, judged.Violations)
			assert.Equal(t, run.Metrics, judged.Metrics)
			assert.Equal(t, run.Faults, judged.Faults)
			assert.Equal(t, run.Coverage, judged.Coverage)
			assert.Equal(t, "leasesim goroutine host", judged.Producer)
			assert.Equal(t, "verified", judged.Determinism)

			runHist, err := os.ReadFile(filepath.Join(dir, reports.HistoryFile))
			require.NoError(t, err)
			checkHist, err := os.ReadFile(filepath.Join(checked, reports.HistoryFile))
			require.NoError(t, err)
			assert.Equal(t, string(runHist), string(checkHist), "check writes the history it read, as the run wrote it")
			runPage, runJSON, runTrace := judgedPart(t, dir)
			checkPage, checkJSON, checkTrace := judgedPart(t, checked)
			assert.Equal(t, runPage, checkPage, "report.html")
			assert.Equal(t, runJSON, checkJSON, "run.json")
			assert.Equal(t, runTrace, checkTrace, "trace.perfetto.json")
			assert.Contains(t, runPage, `class="verdict `+map[checker.Status]string{checker.OK: "ok", checker.Violated: "violated"}[tt.p1]+`"`)

			// replay DIR (or DIR/run.json) replays the run as its line does.
			for _, arg := range []string{dir, filepath.Join(dir, reports.RunJSONFile)} {
				rp := simrun(t, "replay", arg)
				assert.Equal(t, tt.code, rp.code, rp.stderr)
				assert.Contains(t, rp.stdout, "trace hash "+run.TraceHash+", identical to --hash")
			}
			bad := simrun(t, "replay", dir, "--seed", "3")
			assert.Equal(t, exitUsage, bad.code, bad.stderr)
			assert.Contains(t, bad.stderr, "--seed: not with a run directory")
		})
	}
}
