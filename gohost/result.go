package gohost

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
)

// Result is what one seed's run produced.
type Result struct {
	// Seed is the run's seed.
	Seed uint64
	// Hash is the trace hash: every event's fields folded in order.
	Hash uint64
	// Events is the trace, in the order the host recorded it.
	Events []Event
	// Level is the run's determinism level: verified, diverged at an
	// event, or unverified when Config.Verify was off.
	Level Level
	// History is what the nodes recorded, for the checkers
	// (checker.Check(res.History, checker.Options{})).
	History *history.History
	// Leaks are goroutines that outlived their node's life: still running
	// after the node crashed, or after the run ended, once the bubble had
	// settled.
	Leaks []Leak
	// Problems are what went wrong outside the nodes' protocol: a node
	// function that returned an error or panicked, a goroutine blocked
	// outside the bubble's control, goroutines left when the bubble ended.
	Problems []string
	// NotApplied says, once each, which of the schedule's faults the
	// goroutine host does not model as the schedule states them: each
	// clock drift or step applies to code that uses Node.Clock and never
	// to time.Now (the note says whether the node's code used Node.Clock
	// in this run); link loss is applied as connection resets (a stream
	// cannot lose bytes silently); duplication and reordering are not
	// applied (a connection delivers each byte once, in order); a pause is
	// a pause of the node's I/O, not a stop of the world.
	NotApplied []string
}

// Err returns nil when the run is clean (no leak, no problem, no
// divergence), else one error saying everything that went wrong. The
// protocol's own properties are the checkers' business, not Err's.
func (r *Result) Err() error {
	var errs []error
	for _, l := range r.Leaks {
		errs = append(errs, errors.New(l.String()))
	}
	for _, p := range r.Problems {
		errs = append(errs, errors.New(p))
	}
	if r.Level.Diverged() {
		errs = append(errs, fmt.Errorf("seed %d: determinism: %s", r.Seed, r.Level))
	}
	return errors.Join(errs...)
}

// Level is a run's determinism level (DESIGN.md, "The door").
type Level struct {
	// Determinism is history.Verified when a second run of the seed gave
	// the same trace, and empty otherwise.
	Determinism history.Determinism
	// Runs is how many times the seed ran.
	Runs int
	// DivergedAt is the index of the first event at which the runs'
	// traces differ, or -1.
	DivergedAt int
	// First and Second are the events at DivergedAt in each run ("end of
	// trace" when one run's trace is shorter).
	First, Second string
	// Likely names the divergence's likely source: events of one instant
	// in the other order, the same step with another value, or another
	// timing, and the process-global randomness the run left unseeded.
	Likely string
}

// Diverged reports whether two runs of the seed gave different traces.
func (l Level) Diverged() bool { return l.DivergedAt >= 0 }

// String says "verified", "diverged at event N (…)" or "unverified (run
// once)".
func (l Level) String() string {
	switch {
	case l.Diverged():
		return fmt.Sprintf("diverged at event %d (first run: %s; second run: %s); likely: %s", l.DivergedAt, l.First,
			l.Second, l.Likely)
	case l.Determinism == history.Verified:
		return string(history.Verified)
	}
	return "unverified (run once)"
}

// Leak is a node's goroutines that outlived its life.
type Leak struct {
	// Node and Incarnation name the life the goroutines belong to.
	Node        string
	Incarnation uint64
	// After is "crash" or "end of run": what ended the life; At when the
	// host looked, once the bubble had settled.
	After string
	At    time.Duration
	// Goroutines is how many were still there; Where their stacks'
	// innermost frames outside the runtime, one line per distinct stack.
	Goroutines int
	Where      []string

	life *Node
}

// String names the node and where its goroutines are.
func (l Leak) String() string {
	return fmt.Sprintf("goroutine leak: %d goroutine(s) of node %s (incarnation %d) still running at %v, after its %s: %s",
		l.Goroutines, l.Node, l.Incarnation, l.At, l.After, strings.Join(l.Where, "; "))
}
