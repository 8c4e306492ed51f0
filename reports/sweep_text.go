package reports

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/leasesim/leasesim/internal/dist"
	"github.com/leasesim/leasesim/sweep"
)

// Bounds on what the sweep summaries list; summary.json has the rest.
const (
	maxTextFailures = 20 // failing runs listed with their replay commands
)

// WriteSweepText writes the terminal summary of a sweep to w, in colour
// when w is a terminal (see TextOptionsFor).
func WriteSweepText(w io.Writer, s sweep.Summary) error {
	return TextOptionsFor(w).WriteSweepText(w, s)
}

// WriteSweepText writes the terminal summary of a sweep: what ran, a loud
// PARTIAL when runs or shards are missing, a headline that claims no more
// than it knows (failing runs, then unknown runs, and "every property
// held" only when neither), failures by property and scenario with their
// seeds, the failing runs with their replay commands, unknown runs by
// reason, runs that exceeded an assumption (counted apart: not failures),
// what --verify-determinism verified, throughput, aggregate metrics, and
// the failover and P1 margin distributions.
func (o TextOptions) WriteSweepText(w io.Writer, s sweep.Summary) error {
	t := &textWriter{w: w}
	t.printf("%s  %s  impl %s  seeds %s  shard %s\n", o.paint(ansiBold, "leasesim sweep"),
		scenarioList(s.Scenarios), s.Impl, seedsOf(s), s.Shard)
	if s.Rerun != "" {
		t.printf("re-running the failing runs of %s\n", s.Rerun)
	}
	if line := skippedLine(s.Skipped); line != "" {
		t.printf("%s\n", line)
	}
	for _, ad := range s.Adapted {
		t.printf("adapted %s: %s\n", ad.Scenario, ad.How)
	}
	if s.Partial {
		t.printf("%s\n", o.paint(ansiBold+ansiRed, partialNote(s)))
	}
	t.printf("%d runs: %s\n", s.Runs, o.headline(s))
	o.writeByProperty(t, s)
	o.writeFailures(t, s)
	t.printf("\nUnknown               %s\n", unknownRuns(s))
	for _, reason := range sortedStrings(s.UnknownReasons) {
		t.printf("  %6d  %s\n", s.UnknownReasons[reason], reason)
	}
	t.printf("Assumption exceeded   %s (P1 overlap under clock drift beyond rho: the property's assumption broke, not a bug; not a failure)\n",
		plural(s.AssumptionExceeded, "run"))
	if s.VerifyDeterminism {
		t.printf("Determinism           %s\n", determinismNote(s))
	}
	t.printf("Behaviour coverage    %s\n", o.coverageNote(s))
	t.printf("Throughput            %s events/s, %.1f runs/s, mean acceleration %s (parallel %d, %.3f wall s)\n",
		formatCount(s.EventsPerSecond), s.RunsPerSecond, formatAcceleration(s.MeanAcceleration), s.Parallel, s.WallSeconds)
	t.printf("Failover              %s\n", distribution(s.Failover))
	t.printf("P1 minimum margin     %s\n", distribution(s.Margin))
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

// headline is the verdict of a sweep in a few words: failing runs first,
// then unknown runs, and "every property held" only when there are
// neither (on the runs that ran, when partial).
func (o TextOptions) headline(s sweep.Summary) string {
	var parts []string
	if n := s.Failed(); n > 0 {
		parts = append(parts, o.paint(ansiBold+ansiRed, plural(n, "failing run")))
	}
	if s.UnknownRuns > 0 {
		parts = append(parts, o.paint(ansiBold+ansiYellow, plural(s.UnknownRuns, "run")+" unknown (never a pass)"))
	}
	if len(parts) == 0 {
		held := "every property held"
		if s.Partial {
			held += " in the runs that ran"
		}
		parts = append(parts, o.paint(ansiBold+ansiGreen, held))
	}
	if s.AssumptionExceeded > 0 {
		parts = append(parts, plural(s.AssumptionExceeded, "run")+" exceeded an assumption")
	}
	return strings.Join(parts, "; ")
}

// partialNote says why a summary is partial.
func partialNote(s sweep.Summary) string {
	if len(s.MissingShards) > 0 {
		return fmt.Sprintf("PARTIAL: shards %s missing: %d of %d runs; the figures below cover only the merged shards",
			strings.Join(s.MissingShards, ", "), s.Runs, s.RunsExpected)
	}
	return fmt.Sprintf("PARTIAL: interrupted after %d of %d runs; the figures below cover only the finished runs", s.Runs, s.RunsExpected)
}

// seedsOf writes a summary's seed set.
func seedsOf(s sweep.Summary) string {
	if s.Seeds != "" {
		return s.Seeds
	}
	return fmt.Sprintf("%d-%d", s.SeedFirst, s.SeedLast)
}

// unknownRuns says how many runs had an unknown verdict, and of which
// properties.
func unknownRuns(s sweep.Summary) string {
	if s.UnknownRuns == 0 {
		return "no run"
	}
	return fmt.Sprintf("%s (verdicts: %s); unknown is never a pass", plural(s.UnknownRuns, "run"), unknownCounts(s.Unknown))
}

// determinismNote says what --verify-determinism verified.
func determinismNote(s sweep.Summary) string {
	var diverged int64
	var seeds []string
	for _, sc := range sortedStrings(s.ByProperty[sweep.PropertyDeterminism]) {
		set := s.ByProperty[sweep.PropertyDeterminism][sc]
		diverged += set.Count()
		seeds = append(seeds, sc+" "+seedSetText(set))
	}
	if diverged == 0 {
		return fmt.Sprintf("each of the %s executed twice: every pair of trace hashes identical", plural(s.Runs, "run"))
	}
	return fmt.Sprintf("each of the %s executed twice: %d diverged (%s)", plural(s.Runs, "run"), diverged, strings.Join(seeds, "; "))
}

// writeByProperty writes the failing seeds by property, then scenario.
func (o TextOptions) writeByProperty(t *textWriter, s sweep.Summary) {
	if len(s.ByProperty) == 0 {
		return
	}
	t.printf("\nFailures by property\n")
	for _, prop := range sortedProperties(s.ByProperty) {
		for _, sc := range sortedStrings(s.ByProperty[prop]) {
			set := s.ByProperty[prop][sc]
			t.printf("  %s  %s: %s: %s\n", o.paint(ansiBold+ansiRed, fmt.Sprintf("%-5s", prop)), sc,
				plural(int(set.Count()), "seed"), seedSetText(set))
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
		if f.Dir != "" {
			t.printf("      report: %s/report.html (in the --out directory)\n", f.Dir)
		}
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

// seedSetText writes a set of failing seeds as --seeds reads them, then
// how many more failed without being listed: "3-9, 15 (+4 more)".
func seedSetText(set sweep.SeedSet) string {
	list := strings.ReplaceAll(set.String(), ",", ", ")
	if n := set.Omitted(); n > 0 {
		list += fmt.Sprintf(" (+%d more)", n)
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

// distribution summarises a histogram of durations: count, min, median,
// p99 (within 1%), max.
func distribution(h dist.Histogram) string {
	if h.Count() == 0 {
		return "no samples"
	}
	return fmt.Sprintf("n=%d  min %s  p50 %s  p99 %s  max %s", h.Count(), formatSeconds(h.Min().Seconds()),
		formatSeconds(h.Quantile(0.50).Seconds()), formatSeconds(h.Quantile(0.99).Seconds()),
		formatSeconds(h.Max().Seconds()))
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

// coverageNote says how many of the rare behaviours the sweep reached, and
// names those it never did.
func (o TextOptions) coverageNote(s sweep.Summary) string {
	c := s.Coverage
	if len(c) == 0 {
		return "not measured (a summary from an older version)"
	}
	missed := c.Unreached(s.CoverageNotApplicable)
	applicable := len(c) - len(s.CoverageNotApplicable)
	note := fmt.Sprintf("%d of %d rare behaviours reached", applicable-len(missed), applicable)
	if n := len(s.CoverageNotApplicable); n > 0 {
		note += fmt.Sprintf(" (%d more do not apply to %s: %s)", n, s.Impl, strings.Join(s.CoverageNotApplicable, ", "))
	}
	if len(missed) == 0 {
		return note
	}
	return note + "; " + o.paint(ansiBold, "never reached: "+strings.Join(missed, ", "))
}

// skippedLine summarises the scenarios a sweep skipped in one line, by
// what they need (a reason up to its parenthesised detail, which --json
// keeps): "skipped 2 scenarios: needs checkpoints: a, b; needs X: c".
func skippedLine(skipped []sweep.Skipped) string {
	if len(skipped) == 0 {
		return ""
	}
	var needs []string
	byNeed := map[string][]string{}
	for _, sk := range skipped {
		need, _, _ := strings.Cut(sk.Reason, " (")
		if _, ok := byNeed[need]; !ok {
			needs = append(needs, need)
		}
		byNeed[need] = append(byNeed[need], sk.Scenario)
	}
	groups := make([]string, len(needs))
	for i, need := range needs {
		groups[i] = need + ": " + strings.Join(byNeed[need], ", ")
	}
	noun := "scenarios"
	if len(skipped) == 1 {
		noun = "scenario"
	}
	return fmt.Sprintf("skipped %d %s: %s", len(skipped), noun, strings.Join(groups, "; "))
}
