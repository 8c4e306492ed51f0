package reports

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// testWall is the wall time the tests pretend a run took, so that the
// acceleration is a fixed figure.
const testWall = 5 * time.Millisecond

// runScenario runs a built-in scenario and returns its run object.
func runScenario(t testing.TB, name string, seed uint64) (Run, RunData) {
	t.Helper()
	sc, err := scenarios.Lookup(name)
	require.NoError(t, err)
	out, err := scenarios.Execute(sc, seed, scenarios.Options{})
	require.NoError(t, err)
	return EventRun(out, testWall)
}

// kleppmann is the article's story: h1 pauses, h2 takes over, h1's stale
// write is fenced.
func kleppmann(t testing.TB) (Run, RunData) {
	t.Helper()
	return runScenario(t, "kleppmann-gc-pause", 1)
}

// fencedWrite returns the first fenced write of a history.
func fencedWrite(t testing.TB, h *history.History) history.Operation {
	t.Helper()
	for _, o := range h.AllOps() {
		if o.Input.Kind == lease.KindWrite.String() && o.Output.Err == lease.CodeFenced.String() {
			return o
		}
	}
	require.Fail(t, "the history has no fenced write")
	return history.Operation{}
}

// withViolation returns a copy of run in which P2 is violated at the given
// time, as a checker would report it, and d. It tests rendering only.
func withViolation(run Run, d RunData, at history.Time) (Run, RunData) {
	v := checker.Violation{Property: "P2", At: at, Detail: `store accepted token 1 after token 2 <script>alert("x")</script>`,
		Evidence: []string{"write lock #1 by h1 accepted at 13.010s", "write lock #2 by h2 accepted at 7.482s"}}
	run.Properties = slices.Clone(run.Properties)
	for i := range run.Properties {
		if run.Properties[i].Property == "P2" {
			run.Properties[i].Status = checker.Violated
			run.Properties[i].Summary = "1 stale write accepted"
			run.Properties[i].Violations = []checker.Violation{v}
		}
	}
	run.Violations = append(slices.Clone(run.Violations), v)
	return run, d
}
