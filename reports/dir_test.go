package reports

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// assertSelfContained checks that a page loads nothing from anywhere: no
// external scripts, style sheets, images, fonts or imports. (The SVG
// namespace is a name, not a load.)
func assertSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?i)<script[^>]*\bsrc=`),
		regexp.MustCompile(`(?i)<link\b`),
		regexp.MustCompile(`(?i)<img\b`),
		regexp.MustCompile(`(?i)@import`),
		regexp.MustCompile(`(?i)url\((['"]?)(https?:|//)`),
		regexp.MustCompile(`(?i)(src|href)=["']?(https?:|//)`),
	} {
		assert.False(t, re.MatchString(page), "the page must not load anything: %s", re)
	}
}

func TestWriteRunDir(t *testing.T) {
	run, out := kleppmann(t)
	dir := filepath.Join(t.TempDir(), "run")
	paths, err := WriteRunDir(dir, run, out)
	require.NoError(t, err)
	var names []string
	for _, p := range paths {
		assert.Equal(t, dir, filepath.Dir(p))
		names = append(names, filepath.Base(p))
	}
	assert.Equal(t, []string{"run.json", "schedule.json", "report.html", "trace.perfetto.json", "history.jsonl"}, names)

	t.Run("run.json is the contract's run object", func(t *testing.T) {
		b, err := os.ReadFile(paths[0])
		require.NoError(t, err)
		var fields map[string]any
		require.NoError(t, json.Unmarshal(b, &fields))
		for _, f := range []string{"schema_version", "scenario", "impl", "seed", "trace_hash", "events", "sim_seconds",
			"wall_seconds", "acceleration", "faults", "violations", "metrics", "replay"} {
			assert.Contains(t, fields, f)
		}
		assert.Equal(t, run.TraceHash, fields["trace_hash"])
		assert.Equal(t, run.Replay, fields["replay"])
		assert.Equal(t, []any{}, fields["violations"], "an empty list, not null")
		assert.True(t, strings.HasPrefix(string(b), "{\n  \"schema_version\": 1,\n  \"scenario\""), "indented, schema first")
	})
	t.Run("schedule.json replays", func(t *testing.T) {
		f, err := os.Open(paths[1])
		require.NoError(t, err)
		defer f.Close()
		s, err := faults.Parse(f)
		require.NoError(t, err, "simrun run --schedule reads it")
		assert.Equal(t, *out.Schedule, s)
	})
	t.Run("report.html is self-contained and links its neighbours", func(t *testing.T) {
		b, err := os.ReadFile(paths[2])
		require.NoError(t, err)
		page := string(b)
		assertSelfContained(t, page)
		assert.Contains(t, page, `href="run.json"`)
		assert.Contains(t, page, `href="trace.perfetto.json"`)
		assert.NotContains(t, page, "linearizability.html", "no checker artifact in this directory")
	})
	t.Run("trace.perfetto.json parses", func(t *testing.T) {
		b, err := os.ReadFile(paths[3])
		require.NoError(t, err)
		var tr parsedTrace
		require.NoError(t, json.Unmarshal(b, &tr))
		assert.NotEmpty(t, tr.TraceEvents)
	})
}

func TestWriteRunDirLinksLinearizability(t *testing.T) {
	run, out := kleppmann(t)
	dir := t.TempDir()
	run.Properties[2].Visualization = []byte("<html><body>porcupine</body></html>") // as P3 returns it
	paths, err := WriteRunDir(dir, run, out)
	require.NoError(t, err)
	artifact := filepath.Join(dir, LinearizableFile)
	assert.Equal(t, artifact, paths[len(paths)-1], "the page is among the files written")
	assert.Empty(t, run.Properties[2].Artifact, "the caller's results are left as they were")
	b, err := os.ReadFile(paths[2])
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), `href="linearizability.html"`),
		"linked from P3's row and from the file list, relative to the report")
	page, err := os.ReadFile(artifact)
	require.NoError(t, err)
	assert.Contains(t, string(page), "porcupine", "the checker's page")
	assert.Contains(t, string(page), `<a href="report.html">← report.html</a>`, "with the run's context")
	b, err = os.ReadFile(paths[0])
	require.NoError(t, err)
	assert.Contains(t, string(b), `"artifact": "`+artifact+`"`, "run.json names the file")
}

func TestReportIsDeterministic(t *testing.T) {
	render := func() []byte {
		run, out := runScenario(t, "swarm", 2)
		var buf bytes.Buffer
		require.NoError(t, WriteRunHTML(&buf, run, out))
		return buf.Bytes()
	}
	assert.Equal(t, render(), render())
}

func TestReportEscapes(t *testing.T) {
	run, out := kleppmann(t)
	run, out = withViolation(run, out, fencedWrite(t, out.History).Processed)
	var buf bytes.Buffer
	require.NoError(t, WriteRunHTML(&buf, run, out))
	page := buf.String()
	assert.NotContains(t, page, `<script>alert(`)
	assert.Contains(t, page, `&lt;script&gt;alert(`)
	assert.Contains(t, page, `<span class="verdict violated">VIOLATED</span>`)
	assert.Contains(t, page, `class="vline violation"`)
}

func TestWriteRunDirNeedsTheOutcome(t *testing.T) {
	run, _ := kleppmann(t)
	_, err := WriteRunDir(t.TempDir(), run, RunData{})
	require.Error(t, err)
	var buf bytes.Buffer
	require.Error(t, WriteRunHTML(&buf, run, RunData{}))
	require.Error(t, WritePerfetto(&buf, run, RunData{}))
}

func TestWriteRunDirOwnsItsArtifacts(t *testing.T) {
	for _, tc := range []struct {
		name string
		page string // what this run's P3 rendered, "" for nothing
		kept bool
	}{
		{"an earlier run's file is removed and not linked", "", false},
		{"this run's page replaces it and is linked", "<html><body>this run</body></html>", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, out := kleppmann(t)
			dir := t.TempDir()
			stale := filepath.Join(dir, LinearizableFile)
			require.NoError(t, os.WriteFile(stale, []byte("<html>old failure</html>"), 0o644))
			if tc.page != "" {
				run.Properties[2].Visualization = []byte(tc.page)
			}
			paths, err := WriteRunDir(dir, run, out)
			require.NoError(t, err)
			page, statErr := os.ReadFile(stale)
			assert.Equal(t, tc.kept, statErr == nil, "linearizability.html present: %v", statErr)
			assert.NotContains(t, string(page), "old failure")
			b, err := os.ReadFile(paths[2])
			require.NoError(t, err)
			assert.Equal(t, tc.kept, strings.Contains(string(b), `href="linearizability.html"`))
		})
	}
}

func TestReportShowsTheReproductionLine(t *testing.T) {
	run, out := kleppmann(t)
	for _, tc := range []struct {
		name, replay string
	}{
		{"the outcome's line, from internal/repro", run.Replay},
		{"the caller's line, as given", repro.Simrun("run", "--scenario", "kleppmann-gc-pause", "--seed", "1",
			"--schedule", "my runs/it's.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run
			r.Replay = tc.replay
			require.NotEmpty(t, r.Replay)
			var buf bytes.Buffer
			require.NoError(t, WriteRunHTML(&buf, r, out))
			assert.Contains(t, buf.String(), `<pre class="replay"><code>`+html.EscapeString(tc.replay)+`</code></pre>`)
		})
	}
	assert.Equal(t, "simrun run --scenario kleppmann-gc-pause --seed 1", strings.Replace(run.Replay, repro.Program(), "simrun", 1))
	assert.True(t, strings.HasPrefix(run.Replay, repro.Program()+" run "), run.Replay)
}

// TestLinearizabilityPageHasTheRunsContext: a failing run's
// linearizability.html says which run and property it shows and links
// back to report.html; writing the directory again keeps one such bar.
func TestLinearizabilityPageHasTheRunsContext(t *testing.T) {
	dir := t.TempDir()
	impl, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	opts := scenarios.Options{Impl: impl, Check: checker.Options{Visualize: true}}
	res, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, opts)
	require.NoError(t, err)
	run, out := EventRun(res, testWall)
	for range 2 {
		_, err = WriteRunDir(dir, run, out)
		require.NoError(t, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, LinearizableFile))
	require.NoError(t, err)
	page := string(b)
	for _, want := range []string{
		`<a href="report.html">← report.html</a>`,
		"scenario <b>kleppmann-gc-pause</b>", "seed <b>1</b>", "implementation <b>mutant/unfenced-resource</b>",
		"property <b>P3 linearizability</b>: VIOLATED",
		"<title>P3 linearizability · kleppmann-gc-pause seed 1 · leasesim</title>",
		`const leasesimClients = ["h1","h2"]`,
	} {
		assert.Contains(t, page, want)
	}
	assert.Equal(t, 1, strings.Count(page, `class="leasesim-run"`), "one context bar, however often the directory is written")
}

func TestReportFaultTableUsesTheOneTimeFormat(t *testing.T) {
	run, out := kleppmann(t)
	var buf bytes.Buffer
	require.NoError(t, WriteRunHTML(&buf, run, out))
	assert.Contains(t, buf.String(), `<td class="num">3.007562s</td><td>pause</td>`)
	assert.Contains(t, buf.String(), "h1 hit failpoint before-write: pause at 3.007562s</title>", "the timeline's titles too")
	assert.Contains(t, buf.String(), "last action under the token: 3.007562s</title>")
}

// history.jsonl in a run directory reads back into the history the run's
// checkers read: a run directory can be judged again with simrun check.
func TestRunDirHistoryReadsBack(t *testing.T) {
	run, out := kleppmann(t)
	dir := filepath.Join(t.TempDir(), "run")
	_, err := WriteRunDir(dir, run, out)
	require.NoError(t, err)
	f, err := os.Open(filepath.Join(dir, HistoryFile))
	require.NoError(t, err)
	defer f.Close()
	h, meta, err := leasewire.ReadHistory(f, HistoryFile)
	require.NoError(t, err)
	assert.Equal(t, run.Scenario, meta.Scenario)
	assert.Equal(t, out.History.NumOps(), h.NumOps())
	assert.Equal(t, len(out.History.Beliefs), len(h.Beliefs))
}
