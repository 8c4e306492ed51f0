package reports

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The properties table: notes start at noteIndent and wrap at noteWidth
// columns, so a long bound stays readable on an 100-column terminal.
const (
	noteIndent = 2 + 20 + 1 + 9 + 1 // "P1 exclusivity", the status, the note
	noteWidth  = 100 - noteIndent
)

// maxEvidenceLines bounds the evidence printed per violation; the rest is
// in run.json and report.html.
const maxEvidenceLines = 8

// WriteRunText writes the terminal summary of one run to w, in colour when
// w is a terminal (see TextOptionsFor). h may be nil; when given, it
// supplies the faults active at each violation if the checker did not,
// and the fenced actions.
func WriteRunText(w io.Writer, run Run, h *history.History) error {
	return TextOptionsFor(w).WriteRunText(w, run, h)
}

// WriteRunText writes the terminal summary of one run to w: what ran, the
// properties, the violations with the faults active then, the metrics, the
// run's figures and trace hash, and the command that replays it.
func (o TextOptions) WriteRunText(w io.Writer, run Run, h *history.History) error {
	t := &textWriter{w: w}
	if run.Source != "" {
		t.printf("%s  %s  recorded by %s", o.paint(ansiBold, "leasesim check"), run.Source, run.Producer)
		if run.Seed != 0 {
			t.printf("  (scenario %s seed %d)", run.Scenario, run.Seed)
		}
		t.printf("\n")
	} else {
		t.printf("%s  %s  impl %s  seed %d\n", o.paint(ansiBold, "leasesim run"), run.Scenario, run.Impl, run.Seed)
	}
	for _, a := range run.Adapted {
		t.printf("adapted: %s\n", a)
	}
	if run.Stopped != "" {
		t.printf("%s\n", o.paint(ansiBold+ansiRed, "STOPPED EARLY: "+run.Stopped))
	}
	t.printf("\nProperties\n")
	for _, p := range run.Properties {
		lines := wrapText(propertyNote(p), noteWidth)
		t.printf("  %-20s %s %s\n", p.Property+" "+p.Name, o.status(p.Status, 9), lines[0])
		for _, line := range lines[1:] {
			t.printf("%*s%s\n", noteIndent, "", line)
		}
	}
	if len(run.Properties) == 0 {
		t.printf("  (not checked)\n")
	}
	o.writeViolations(t, run, h)
	writeFenced(t, h)
	rows, err := metricRows(run.Metrics)
	if err != nil {
		return err
	}
	if len(rows) > 0 {
		t.printf("\nMetrics\n")
		writeMetricRows(t, rows)
	}
	t.printf("\nFaults     %s\n", faultCounts(run.Faults))
	if run.Source == "" {
		t.printf("Events     %d in %.3f simulated seconds\n", run.Events, run.SimSeconds)
		t.printf("Speed      %s acceleration (%.3f wall seconds)\n", formatAcceleration(run.Acceleration), run.WallSeconds)
		t.printf("Trace      %s\n", run.TraceHash)
	} else {
		t.printf("History    %.3f seconds of true time, checked in %.3f wall seconds\n", run.SimSeconds, run.WallSeconds)
	}
	if run.Replay != "" { // a history read from standard input has none
		t.printf("Replay     %s\n", o.paint(ansiBold, run.Replay))
	}
	return t.result("run summary")
}

// writeViolations writes each violation with its evidence and the faults
// active at the time.
func (o TextOptions) writeViolations(t *textWriter, run Run, h *history.History) {
	if len(run.Violations) == 0 {
		return
	}
	t.printf("\n%s\n", o.paint(ansiBold+ansiRed, fmt.Sprintf("Violations (%d)", len(run.Violations))))
	for _, v := range run.Violations {
		t.printf("  %s at %s: %s\n", o.paint(ansiBold+ansiRed, v.Property), formatTime(v.At), v.Detail)
		for i, e := range v.Evidence {
			if i == maxEvidenceLines {
				t.printf("      ... %d more\n", len(v.Evidence)-i)
				break
			}
			t.printf("      %s\n", e)
		}
		causes := violationFaults(v, h)
		if len(causes) == 0 {
			t.printf("      faults: none active, none ended within %s before on the nodes involved\n", recentWindowName(h))
		}
		for _, f := range causes {
			t.printf("      fault: %s\n", describeCause(f, v.At))
		}
	}
}

// maxFencedLines bounds the fenced actions listed; the rest are counted.
const maxFencedLines = 5

// writeFenced lists the actions that fencing refused: the stale writes and
// checkpoints of holders that had lost their lease, which is fencing doing
// its job (the Kleppmann story's ending).
func writeFenced(t *textWriter, h *history.History) {
	if h == nil {
		return
	}
	var lines []string
	for _, op := range h.AllOps() {
		if op.Output.Err != string(model.RegisterFenced) || (op.Input.Kind != string(model.OpWrite) && op.Input.Kind != string(model.OpCheckpoint)) {
			continue
		}
		line := fmt.Sprintf("%s  %s %s under token %d refused by %s", formatTime(op.Processed), op.Client, op.Input.Kind, op.Input.Token, op.Server)
		if op.Output.Token > op.Input.Token {
			line += fmt.Sprintf(" (it had accepted token %d)", op.Output.Token)
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return
	}
	t.printf("\nFenced (stale actions refused: %d)\n", len(lines))
	for i, line := range lines {
		if i == maxFencedLines {
			t.printf("  ... %d more\n", len(lines)-i)
			break
		}
		t.printf("  %s\n", line)
	}
}

// propertyNote is what the properties table says after the verdict: the
// summary; P1's margin unless the summary already gives it; and, when the
// property did not hold, the bound it was checked against.
func propertyNote(p checker.Result) string {
	var parts []string
	if p.Summary != "" {
		parts = append(parts, p.Summary)
	}
	if p.MarginMin != nil && !strings.Contains(p.Summary, p.MarginMin.String()) {
		parts = append(parts, "min margin "+p.MarginMin.String())
	}
	if p.Bound != "" && p.Status != checker.OK {
		parts = append(parts, "bound "+p.Bound)
	}
	if p.AssumptionExceeded {
		parts = append(parts, "ASSUMPTION EXCEEDED (drift beyond rho)")
	}
	return strings.Join(parts, "; ")
}

// violationFaults returns the faults that may have caused a violation: the
// checker's list (active then, or recently ended on the nodes involved),
// or, when it gave none, the history's fault windows active at that time.
func violationFaults(v checker.Violation, h *history.History) []history.FaultWindow {
	if len(v.Faults) > 0 || h == nil {
		return v.Faults
	}
	return h.FaultsAt(v.At)
}

// describeCause says what a fault window was and when, relative to the
// violation at at: "pause h1 3.008000s–13.007563s, ended 2.859ms before".
func describeCause(f history.FaultWindow, at history.Time) string {
	var when string
	switch {
	case f.End < at:
		when = "ended " + ago(at.Sub(f.End)) + " before"
	case f.Start > at:
		when = "began " + ago(f.Start.Sub(at)) + " after"
	case f.Start == at:
		when = "began at that instant"
	default:
		when = "active, began " + ago(at.Sub(f.Start)) + " before"
	}
	return describeWindow(f) + ", " + when
}

// ago formats a duration between two instants, to the microsecond (below
// one, exactly: a gap of 1ns is not "0s").
func ago(d time.Duration) string {
	if d < time.Microsecond {
		return d.String()
	}
	return d.Round(time.Microsecond).String()
}

// recentWindowName names the recent-fault window of a run's violations:
// "one TTL (5s)".
func recentWindowName(h *history.History) string {
	if h == nil {
		return "one TTL"
	}
	return fmt.Sprintf("one TTL (%s)", checker.RecentFaultWindow(h.Lease))
}

// describeWindow says what a fault window was, for people.
func describeWindow(f history.FaultWindow) string {
	var sb strings.Builder
	sb.WriteString(f.Kind)
	if f.Node() != "" {
		sb.WriteString(" " + f.Node())
	}
	if f.Peer() != "" {
		sb.WriteString(" → " + f.Peer())
	}
	if f.Detail != "" {
		sb.WriteString(" " + f.Detail)
	}
	if f.Start == f.End {
		fmt.Fprintf(&sb, " at %s", formatTime(f.Start))
	} else {
		fmt.Fprintf(&sb, " %s–%s", formatTime(f.Start), formatTime(f.End))
	}
	return sb.String()
}

// faultCounts summarises a fault log as counts by kind, in kind order:
// "1 pause, 1 resume, 1 heal".
func faultCounts(log []Fault) string {
	counts := map[string]int{}
	var kinds []string
	for _, f := range log {
		if counts[f.Kind] == 0 {
			kinds = append(kinds, f.Kind)
		}
		counts[f.Kind]++
	}
	if len(kinds) == 0 {
		return "none"
	}
	slices.SortStableFunc(kinds, compareFaultKinds)
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return strings.Join(parts, ", ")
}

// formatTime formats an instant of true time as every report and every
// checker's evidence does (checker.FormatTime): "13.010421s".
func formatTime(t history.Time) string { return checker.FormatTime(t) }

// formatAcceleration formats simulated seconds per wall second ("12345x").
func formatAcceleration(a float64) string {
	if a <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0fx", a)
}

// wrapText breaks s into lines of at most width columns at spaces (a word
// longer than width gets a line of its own). It returns at least one line.
func wrapText(s string, width int) []string {
	var lines []string
	line := ""
	for word := range strings.FieldsSeq(s) {
		switch {
		case line == "":
			line = word
		case len([]rune(line))+1+len([]rune(word)) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// compareFaultKinds orders fault kinds as the kernel does
// (history.FaultKinds), a producer's own kinds after them by name.
func compareFaultKinds(a, b string) int {
	ra, rb := slices.Index(history.FaultKinds, a), slices.Index(history.FaultKinds, b)
	switch {
	case ra < 0 && rb < 0:
		return strings.Compare(a, b)
	case ra < 0:
		return 1
	case rb < 0:
		return -1
	}
	return ra - rb
}
