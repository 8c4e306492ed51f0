package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/tune"
)

// Marks in a tuning table.
const (
	markPareto      = "★" // on the Pareto frontier
	markRecommended = "→" // the recommended configuration
)

// tuneColumns are the table's columns after the marks, as the terminal
// and the page both show them.
var tuneColumns = []string{"ttl", "renew", "checkpoint", "failover p99", "reexec", "store w/s", "task p99",
	"false exp", "fenced", "renew fail", "violations"}

// tuneColumnsOf are res's columns: tuneColumns, with "election" after
// "checkpoint" when the grid had an election-timeout axis.
func tuneColumnsOf(res tune.Result) []string {
	if !hasElectionAxis(res) {
		return tuneColumns
	}
	return slices.Insert(slices.Clone(tuneColumns), 3, "election")
}

// hasElectionAxis reports whether res's grid had election timeouts.
func hasElectionAxis(res tune.Result) bool {
	return slices.ContainsFunc(res.Configs, func(c tune.ConfigResult) bool { return c.ElectionTimeout != "" })
}

// tuneRow is one configuration as the tables show it: its cells as text,
// in tuneColumns order, or its parameters and why it is invalid.
type tuneRow struct {
	Marks       string
	Cells       []string
	Invalid     string // the reason, for an invalid configuration
	NotRun      bool   // valid but interrupted before it ran
	Pareto      bool
	Recommended bool
	Violating   bool
	Title       string // the label and the replay command, for a tooltip
}

// tuneRows builds the table rows of a tuning result, in grid order.
func tuneRows(res tune.Result) []tuneRow {
	rows := make([]tuneRow, len(res.Configs))
	election := hasElectionAxis(res)
	for i, c := range res.Configs {
		r := tuneRow{Marks: tuneMarks(c), Pareto: c.Pareto, Recommended: c.Recommended, Violating: c.ViolatingRuns > 0,
			Title: c.Label}
		if c.Replay != "" {
			r.Title += "\n" + c.Replay
		}
		r.Cells = []string{c.TTL, c.Renew, c.Checkpoint}
		if election {
			r.Cells = append(r.Cells, c.ElectionTimeout)
		}
		switch {
		case !c.Valid:
			r.Invalid = c.InvalidReason
		case c.Runs == 0:
			r.NotRun = true
		default:
			m := c.Metrics
			r.Cells = append(r.Cells, failoverCell(m), formatPercent(m.ReexecutedFraction),
				strconv.FormatFloat(m.StoreWritesPerWorkloadSecond, 'f', 2, 64), durationCell(m.TaskLatencyP99, m.TasksCompleted),
				strconv.Itoa(m.FalseExpirations), strconv.Itoa(m.Fenced), strconv.Itoa(m.RenewalFailures),
				strconv.Itoa(c.ViolatingRuns))
		}
		rows[i] = r
	}
	return rows
}

// tuneMarks are a configuration's marks: "→★", " ★" or "  ".
func tuneMarks(c tune.ConfigResult) string {
	marks := []string{" ", " "}
	if c.Recommended {
		marks[0] = markRecommended
	}
	if c.Pareto {
		marks[1] = markPareto
	}
	return strings.Join(marks, "")
}

// failoverCell is the p99 failover, or "-" when nothing failed over.
func failoverCell(m tune.Metrics) string { return durationCell(m.FailoverP99, m.Failovers) }

// durationCell formats a percentile, or "-" when it has no samples.
func durationCell(d time.Duration, samples int) string {
	if samples == 0 {
		return "-"
	}
	return formatSeconds(d.Seconds())
}

// formatPercent writes a fraction as a percentage with two decimals.
func formatPercent(f float64) string { return strconv.FormatFloat(100*f, 'f', 2, 64) + "%" }

// tuneGlance is the line that says what was tuned.
func tuneGlance(res tune.Result) string {
	invalid := len(res.Configs) - res.ValidConfigs
	return fmt.Sprintf("%s (%s invalid) · seeds %s · %s · %s violating · rho %g · margin %v · %.1f wall s",
		plural(len(res.Configs), "config"), strconv.Itoa(invalid), res.Seeds, plural(res.Runs, "run"),
		strconv.Itoa(res.ViolatingRuns), res.Rho, res.Margin, res.WallSeconds)
}

// tuneGoal says what the recommendation optimised under which limits.
func tuneGoal(res tune.Result) string {
	var limits []string
	c := res.Constraints
	if v := c.MaxStoreWritesPerSecond; v != nil {
		limits = append(limits, "store writes ≤ "+strconv.FormatFloat(*v, 'g', -1, 64)+"/s")
	}
	if v := c.MaxReexecutedFraction; v != nil {
		limits = append(limits, "re-executed ≤ "+strconv.FormatFloat(100**v, 'g', -1, 64)+"%")
	}
	if v := c.MaxFailoverP99; v != nil {
		limits = append(limits, "p99 failover ≤ "+v.String())
	}
	goal := "minimise " + string(res.Objective)
	if len(limits) == 0 {
		return goal + ", no constraints"
	}
	return goal + " under " + strings.Join(limits, ", ")
}

// tuneSeeds is how many seeds each configuration ran on: the seed set as
// written ("1-5,9"), or its ends if it cannot be read.
func tuneSeeds(res tune.Result) int {
	if set, err := sweep.ParseSeeds(res.Seeds); err == nil {
		return set.Count()
	}
	return int(res.SeedLast-res.SeedFirst) + 1
}
