package checker

import "github.com/leasesim/leasesim/history"

// Placeholders until each property has its own file; they answer Unknown,
// never OK.

// Exclusivity is a placeholder for P1.
func Exclusivity(h *history.History) Result { return todo("P1", "exclusivity") }

// Fencing is a placeholder for P2.
func Fencing(h *history.History) Result { return todo("P2", "fencing") }

// Liveness is a placeholder for P4.
func Liveness(h *history.History) Result { return todo("P4", "liveness") }

// Handoff is a placeholder for P5.
func Handoff(h *history.History) Result { return todo("P5", "handoff") }

// AtLeastOnce is a placeholder for P6.
func AtLeastOnce(h *history.History) Result { return todo("P6", "at-least-once") }

// Metrics is a placeholder.
type Metrics struct{}

// Measure is a placeholder.
func Measure(h *history.History) Metrics { return Metrics{} }

func todo(p, name string) Result {
	return Result{Property: p, Name: name, Status: Unknown, Summary: "not implemented yet"}
}
