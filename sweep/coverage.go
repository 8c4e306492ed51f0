package sweep

import (
	"slices"

	"github.com/leasesim/leasesim/checker"
)

// Coverage is how often the runs of a sweep reached each rare behaviour
// (checker.Behaviours), by name. Every behaviour is listed, a zero count
// meaning that no run reached it: a property that held only because its
// rare path was never taken proves little, so a summary flags those.
type Coverage map[string]uint64

// newCoverage returns a Coverage with every behaviour at zero.
func newCoverage() Coverage {
	c := make(Coverage, len(checker.Behaviours()))
	for _, b := range checker.Behaviours() {
		c[b.Name] = 0
	}
	return c
}

// addRun adds one run's counts.
func (c Coverage) addRun(run checker.Coverage) {
	for i, b := range checker.Behaviours() {
		c[b.Name] += run[i]
	}
}

// merge adds another summary's counts; a behaviour it names that this
// version does not know is kept, so nothing a shard measured is lost.
func (c Coverage) merge(other Coverage) {
	for name, n := range other {
		c[name] += n
	}
}

// Unreached returns the behaviours no run reached, in checker.Behaviours
// order, leaving out those in notApplicable (Summary.CoverageNotApplicable).
func (c Coverage) Unreached(notApplicable []string) []string {
	var out []string
	for _, b := range checker.Behaviours() {
		if c[b.Name] == 0 && !slices.Contains(notApplicable, b.Name) {
			out = append(out, b.Name)
		}
	}
	return out
}

// notApplicable lists the behaviours an implementation of spec cannot
// reach: those of leasesim's protocol for one with a specification of its
// own, those of checkpointed tasks for one that runs none (tasks false).
func notApplicable(spec string, tasks bool) []string {
	var out []string
	for _, b := range checker.Behaviours() {
		// Optional workers run only with checkpoints and side effects both
		// (scenarios.Adaptations): without either, no task runs.
		if !b.Applies(spec, tasks) {
			out = append(out, b.Name)
		}
	}
	return out
}
