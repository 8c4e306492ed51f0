package reports

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/leasesim/leasesim/sweep"
)

// Bounds on what the sweep summaries list; summary.json has the rest.
const (
	maxTextFailures = 20 // failing runs listed with their replay commands
	maxListedSeeds  = 12 // seeds listed per (property, scenario) in text
)

// WriteSweepText writes the terminal summary of a sweep to w, in colour
// when w is a terminal (see TextOptionsFor).
func WriteSweepText(w io.Writer, s sweep.Summary) error {
	return TextOptionsFor(w).WriteSweepText(w, s)
}

// WriteSweepText writes the terminal summary of a sweep: what ran, a loud
// PARTIAL when it was interrupted, failures by property and scenario with
// their seeds, the failing runs with their replay commands, unknown
// verdicts, throughput, aggregate metrics, and the failover and P1 margin
// distributions.
func (o TextOptions) WriteSweepText(w io.Writer, s sweep.Summary) error {
	t := &textWriter{w: w}
	t.printf("%s  %s  impl %s  seeds %d-%d  shard %s\n", o.paint(ansiBold, "leasesim sweep"),
		scenarioList(s.Scenarios), s.Impl, s.SeedFirst, s.SeedLast, s.Shard)
	if s.Partial {
		t.printf("%s\n", o.paint(ansiBold+ansiRed, fmt.Sprintf(
			"PARTIAL: interrupted after %d of %d runs; the figures below cover only the finished runs", s.Runs, s.RunsExpected)))
	}
	failed := len(s.Failures) + s.FailuresOmitted
	verdict := o.paint(ansiBold+ansiGreen, "every property held")
	if failed > 0 {
		verdict = o.paint(ansiBold+ansiRed, plural(failed, "failing run"))
	}
	t.printf("%d runs: %s\n", s.Runs, verdict)
	o.writeByProperty(t, s)
	o.writeFailures(t, s)
	t.printf("\nUnknown verdicts      %s\n", unknownCounts(s.Unknown))
	t.printf("Assumption exceeded   %d runs (P1 overlap under drift beyond rho: not a bug)\n", s.AssumptionExceeded)
	t.printf("Throughput            %s events/s, %.1f seeds/s, mean acceleration %s (parallel %d, %.3f wall s)\n",
		formatCount(s.EventsPerSecond), s.SeedsPerSecond, formatAcceleration(s.MeanAcceleration), s.Parallel, s.WallSeconds)
	t.printf("Failover              %s\n", distribution(s.FailoverSeconds))
	t.printf("P1 minimum margin     %s\n", distribution(s.MarginSeconds))
	rows, err := metricRows(s.Metrics)
	if err != nil {
		return err
	}
	if len(rows) > 0 {
		t.printf("\nMetrics (all runs)\n")
		writeMetricRows(t, rows)
	}
	return t.result("sweep summary")
}

// writeByProperty writes the failing seeds by property, then scenario.
func (o TextOptions) writeByProperty(t *textWriter, s sweep.Summary) {
	if len(s.ByProperty) == 0 {
		return
	}
	t.printf("\nFailures by property\n")
	for _, prop := range sortedProperties(s.ByProperty) {
		for _, sc := range sortedStrings(s.ByProperty[prop]) {
			seeds := s.ByProperty[prop][sc]
			t.printf("  %s  %s: %s: %s\n", o.paint(ansiBold+ansiRed, fmt.Sprintf("%-5s", prop)), sc,
				plural(len(seeds), "seed"), seedList(seeds, maxListedSeeds))
		}
	}
}

// writeFailures writes the first failing runs with their replay commands.
func (o TextOptions) writeFailures(t *textWriter, s sweep.Summary) {
	if len(s.Failures) == 0 {
		return
	}
	t.printf("\nFailing runs\n")
	for i, f := range s.Failures {
		if i == maxTextFailures {
			break
		}
		t.printf("  %s seed %d [%s] %s\n", f.Scenario, f.Seed, strings.Join(f.Properties, ","), f.Detail)
		t.printf("      %s\n", o.paint(ansiBold, f.Replay))
	}
	if more := max(0, len(s.Failures)-maxTextFailures) + s.FailuresOmitted; more > 0 {
		t.printf("  ... %d more failing runs (their seeds are listed by property above; summary.json)\n", more)
	}
}

// writeMetricRows writes metric rows as an aligned two-column list.
func writeMetricRows(t *textWriter, rows []metricRow) {
	width := 0
	for _, r := range rows {
		width = max(width, len(r.Name))
	}
	for _, r := range rows {
		t.printf("  %-*s  %s\n", width, r.Name, r.Value)
	}
}

// scenarioList names the scenarios of a sweep, shortened when there are
// many.
func scenarioList(names []string) string {
	switch {
	case len(names) == 1:
		return names[0]
	case len(names) <= 3:
		return strings.Join(names, ",")
	}
	return fmt.Sprintf("%d scenarios", len(names))
}

// propertyRank orders failure keys: the properties, then the other ways a
// run can fail.
var propertyRank = map[string]int{"P1": 1, "P2": 2, "P3": 3, "P4": 4, "P5": 5, "P6": 6,
	"limit": 7, "determinism": 8, "error": 9, "panic": 10}

// sortedProperties returns the keys of a by-property map in property
// order, unknown keys last and alphabetically.
func sortedProperties[V any](m map[string]V) []string {
	keys := sortedStrings(m)
	slices.SortStableFunc(keys, func(a, b string) int {
		ra, oka := propertyRank[a]
		rb, okb := propertyRank[b]
		if !oka {
			ra = math.MaxInt
		}
		if !okb {
			rb = math.MaxInt
		}
		return cmp.Compare(ra, rb)
	})
	return keys
}

// sortedStrings returns a map's keys sorted.
func sortedStrings[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// seedList formats up to limit seeds, then how many more: "3, 17, 44 (+9)".
func seedList(seeds []uint64, limit int) string {
	parts := make([]string, 0, min(len(seeds), limit))
	for i, seed := range seeds {
		if i == limit {
			break
		}
		parts = append(parts, strconv.FormatUint(seed, 10))
	}
	list := strings.Join(parts, ", ")
	if len(seeds) > limit {
		list += fmt.Sprintf(" (+%d more)", len(seeds)-limit)
	}
	return list
}

// unknownCounts formats unknown verdicts per property: "P3 2, P4 1".
func unknownCounts(m map[string]int) string {
	var parts []string
	for _, prop := range sortedProperties(m) {
		if m[prop] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", prop, m[prop]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// distribution summarises samples in seconds: count, min, median, p99,
// max.
func distribution(samples []float64) string {
	if len(samples) == 0 {
		return "no samples"
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	return fmt.Sprintf("n=%d  min %s  p50 %s  p99 %s  max %s", len(sorted), formatSeconds(sorted[0]),
		formatSeconds(nearestRank(sorted, 0.50)), formatSeconds(nearestRank(sorted, 0.99)),
		formatSeconds(sorted[len(sorted)-1]))
}

// nearestRank returns the q-quantile of sorted samples, nearest-rank.
func nearestRank(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// formatSeconds formats a time in seconds with a unit that suits it.
func formatSeconds(s float64) string {
	switch a := math.Abs(s); {
	case a >= 1 || a == 0:
		return strconv.FormatFloat(s, 'f', 3, 64) + "s"
	case a >= 1e-3:
		return strconv.FormatFloat(s*1e3, 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(s*1e6, 'f', 1, 64) + "µs"
}

// formatCount formats a large rate: "1.23M", "45.6k", "789".
func formatCount(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
