package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/tune"
)

// sampleTune is a tuning result with made-up but plausible figures: four
// TTLs × two renew intervals × three checkpoint policies, one invalid
// config, one with a failing run, and a recommendation. It tests
// rendering only.
func sampleTune() tune.Result {
	res := tune.Result{Workload: "examples/steady-batch.jsonl", Name: "steady-batch", WorkloadSeconds: 1200,
		Seeds: "1-20", SeedFirst: 1, SeedLast: 20, Rho: 0.01, Margin: 50 * time.Millisecond,
		Objective: tune.ObjectiveFailoverP99, RecommendedIndex: -1, Parallel: 2, WallSeconds: 42.5}
	limit := 3.0
	res.Constraints.MaxStoreWritesPerSecond = &limit
	ckpts := []struct {
		name   string
		units  int
		reexec float64
		writes float64
	}{{"2u", 2, 0.0004, 4.0}, {"5u", 5, 0.0011, 2.24}, {"none", 0, 0.0062, 1.19}}
	for _, ttl := range []time.Duration{2 * time.Second, 5 * time.Second, 10 * time.Second, 20 * time.Second} {
		for _, div := range []int{3, 6} {
			for _, ck := range ckpts {
				renew := ttl / time.Duration(div)
				c := tune.ConfigResult{Label: fmt.Sprintf("ttl=%v renew=ttl/%d checkpoint=%s", ttl, div, ck.name),
					TTL: ttl.String(), TTLNs: ttl, Renew: fmt.Sprintf("ttl/%d", div), RenewInterval: renew,
					Checkpoint: ck.name, CheckpointEveryUnits: ck.units, Valid: true, Runs: 20,
					Violations: []tune.Violation{}, Unknown: map[string]int{}}
				failover := time.Duration(float64(ttl)*1.01) - renew/2 + ttl/200
				c.Metrics = tune.Metrics{Metrics: checker.Metrics{Failovers: 40, FailoverP50: failover, FailoverMean: failover,
					FailoverP99: failover + renew/2, FailoverMax: failover + renew/2,
					UnitsExecuted: 100000, ReexecutedFraction: ck.reexec * (1 + ttl.Seconds()/20),
					TasksCompleted: 5740, TaskLatencyP50: 6 * time.Second, TaskLatencyP99: 10*time.Second + ttl/10,
					FalseExpirations: int(40 / ttl.Seconds()), RenewalFailures: 3 * div},
					StoreWritesPerWorkloadSecond: ck.writes + 0.05/float64(div)}
				c.Metrics.UnitsReexecuted = int(c.Metrics.ReexecutedFraction * 100000)
				c.Replay = res.ReplayCommand(c, 1, 20)
				res.Configs = append(res.Configs, c)
			}
		}
	}
	res.Configs = append(res.Configs, tune.ConfigResult{Label: "ttl=60ms renew=ttl/3 checkpoint=5u", TTL: "60ms",
		TTLNs: 60 * time.Millisecond, Renew: "ttl/3", RenewInterval: 20 * time.Millisecond, Checkpoint: "5u", CheckpointEveryUnits: 5,
		InvalidReason: "renew 20ms >= TTL×(1−rho)−margin = 9.4ms: the holder would stop believing before it renews",
		Violations:    []tune.Violation{}, Unknown: map[string]int{}})
	bad := &res.Configs[3] // ttl=2s renew=ttl/6 checkpoint=2u
	bad.ViolatingRuns = 1
	bad.Violations = []tune.Violation{{Seed: 17, Properties: []string{"P2"}, Detail: `P2 fencing: store accepted token 3 after 4 <script>alert("x")</script>`,
		TraceHash: "0123456789abcdef", Replay: res.ReplayCommand(*bad, 17, 17)}}
	res.Configs[4].Unknown["P3"] = 2
	res.ValidConfigs, res.Runs, res.ViolatingRuns = 24, 480, 1
	for i := range res.Configs {
		c := &res.Configs[i]
		c.Pareto = c.Valid && c.ViolatingRuns == 0 && strings.Contains(c.Label, "renew=ttl/3")
		c.Feasible = c.Pareto && c.Metrics.StoreWritesPerWorkloadSecond <= limit
		if c.Label == "ttl=2s renew=ttl/3 checkpoint=5u" {
			c.Recommended, res.RecommendedIndex = true, i
			label := c.Label
			res.Recommended = &label
		}
	}
	res.ParetoConfigs = 12
	res.Explanation = "ttl=2s renew=ttl/3 checkpoint=5u: the lowest p99 failover (2.03 s) of the 16 valid configs that " +
		"stay under 3 store writes/s (it needs 2.26/s); 12 configs are on the Pareto frontier."
	return res
}

func TestWriteTuneText(t *testing.T) {
	res := sampleTune()
	var buf bytes.Buffer
	require.NoError(t, WriteTuneText(&buf, res))
	out := buf.String()
	lines := strings.Split(out, "\n")
	assert.Equal(t, "leasesim tune  steady-batch (examples/steady-batch.jsonl)", lines[0])
	assert.Contains(t, out, "25 configs (1 invalid) · seeds 1-20 · 480 runs · 1 violating")
	assert.Contains(t, out, "minimise p99-failover under store writes ≤ 3/s")
	assert.Regexp(t, `(?m)^  ttl\s+renew\s+checkpoint\s+failover p99\s+reexec\s+store w/s\s+task p99\s+false exp\s+fenced\s+renew fail\s+violations$`, out)
	assert.Regexp(t, `(?m)^→★2s\s+ttl/3\s+5u\s+2\.030s\s+0\.12%\s+2\.26\s+10\.200s\s+20\s+0\s+9\s+0$`, out, "the recommendation, on the frontier")
	assert.Regexp(t, `(?m)^ ★2s\s+ttl/3\s+2u\s`, out)
	assert.Regexp(t, `(?m)^  2s\s+ttl/6\s+2u\s.*\s1$`, out, "a violating config, off the frontier")
	assert.Regexp(t, `(?m)^  60ms\s+ttl/3\s+5u\s+invalid: renew 20ms >= TTL×\(1−rho\)−margin = 9\.4ms`, out)
	assert.Contains(t, out, "Counts are totals over the 20 seeds of each config")
	assert.Contains(t, out, res.Explanation)
	assert.Contains(t, out, "1 failing run (any makes simrun tune exit 1)")
	assert.Contains(t, out, "ttl=2s renew=ttl/6 checkpoint=2u seed 17: P2: P2 fencing")
	assert.Contains(t, out, "simrun tune --workload examples/steady-batch.jsonl --ttl 2s --renew ttl/6 --checkpoint 2u --rho 0.01 --margin 50ms --seeds 17-17")
	assert.NotContains(t, out, "\x1b[", "no colour when the writer is not a terminal")

	buf.Reset()
	require.NoError(t, TextOptions{Color: true}.WriteTuneText(&buf, res))
	assert.Contains(t, buf.String(), ansiBold+ansiGreen+res.Explanation+ansiReset)
}

func TestWriteTuneTextPartialAndNone(t *testing.T) {
	res := sampleTune()
	res.Partial = true
	res.Recommended, res.RecommendedIndex = nil, -1
	res.Explanation = "No recommendation: the tuning run was interrupted after 100 of 480 runs, so the configs did not all run on the same seeds."
	res.Configs[10].Runs = 0
	var buf bytes.Buffer
	require.NoError(t, WriteTuneText(&buf, res))
	out := buf.String()
	assert.Contains(t, out, "PARTIAL: interrupted")
	assert.Contains(t, out, "not run (interrupted)")
	assert.Contains(t, out, res.Explanation)
}

func TestWriteTuneDir(t *testing.T) {
	res := sampleTune()
	dir := filepath.Join(t.TempDir(), "tune")
	paths, err := WriteTuneDir(dir, res)
	require.NoError(t, err)
	require.Equal(t, []string{filepath.Join(dir, TuneJSONFile), filepath.Join(dir, TuneHTMLFile)}, paths)

	raw, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	var back tune.Result
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.Equal(t, res, back, "tune.json reads back")

	page, err := os.ReadFile(paths[1])
	require.NoError(t, err)
	html := string(page)
	for _, want := range []string{
		`<p class="choice violated" id="explanation"><strong>→ ttl=2s renew=ttl/3 checkpoint=5u</strong>`,
		`id="scatter"`, `id="failover-ttl"`, `class="series" data-renew="renew ttl/3"`, `class="series" data-renew="renew ttl/6"`,
		`<h3>p99 failover</h3>`, `<h3>re-executed work</h3>`, `<h3>store writes per second</h3>`,
		`class="choice-ring"`, `invalid: renew 20ms &gt;= TTL×(1−rho)−margin`, "P3 2",
		`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`,
		"simrun tune --workload examples/steady-batch.jsonl --ttl 2s --renew ttl/6 --checkpoint 2u --rho 0.01 --margin 50ms --seeds 17-17",
	} {
		assert.Contains(t, html, want)
	}
	assert.NotContains(t, html, `<script>`, "no script: the page is static")
	assert.NotRegexp(t, `(href|src)="?https?:`, html, "no network")
	assert.Equal(t, 3*2, strings.Count(html, `<svg class="heat"`), "a heat map per metric and renew interval")
	assert.Equal(t, 24, strings.Count(html, `<circle class="pt`), "a point per config that ran")

	again, err := WriteTuneDir(t.TempDir(), res)
	require.NoError(t, err)
	page2, err := os.ReadFile(again[1])
	require.NoError(t, err)
	assert.Equal(t, html, string(page2), "the page depends only on the result")
}

func TestTuneRenderingEdges(t *testing.T) {
	tests := []struct {
		name string
		res  tune.Result
	}{
		{"empty", tune.Result{Name: "empty", RecommendedIndex: -1, Explanation: "No recommendation: the grid is empty."}},
		{"all invalid", func() tune.Result {
			r := sampleTune()
			for i := range r.Configs {
				r.Configs[i].Valid, r.Configs[i].Runs, r.Configs[i].InvalidReason = false, 0, "bad"
				r.Configs[i].Pareto, r.Configs[i].Recommended = false, false
			}
			r.Recommended, r.RecommendedIndex = nil, -1
			return r
		}()},
		{"one config, no failovers", func() tune.Result {
			r := sampleTune()
			r.Configs = r.Configs[:1]
			r.Configs[0].Metrics.Failovers, r.Configs[0].Metrics.FailoverP99 = 0, 0
			r.RecommendedIndex, r.Recommended = -1, nil
			return r
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text, page bytes.Buffer
			require.NoError(t, WriteTuneText(&text, tt.res))
			require.NoError(t, WriteTuneHTML(&page, tt.res))
			assert.NotContains(t, page.String(), "NaN")
			assert.NotContains(t, page.String(), "Inf")
		})
	}
}

func TestNiceRange(t *testing.T) {
	tests := []struct {
		lo, hi         float64
		wantLo, wantHi float64
		ticks          []float64
	}{
		{0, 4.2, 0, 5, []float64{0, 1, 2, 3, 4, 5}},
		{0, 0.37, 0, 0.4, []float64{0, 0.1, 0.2, 0.3, 0.4}},
		{0, 0, 0, 1, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 20, 0, 20, []float64{0, 5, 10, 15, 20}},
		{3, 3, 0, 4, []float64{0, 1, 2, 3, 4}},
	}
	for _, tt := range tests {
		lo, hi, ticks := niceRange(tt.lo, tt.hi, 5)
		assert.Equal(t, []float64{tt.wantLo, tt.wantHi}, []float64{lo, hi}, "%v..%v", tt.lo, tt.hi)
		assert.Equal(t, tt.ticks, ticks, "%v..%v", tt.lo, tt.hi)
	}
}

func TestRampColor(t *testing.T) {
	assert.Equal(t, "#fde725", rampColor(0))
	assert.Equal(t, "#440154", rampColor(1))
	assert.Equal(t, "#fde725", rampColor(-3), "clamped")
	assert.Equal(t, "#21918c", rampColor(0.5))
}
