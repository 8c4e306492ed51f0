package reports

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/sweep"
)

// sampleSweep is a small sweep summary with failures of several kinds.
func sampleSweep() sweep.Summary {
	return sweep.Summary{
		Scenarios: []string{"kleppmann-gc-pause", "swarm"}, Impl: "mutant/no-fencing",
		SeedFirst: 1, SeedLast: 100, Shard: "1/1", Runs: 200, RunsExpected: 200,
		Failures: []sweep.Failure{
			{Scenario: "kleppmann-gc-pause", Seed: 1, Properties: []string{"P2"}, Detail: "stale write accepted",
				Replay: "simrun run --scenario kleppmann-gc-pause --seed 1 --impl mutant/no-fencing"},
			{Scenario: "swarm", Seed: 7, Properties: []string{"P2", "P5"}, Detail: "stale write accepted",
				Replay: "simrun run --scenario swarm --seed 7 --impl mutant/no-fencing"},
		},
		FailuresOmitted: 3,
		ByProperty: map[string]map[string][]uint64{
			"P5":    {"swarm": {7}},
			"P2":    {"swarm": {7, 9, 11}, "kleppmann-gc-pause": {1, 2}},
			"limit": {"swarm": {40}},
		},
		Unknown:     map[string]int{"P3": 2, "P1": 0},
		PerScenario: map[string]sweep.ScenarioCounts{"swarm": {Runs: 100, Failed: 3}, "kleppmann-gc-pause": {Runs: 100, Failed: 2}},
		Events:      1_234_567, SimSeconds: 12_000, WallSeconds: 2.5, CPUSeconds: 4.9,
		EventsPerSecond: 493_826.8, SeedsPerSecond: 80, MeanAcceleration: 2448.9, Parallel: 2,
		Metrics:            checker.Metrics{Runs: 200, Acquisitions: 900},
		FailoverSeconds:    []float64{1, 1.2, 1.4, 2, 5.1, 9},
		MarginSeconds:      []float64{-0.2, 0.05, 0.1, 0.3, 0.3},
		TaskLatencySeconds: []float64{10, 10},
	}
}

func TestWriteSweepText(t *testing.T) {
	partial := sampleSweep()
	partial.Partial, partial.Runs = true, 57
	clean := sampleSweep()
	clean.Failures, clean.FailuresOmitted, clean.ByProperty = nil, 0, nil
	tests := []struct {
		name    string
		s       sweep.Summary
		want    []string
		notWant []string
	}{
		{"failures by property with seeds and replays", sampleSweep(), []string{
			"leasesim sweep  kleppmann-gc-pause,swarm  impl mutant/no-fencing  seeds 1-100  shard 1/1",
			"200 runs: 5 failing runs",
			"P2     kleppmann-gc-pause: 2 seeds: 1, 2",
			"P2     swarm: 3 seeds: 7, 9, 11",
			"P5     swarm: 1 seed: 7",
			"limit  swarm: 1 seed: 40",
			"simrun run --scenario swarm --seed 7 --impl mutant/no-fencing",
			"... 3 more failing runs",
			"Unknown verdicts      P3 2",
			"Assumption exceeded   0 runs",
			"493.8k events/s, 80.0 seeds/s, mean acceleration 2449x",
			"Failover              n=6  min 1.000s  p50 1.400s  p99 9.000s  max 9.000s",
			"P1 minimum margin     n=5  min -200.0ms",
		}, []string{"PARTIAL"}},
		{"partial says so loudly", partial, []string{"PARTIAL: interrupted after 57 of 200 runs"}, nil},
		{"a clean sweep", clean, []string{"200 runs: every property held"}, []string{"Failures by property", "Failing runs"}},
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
		"PARTIAL: the sweep was interrupted after 200 of 200 runs",
		"simrun run --scenario swarm --seed 7 --impl mutant/no-fencing",
		"simrun run --scenario kleppmann-gc-pause --seed 1 --impl mutant/no-fencing",
		"Failover time (s)", "P1 minimum margin per run",
		`class="bar negative"`, // the overlap bin of the margins
		"… and 3 more failing runs",
	} {
		assert.Contains(t, html, w)
	}
	assert.Equal(t, 3, strings.Count(html, `<figure class="histogram">`))
}

func TestNewHistogram(t *testing.T) {
	tests := []struct {
		name      string
		samples   []float64
		bins      int
		negatives int
	}{
		{"empty", nil, 0, 0},
		{"one value", []float64{2, 2, 2}, 1, 0},
		{"spread", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}, 3, 0},
		{"zero is a bin edge", []float64{-1, -0.5, 0.5, 1, 2}, 3, 1},
		{"zero inside a bin moves the edges", []float64{-0.5, 0.25, 1, 2.5}, 3, 1},
		{"bounded bins", make([]float64, 10_000), 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHistogram(tt.name, tt.samples)
			require.Len(t, h.Bars, tt.bins)
			negatives, total := 0, 0
			for _, b := range h.Bars {
				if b.Negative {
					negatives++
				}
				assert.GreaterOrEqual(t, b.X, h.PlotX)
				assert.LessOrEqual(t, b.X+b.W, h.PlotX+h.PlotW+1)
				assert.InDelta(t, h.PlotY, b.Y+b.H, 1e-9, "bars stand on the axis")
				assert.Contains(t, b.Title, strconv.Itoa(b.Count))
			}
			for _, b := range h.Bars {
				total += b.Count
			}
			assert.Equal(t, len(tt.samples), total, "every sample is in a bin")
			assert.Equal(t, tt.negatives, negatives)
			assert.Equal(t, len(tt.samples), h.Count)
			assert.LessOrEqual(t, len(h.Bars), histMaxBins+1)
		})
	}
}
