package checker

import (
	"time"

	"github.com/leasesim/leasesim/history"
)

// Status is a checker's verdict. Unknown is never a pass: it means the
// checker could not decide (a timeout, missing data, or an assumption of
// the property that the run exceeded). NotApplicable is not a pass either:
// the run had nothing at all the property is about (for P5 no task, unit or
// checkpoint; for P6 no task, unit or effect).
type Status string

// The verdicts.
const (
	OK            Status = "ok"
	Violated      Status = "violated"
	Unknown       Status = "unknown"
	NotApplicable Status = "n/a"
)

// notApplicable is the verdict of a property the run had nothing to judge
// for, and why.
func notApplicable(property, name, why string) Result {
	return Result{Property: property, Name: name, Status: NotApplicable, Summary: "not applicable: " + why}
}

// Result is one property's verdict on one run, with its evidence.
type Result struct {
	Property string `json:"property"` // "P1".."P8"
	Name     string `json:"name"`     // "exclusivity", "fencing", ...
	Status   Status `json:"status"`
	Summary  string `json:"summary"` // one line a person reads first
	// Bound is the bound the property was checked against, stated in words
	// (P4's liveness bound, P6's re-execution bound).
	Bound string `json:"bound,omitempty"`
	// AssumptionExceeded says that the run broke an assumption of the
	// property (drift beyond rho for P1), so an overlap is not a bug.
	AssumptionExceeded bool `json:"assumption_exceeded,omitempty"`
	// MarginMin is P1's smallest gap between one belief ending and the next
	// beginning, in true time; negative means an overlap.
	MarginMin *time.Duration `json:"margin_min_ns,omitempty"`
	// Violations are the counterexamples, earliest first.
	Violations []Violation `json:"violations,omitempty"`
	// Visualization is porcupine's visualisation of the run (an HTML
	// page), when Options.Visualize asked for it and the property did not
	// hold: data for reports to write, never a file the checker wrote.
	Visualization []byte `json:"-"`
	// Artifact is the file a report wrote Visualization to
	// (linearizability.html), if any.
	Artifact string `json:"artifact,omitempty"`
}

// Violation is one counterexample.
type Violation struct {
	Property string       `json:"property"`
	At       history.Time `json:"at_ns"`
	Detail   string       `json:"detail"`
	// Evidence lists the operations, times and tokens involved.
	Evidence []string `json:"evidence,omitempty"`
	// Faults are the faults active at the time.
	Faults []history.FaultWindow `json:"faults,omitempty"`
}

// AssumptionOnly reports whether r is unknown only because the run
// exceeded an assumption of the property (drift beyond rho for P1): an
// outcome of its own, shown and counted apart, and never a failure. Every
// other unknown (no data, a timeout, a premise that did not happen) is
// undecided, and never a pass.
func (r Result) AssumptionOnly() bool { return r.Status == Unknown && r.AssumptionExceeded }
