package reports

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/internal/dist"
	"github.com/leasesim/leasesim/sweep"
)

// sampleSweep is a small sweep summary with failures of several kinds.
func sampleSweep() sweep.Summary {
	s := sweep.Summary{
		Schema: sweep.SummarySchema, Scenarios: []string{"kleppmann-gc-pause", "swarm"}, Impl: "mutant/no-fencing",
		Seeds: "1-100", SeedFirst: 1, SeedLast: 100, Shard: "1/1", Runs: 200, RunsExpected: 200,
		Failures: []sweep.Failure{
			{Scenario: "kleppmann-gc-pause", Seed: 1, Properties: []string{"P2"}, Detail: "stale write accepted",
				Replay: "simrun run --scenario kleppmann-gc-pause --seed 1 --impl mutant/no-fencing"},
			{Scenario: "swarm", Seed: 7, Properties: []string{"P2", "P5"}, Detail: "stale write accepted",
				Replay: "simrun run --scenario swarm --seed 7 --impl mutant/no-fencing", Dir: "failures/swarm-seed-7"},
		},
		FailuresOmitted: 3,
		ByProperty: map[string]map[string]sweep.SeedSet{
			"P5":    {"swarm": sweep.SeedSetOf(7)},
			"P2":    {"swarm": sweep.SeedSetOf(7, 9, 11), "kleppmann-gc-pause": sweep.SeedSetOf(1, 2)},
			"limit": {"swarm": sweep.SeedSetOf(40)},
		},
		Unknown:     map[string]int{"P3": 2, "P1": 0},
		UnknownRuns: 2, UnknownReasons: map[string]int{"P3 linearizability: timed out after Ns": 2},
		AssumptionExceeded: 1,
		PerScenario:        map[string]sweep.ScenarioCounts{"swarm": {Runs: 100, Failed: 3}, "kleppmann-gc-pause": {Runs: 100, Failed: 2}},
		Events:             1_234_567, SimSeconds: 12_000, WallSeconds: 2.5, CPUSeconds: 4.9,
		EventsPerSecond: 493_826.8, RunsPerSecond: 80, MeanAcceleration: 2448.9, Parallel: 2,
		Metrics: checker.Metrics{Runs: 200, Acquisitions: 900},
	}
	record(&s.Failover, 1, 1.2, 1.4, 2, 5.1, 9, 0.004, 0.02, 60, 130)
	record(&s.Margin, -0.2, 0.05, 0.1, 0.3, 0.3)
	record(&s.TaskLatency, 10, 10)
	return s
}

// record adds values in seconds to h.
func record(h *dist.Histogram, seconds ...float64) {
	for _, v := range seconds {
		h.Record(time.Duration(v * 1e9))
	}
}

func TestWriteSweepText(t *testing.T) {
	partial := sampleSweep()
	partial.Partial, partial.Runs = true, 57
	clean := sampleSweep()
	clean.Failures, clean.FailuresOmitted, clean.ByProperty = nil, 0, nil
	clean.UnknownRuns, clean.Unknown, clean.UnknownReasons = 0, nil, nil
	unknownOnly := sampleSweep()
	unknownOnly.Failures, unknownOnly.FailuresOmitted, unknownOnly.ByProperty = nil, 0, nil
	missing := clean
	missing.Partial, missing.MissingShards, missing.Shard, missing.Runs = true, []string{"2/2"}, "1/2", 100
	determinism := clean
	determinism.VerifyDeterminism = true
	diverged := determinism
	diverged.ByProperty = map[string]map[string]sweep.SeedSet{"determinism": {"swarm": sweep.SeedSetOf(4, 5, 6)}}
	tests := []struct {
		name    string
		s       sweep.Summary
		want    []string
		notWant []string
	}{
		{"failures by property with seeds and replays", sampleSweep(), []string{
			"leasesim sweep  kleppmann-gc-pause,swarm  impl mutant/no-fencing  seeds 1-100  shard 1/1",
			"200 runs: 5 failing runs; 2 runs unknown (never a pass); 1 run exceeded an assumption",
			"P2     kleppmann-gc-pause: 2 seeds: 1-2",
			"P2     swarm: 3 seeds: 7, 9, 11",
			"P5     swarm: 1 seed: 7",
			"limit  swarm: 1 seed: 40",
			"simrun run --scenario swarm --seed 7 --impl mutant/no-fencing",
			"report: failures/swarm-seed-7/report.html (in the --out directory)",
			"... 3 more failing runs",
			"Unknown               2 runs (verdicts: P3 2); unknown is never a pass",
			"       2  P3 linearizability: timed out after Ns",
			"Assumption exceeded   1 run (P1 overlap under clock drift beyond rho",
			"493.8k events/s, 80.0 runs/s, mean acceleration 2449x",
			"Failover              n=10  min 4.0ms  p50 1.397s  p99 130.000s  max 130.000s",
			"P1 minimum margin     n=5  min -200.0ms",
		}, []string{"PARTIAL", "every property held", "seeds/s", "Determinism"}},
		{"partial says so loudly", partial, []string{"PARTIAL: interrupted after 57 of 200 runs"}, nil},
		{"a clean sweep", clean, []string{"200 runs: every property held; 1 run exceeded an assumption", "Unknown               no run"},
			[]string{"Failures by property", "Failing runs"}},
		{"unknown runs are not a pass", unknownOnly, []string{"200 runs: 2 runs unknown (never a pass)"}, []string{"every property held"}},
		{"a missing shard is named", missing, []string{"PARTIAL: shards 2/2 missing: 100 of 200 runs",
			"100 runs: every property held in the runs that ran"}, nil},
		{"determinism verified", determinism, []string{"Determinism           each of the 200 runs executed twice: every pair of trace hashes identical"}, nil},
		{"determinism diverged", diverged, []string{"each of the 200 runs executed twice: 3 diverged (swarm 4-6)"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, TextOptions{}.WriteSweepText(&buf, tt.s))
			for _, w := range tt.want {
				assert.Contains(t, buf.String(), w)
			}
			for _, w := range tt.notWant {
				assert.NotContains(t, buf.String(), w)
			}
		})
	}
	var metrics bytes.Buffer
	require.NoError(t, TextOptions{}.WriteSweepText(&metrics, sampleSweep()))
	assert.Regexp(t, `\n  acquisitions +900\n`, metrics.String())
	// Property order, not map order: P2 before P5 before limit.
	var buf bytes.Buffer
	require.NoError(t, TextOptions{}.WriteSweepText(&buf, sampleSweep()))
	text := buf.String()
	assert.Less(t, strings.Index(text, "P2  "), strings.Index(text, "P5  "))
	assert.Less(t, strings.Index(text, "P5  "), strings.Index(text, "limit  "))
}

func TestWriteSweepDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	s := sampleSweep()
	s.Partial = true
	paths, err := WriteSweepDir(dir, s)
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, "summary.json"), filepath.Join(dir, "sweep.html")}, paths)

	b, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	var back sweep.Summary
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, s.ByProperty, back.ByProperty)
	assert.True(t, back.Partial)

	page, err := os.ReadFile(paths[1])
	require.NoError(t, err)
	html := string(page)
	assertSelfContained(t, html)
	for _, w := range []string{
		"PARTIAL: interrupted after 200 of 200 runs",
		"simrun run --scenario swarm --seed 7 --impl mutant/no-fencing",
		"simrun run --scenario kleppmann-gc-pause --seed 1 --impl mutant/no-fencing",
		"Failover time", "P1 minimum margin per run", "log axis",
		`class="bar negative"`, // the overlap bin of the margins
		"… and 3 more failing runs",
		`<a href="failures/swarm-seed-7/report.html">report</a>`,
		"P3 linearizability: timed out after Ns",
		">p50 1.4s<", ">p99 2m10s<", // the marks
		">10ms<", ">1s<", ">1m40s<", // round ticks on the log axis
	} {
		assert.Contains(t, html, w)
	}
	assert.Equal(t, 3, strings.Count(html, `<figure class="histogram">`))
}

func TestNewHistogram(t *testing.T) {
	hist := func(seconds ...float64) dist.Histogram {
		var h dist.Histogram
		record(&h, seconds...)
		return h
	}
	many := make([]float64, 10_000)
	for i := range many {
		many[i] = 0.001 * math.Pow(5000, float64(i)/float64(len(many)-1)) // 1ms to 5s, evenly in log: a log axis
	}
	tests := []struct {
		name      string
		h         dist.Histogram
		bins      int
		negatives int
		scale     string
		ticks     []string
	}{
		{"empty", dist.Histogram{}, 0, 0, "", nil},
		{"one value", hist(2, 2, 2), 1, 0, "linear", []string{"1.8s", "1.9s", "2s", "2.1s", "2.2s"}},
		{"spread", hist(1, 2, 3, 4, 5, 6, 7, 8, 9), 9, 0, "linear", []string{"2s", "4s", "6s", "8s"}},
		{"zero is a bin edge", hist(-1, -0.5, 0.5, 1, 2), 5, 2, "linear", []string{"-1s", "0", "1s", "2s"}},
		{"symlog around zero", hist(-0.9, 0.05, 0.08, 0.1, 0.1, 0.12, 12), 5, 1, "symlog", []string{"-1s", "-100ms", "0", "100ms", "1s", "10s"}},
		{"decades on a log axis", hist(many...), histMaxBins, 0, "log", []string{"1ms", "3ms", "10ms", "30ms", "100ms", "300ms", "1s", "3s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHistogram(tt.name, tt.h)
			require.Len(t, h.Bars, tt.bins)
			negatives, total := 0, int64(0)
			for _, b := range h.Bars {
				if b.Negative {
					negatives++
				}
				assert.GreaterOrEqual(t, b.X, h.PlotX)
				assert.LessOrEqual(t, b.X+b.W, h.PlotX+h.PlotW+1)
				assert.InDelta(t, h.PlotY, b.Y+b.H, 1e-9, "bars stand on the axis")
				assert.Contains(t, b.Title, strconv.FormatInt(b.Count, 10))
				total += b.Count
			}
			assert.Equal(t, tt.h.Count(), total, "every value is in a bin")
			assert.Equal(t, tt.negatives, negatives)
			assert.Equal(t, tt.scale, h.Scale)
			var ticks []string
			for _, tk := range h.Ticks {
				ticks = append(ticks, tk.Label)
				assert.GreaterOrEqual(t, tk.X, h.PlotX-1e-9)
				assert.LessOrEqual(t, tk.X, h.PlotX+h.PlotW+1e-9)
			}
			assert.Equal(t, tt.ticks, ticks)
			if tt.h.Count() > 0 {
				require.Len(t, h.Marks, 2)
				assert.True(t, strings.HasPrefix(h.Marks[0].Label, "p50 ") && strings.HasPrefix(h.Marks[1].Label, "p99 "))
				assert.LessOrEqual(t, h.Marks[0].X, h.Marks[1].X)
			}
		})
	}
}

// On a log axis most samples no longer squash into one bar: the spread
// of a heavy-tailed distribution fills many bins.
func TestHistogramSpreadsAHeavyTail(t *testing.T) {
	var h dist.Histogram
	for i := range 2000 {
		h.Record(time.Duration(float64(time.Millisecond) * math.Pow(1.004, float64(i)))) // 1ms to ~3000s
	}
	v := newHistogram("tail", h)
	var largest int64
	for _, b := range v.Bars {
		largest = max(largest, b.Count)
	}
	assert.Greater(t, len(v.Bars), 30)
	assert.Less(t, largest, int64(200), "no bar holds most of the samples")
}
