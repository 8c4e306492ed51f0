package tune

import (
	"fmt"
	"testing"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedsCrafted is how many seeds the crafted configurations ran on.
const seedsCrafted = 10

// crafted is a configuration with made-up costs: p99 failover in seconds,
// re-executed fraction, store writes per second and task latency p99 in
// seconds.
func crafted(label string, p99, reexec, writes, task float64) ConfigResult {
	return ConfigResult{Label: label, Valid: true, Runs: seedsCrafted, Metrics: Metrics{
		Metrics:                      checker.Metrics{Failovers: 100, FailoverP99: secs(p99), ReexecutedFraction: reexec, TaskLatencyP99: secs(task)},
		StoreWritesPerWorkloadSecond: writes}}
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func invalid(label string) ConfigResult {
	return ConfigResult{Label: label, InvalidReason: "renew 2s >= TTL×(1−rho)−margin = 1.93s: the holder would stop believing before it renews"}
}

func violating(c ConfigResult) ConfigResult {
	c.ViolatingRuns = 1
	return c
}

func TestDominates(t *testing.T) {
	tests := []struct {
		name string
		a, b [5]float64
		want bool
	}{
		{"better in all", [5]float64{1, 1, 1}, [5]float64{2, 2, 2}, true},
		{"better in one, equal in the rest", [5]float64{1, 2, 2}, [5]float64{2, 2, 2}, true},
		{"equal", [5]float64{2, 2, 2}, [5]float64{2, 2, 2}, false},
		{"a trade-off", [5]float64{1, 3, 2}, [5]float64{2, 2, 2}, false},
		{"worse", [5]float64{3, 3, 3}, [5]float64{2, 2, 2}, false},
		{"a detector's trade-off", [5]float64{0, 0, 0, 3, 40}, [5]float64{0, 0, 0, 0, 60}, false},
		{"a detector better in both", [5]float64{0, 0, 0, 0, 40}, [5]float64{0, 0, 0, 3, 60}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, dominates(tt.a, tt.b)) })
	}
}

func TestMarkPareto(t *testing.T) {
	tests := []struct {
		name    string
		configs []ConfigResult
		want    []bool
	}{
		{"a dominated config is off", []ConfigResult{
			crafted("a", 5, 0.01, 10, 30), crafted("b", 6, 0.02, 11, 20)}, []bool{true, false}},
		{"trade-offs are all on", []ConfigResult{
			crafted("fast", 2, 0.05, 30, 30), crafted("cheap", 20, 0.05, 3, 30), crafted("thrifty", 10, 0.001, 10, 30)},
			[]bool{true, true, true}},
		{"task latency is no frontier cost", []ConfigResult{
			crafted("a", 5, 0.01, 10, 90), crafted("b", 5, 0.01, 11, 10)}, []bool{true, false}},
		{"equal configs are both on", []ConfigResult{
			crafted("a", 5, 0.01, 10, 30), crafted("b", 5, 0.01, 10, 30), crafted("c", 5, 0.01, 12, 30)},
			[]bool{true, true, false}},
		{"a config without failovers takes no part when others have some", []ConfigResult{
			func() ConfigResult { c := crafted("lucky", 0, 0, 1, 1); c.Metrics.Failovers = 0; return c }(),
			crafted("measured", 5, 0.01, 10, 30)}, []bool{false, true}},
		{"without any failover, all take part", []ConfigResult{
			func() ConfigResult { c := crafted("a", 0, 0, 1, 1); c.Metrics.Failovers = 0; return c }(),
			func() ConfigResult { c := crafted("b", 0, 0.1, 0.5, 1); c.Metrics.Failovers = 0; return c }()}, []bool{true, true}},
		{"invalid, violating and partial configs take no part", []ConfigResult{
			invalid("bad"), violating(crafted("unsafe", 1, 0, 1, 1)), crafted("slow", 9, 0.1, 9, 9),
			func() ConfigResult { c := crafted("partial", 1, 0, 1, 1); c.Runs = 3; return c }()},
			[]bool{false, false, true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := markPareto(tt.configs, seedsCrafted)
			var got []bool
			count := 0
			for _, c := range tt.configs {
				got = append(got, c.Pareto)
				if c.Pareto {
					count++
				}
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, count, n)
		})
	}
}

func f64(v float64) *float64             { return &v }
func dur(d time.Duration) *time.Duration { return &d }
func limits(writes float64) Constraints  { return Constraints{MaxStoreWritesPerSecond: f64(writes)} }
func reexecLimit(fraction float64) Constraints {
	return Constraints{MaxReexecutedFraction: f64(fraction)}
}

// The trade-off of a typical grid: short TTLs fail over fast, frequent
// checkpoints re-execute little, and both cost store writes.
func tradeOff() []ConfigResult {
	return []ConfigResult{
		crafted("ttl=2s checkpoint=2u", 1.9, 0.002, 260, 12),
		crafted("ttl=2s checkpoint=none", 2.0, 0.08, 150, 14),
		crafted("ttl=5s checkpoint=2u", 4.9, 0.003, 120, 13),
		crafted("ttl=5s checkpoint=none", 5.1, 0.09, 40, 15),
		crafted("ttl=20s checkpoint=2u", 19, 0.004, 90, 25),
		crafted("ttl=20s checkpoint=none", 19.5, 0.1, 8, 30),
		crafted("ttl=20s checkpoint=5u", 19.5, 0.01, 60, 24),
		invalid("ttl=1s renew=1s"),
	}
}

func TestRecommend(t *testing.T) {
	tests := []struct {
		name        string
		configs     []ConfigResult
		objective   Objective
		constraints Constraints
		want        string // the recommended label, "" for none
		explanation string
	}{
		{"lowest p99 failover under a store limit", tradeOff(), ObjectiveFailoverP99, limits(200), "ttl=2s checkpoint=none",
			"ttl=2s checkpoint=none: the lowest p99 failover (2 s) of the 6 valid configs that stay under 200 store writes/s " +
				"(it needs 150/s); 7 configs are on the Pareto frontier."},
		{"no constraint", tradeOff(), ObjectiveFailoverP99, Constraints{}, "ttl=2s checkpoint=2u",
			"ttl=2s checkpoint=2u: the lowest p99 failover (1.9 s) of the 7 valid configs; 7 configs are on the Pareto frontier."},
		{"least re-executed work", tradeOff(), ObjectiveReexecuted, limits(100), "ttl=20s checkpoint=2u",
			"ttl=20s checkpoint=2u: the least re-executed work (0.4% of unit executions) of the 4 valid configs that stay " +
				"under 100 store writes/s (it needs 90/s); 7 configs are on the Pareto frontier."},
		{"fewest store writes under two limits", tradeOff(), ObjectiveStoreWrites,
			Constraints{MaxReexecutedFraction: f64(0.05), MaxFailoverP99: dur(30 * time.Second)}, "ttl=20s checkpoint=5u",
			"ttl=20s checkpoint=5u: the fewest store writes (60/s) of the 4 valid configs that re-execute at most 5% of " +
				"their work (it re-executes 1%) and fail over within 30 s at p99 (it takes 19.5 s); 7 configs are on the Pareto frontier."},
		{"task latency is chosen from the frontier", tradeOff(), ObjectiveTaskLatencyP99, limits(200), "ttl=5s checkpoint=2u",
			"ttl=5s checkpoint=2u: the lowest p99 task latency (13 s) of the 6 configs on the Pareto frontier that stay " +
				"under 200 store writes/s (it needs 120/s); 7 configs are on the Pareto frontier."},
		{"constraints exclude everything", tradeOff(), ObjectiveFailoverP99,
			Constraints{MaxStoreWritesPerSecond: f64(5), MaxReexecutedFraction: f64(0.001)}, "",
			"No recommendation: none of the 7 valid configs meets the constraints (7 need more than 5 store writes/s and " +
				"7 re-execute more than 0.1% of their work); the closest is ttl=20s checkpoint=2u (it needs 90/s and it re-executes 0.4%)."},
		{"a zero limit", tradeOff(), ObjectiveFailoverP99, reexecLimit(0), "",
			"No recommendation: none of the 7 valid configs meets the constraints (7 re-execute more than 0% of their work); " +
				"the closest is ttl=2s checkpoint=2u (it re-executes 0.2%)."},
		{"ties broken by the next objective", []ConfigResult{
			crafted("a", 5, 0.02, 10, 30), crafted("b", 5, 0.01, 12, 30), crafted("c", 5, 0.03, 9, 30)},
			ObjectiveFailoverP99, Constraints{}, "b",
			"b: the lowest p99 failover (5 s) of the 3 valid configs; it ties with 2 others on p99 failover and has the least " +
				"re-executed work; 3 configs are on the Pareto frontier."},
		{"ties on everything go to grid order", []ConfigResult{
			crafted("first", 5, 0.01, 10, 30), crafted("second", 5, 0.01, 10, 30)},
			ObjectiveStoreWrites, Constraints{}, "first",
			"first: the fewest store writes (10/s) of the 2 valid configs; it ties with 1 other on every measure and comes " +
				"first in the grid; 2 configs are on the Pareto frontier."},
		{"violating configs are left out", []ConfigResult{
			violating(crafted("unsafe", 1, 0, 1, 1)), crafted("safe", 5, 0.01, 10, 30)},
			ObjectiveFailoverP99, Constraints{}, "safe",
			"safe: the lowest p99 failover (5 s) of the 1 valid config; 1 config is on the Pareto frontier; " +
				"1 config that violated a property is left out."},
		{"every config violated", []ConfigResult{violating(crafted("unsafe", 1, 0, 1, 1)), invalid("bad")},
			ObjectiveFailoverP99, Constraints{}, "",
			"No recommendation: the only valid config violated a property; see the violations and their replay commands."},
		{"few failovers", []ConfigResult{
			func() ConfigResult { c := crafted("thin", 1, 0.01, 10, 30); c.Metrics.Failovers = 3; return c }()},
			ObjectiveFailoverP99, Constraints{}, "thin",
			"thin: the lowest p99 failover (1 s) of the 1 valid config; 1 config is on the Pareto frontier; its p99 " +
				"failover rests on only 3 failovers, so more seeds would firm it up."},
		{"no failovers at all", []ConfigResult{
			func() ConfigResult { c := crafted("calm", 0, 0, 10, 30); c.Metrics.Failovers = 0; return c }()},
			ObjectiveFailoverP99, Constraints{}, "calm",
			"calm: chosen from the 1 valid config; no run cut a holder off from its lease store, so no p99 failover was " +
				"measured; 1 config is on the Pareto frontier."},
		{"a config that saw no failover is left out", []ConfigResult{
			func() ConfigResult { c := crafted("lucky", 0, 0, 1, 1); c.Metrics.Failovers = 0; return c }(),
			crafted("measured", 5, 0.01, 10, 30)},
			ObjectiveFailoverP99, Constraints{}, "measured",
			"measured: the lowest p99 failover (5 s) of the 1 valid config; 1 config is on the Pareto frontier; " +
				"1 config that saw no failover is left out (more seeds would give it some)."},
		{"one config, over the limit", []ConfigResult{crafted("only", 5, 0.01, 10, 30)}, ObjectiveFailoverP99, limits(5), "",
			"No recommendation: none of the 1 valid config meets the constraints (1 needs more than 5 store writes/s); " +
				"the closest is only (it needs 10/s)."},
		{"one config, within the limits", []ConfigResult{crafted("only", 5, 0.01, 10, 30)}, ObjectiveFailoverP99,
			Constraints{MaxStoreWritesPerSecond: f64(20), MaxReexecutedFraction: f64(0.05)}, "only",
			"only: the lowest p99 failover (5 s) of the 1 valid config that stays under 20 store writes/s (it needs 10/s) " +
				"and re-executes at most 5% of its work (it re-executes 1%); 1 config is on the Pareto frontier."},
		{"nothing valid", []ConfigResult{invalid("bad"), invalid("worse")}, ObjectiveFailoverP99, Constraints{}, "",
			"No recommendation: none of the 2 configs is valid (renew 2s >= TTL×(1−rho)−margin = 1.93s: the holder would " +
				"stop believing before it renews)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			markPareto(tt.configs, seedsCrafted)
			i, explanation := recommend(tt.configs, seedsCrafted, tt.objective, tt.constraints)
			assert.Equal(t, tt.explanation, explanation)
			if tt.want == "" {
				assert.Equal(t, -1, i)
				for _, c := range tt.configs {
					assert.False(t, c.Recommended, c.Label)
				}
				return
			}
			require.GreaterOrEqual(t, i, 0)
			assert.Equal(t, tt.want, tt.configs[i].Label)
			for j, c := range tt.configs {
				assert.Equal(t, j == i, c.Recommended, c.Label)
				if c.Recommended {
					assert.True(t, c.Pareto && c.Feasible, "the recommendation is feasible and on the frontier")
				}
			}
		})
	}
}

// Whatever the constraints, the recommendation is the best configuration
// that meets them, for each frontier cost: the choice from the frontier
// loses nothing.
func TestRecommendIsBestFeasible(t *testing.T) {
	for _, o := range []Objective{ObjectiveFailoverP99, ObjectiveReexecuted, ObjectiveStoreWrites} {
		for _, limit := range []float64{10, 50, 100, 130, 200, 300} {
			t.Run(fmt.Sprintf("%s/%g", o, limit), func(t *testing.T) {
				configs := tradeOff()
				markPareto(configs, seedsCrafted)
				i, _ := recommend(configs, seedsCrafted, o, limits(limit))
				best := -1
				for j, c := range configs {
					if c.completed(seedsCrafted) && c.Metrics.StoreWritesPerWorkloadSecond <= limit &&
						(best < 0 || value(c.Metrics, o) < value(configs[best].Metrics, o)) {
						best = j
					}
				}
				if best < 0 {
					assert.Equal(t, -1, i)
					return
				}
				require.GreaterOrEqual(t, i, 0)
				assert.Equal(t, value(configs[best].Metrics, o), value(configs[i].Metrics, o))
			})
		}
	}
}

func TestFormatSig(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{{0, "0"}, {5.9, "5.9"}, {4.264, "4.26"}, {16.94, "16.9"}, {123.4, "123"}, {1234.6, "1235"}, {0.5123, "0.512"},
		{0.0456, "0.0456"}, {0.001, "0.001"}, {2, "2"}}
	for _, tt := range tests {
		assert.Equal(t, tt.want, formatSig(tt.in), "%v", tt.in)
	}
}
