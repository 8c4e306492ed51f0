package reports

import (
	"io"
	"strings"
	"unicode/utf8"

	"github.com/leasesim/leasesim/tune"
)

// maxTextViolations bounds the failing runs the terminal lists;
// tune.json has them all (up to tune.MaxViolationsListed per config).
const maxTextViolations = 20

// WriteTuneText writes the terminal summary of a tuning run to w, in
// colour when w is a terminal (see TextOptionsFor).
func WriteTuneText(w io.Writer, res tune.Result) error {
	return TextOptionsFor(w).WriteTuneText(w, res)
}

// WriteTuneText writes the terminal summary of a tuning run: what was
// tuned, a row per configuration (its parameters, p99 failover,
// re-executed fraction, store writes per second, task latency p99, false
// expirations, ErrFenced replies, renewal failures and failing runs; ★
// marks the Pareto frontier and → the recommendation; an invalid one
// says why), the recommendation's explanation, and the failing runs with
// their replay commands.
func (o TextOptions) WriteTuneText(w io.Writer, res tune.Result) error {
	t := &textWriter{w: w}
	t.printf("%s  %s (%s)\n", o.paint(ansiBold, "leasesim tune"), res.Name, res.Workload)
	t.printf("%s\n%s\n", tuneGlance(res), tuneGoal(res))
	if res.Partial {
		t.printf("%s\n", o.paint(ansiBold+ansiRed, "PARTIAL: interrupted; the configs did not all run on every seed"))
	}
	t.printf("\n")
	o.writeTuneTable(t, tuneColumnsOf(res), tuneRows(res))
	t.printf("\n%s Pareto frontier over (p99 failover, re-executed fraction, store writes/s)   %s recommended\n",
		markPareto, markRecommended)
	t.printf("Counts are totals over the %s of each config; store writes are per second of workload.\n\n",
		plural(tuneSeeds(res), "seed"))
	verdict := o.paint(ansiBold+ansiGreen, res.Explanation)
	if res.RecommendedIndex < 0 {
		verdict = o.paint(ansiBold+ansiYellow, res.Explanation)
	}
	t.printf("%s\n", verdict)
	o.writeTuneViolations(t, res)
	return t.result("tune summary")
}

// writeTuneTable writes the rows in aligned columns.
func (o TextOptions) writeTuneTable(t *textWriter, columns []string, rows []tuneRow) {
	widths := make([]int, len(columns))
	for i, h := range columns {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i, c := range r.Cells {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	t.printf("  %s\n", o.paint(ansiDim, strings.TrimRight(alignCells(columns, widths), " ")))
	for _, r := range rows {
		var line string
		switch {
		case r.Invalid != "":
			line = o.paint(ansiDim, alignCells(r.Cells, widths)+"invalid: "+r.Invalid)
		case r.NotRun:
			line = o.paint(ansiDim, alignCells(r.Cells, widths)+"not run (interrupted)")
		default:
			line = strings.TrimRight(alignCells(r.Cells, widths), " ")
			switch {
			case r.Violating:
				line = o.paint(ansiBold+ansiRed, line)
			case r.Recommended:
				line = o.paint(ansiBold+ansiGreen, line)
			}
		}
		t.printf("%s%s\n", r.Marks, line)
	}
}

// alignCells left-aligns cells to widths, two spaces apart; numbers are
// right-aligned.
func alignCells(cells []string, widths []int) string {
	var b strings.Builder
	for i, c := range cells {
		pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
		if i >= 3 { // the metrics: right-aligned
			b.WriteString(pad + c + "  ")
		} else {
			b.WriteString(c + pad + "  ")
		}
	}
	return b.String()
}

// writeTuneViolations lists the failing runs with their replay commands.
func (o TextOptions) writeTuneViolations(t *textWriter, res tune.Result) {
	if res.ViolatingRuns == 0 {
		return
	}
	t.printf("\n%s\n", o.paint(ansiBold+ansiRed, plural(res.ViolatingRuns, "failing run")+" (any makes simrun tune exit 1)"))
	listed := 0
	for _, c := range res.Configs {
		for _, v := range c.Violations {
			if listed == maxTextViolations {
				t.printf("  … more in tune.json (simrun tune --json, or --out)\n")
				return
			}
			listed++
			t.printf("  %s seed %d: %s: %s\n      trace %s\n      %s\n", c.Label, v.Seed,
				o.paint(ansiBold+ansiRed, strings.Join(v.Properties, ", ")), v.Detail, v.TraceHash, v.Replay)
		}
	}
}
