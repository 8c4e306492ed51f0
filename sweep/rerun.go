package sweep

import "github.com/leasesim/leasesim/internal/seeds"

// Failing is what a summary says failed, as a sweep can run it again:
// the scenarios that had a failing run, in the summary's order, each with
// the seeds of its failing runs.
type Failing struct {
	Scenarios []string
	Seeds     []Seeds // Seeds[i] for Scenarios[i]
	// Unlisted counts failing seeds the summary counted without listing
	// (beyond MaxSeedRanges or MaxFailures), which a rerun cannot reach:
	// at most this many, since a run that failed several properties
	// counts once per property.
	Unlisted int64
}

// Runs is how many runs Failing holds.
func (f Failing) Runs() int {
	n := 0
	for _, s := range f.Seeds {
		n += s.Count()
	}
	return n
}

// FailingRuns returns the failing runs of s: the seeds its ByProperty and
// Failures list, per scenario. A run that failed several properties is
// run once.
func FailingRuns(s Summary) Failing {
	byScenario := map[string][]seeds.Range{} // looked up; iterated through s.Scenarios
	for _, byScen := range s.ByProperty {
		for sc, set := range byScen {
			byScenario[sc] = append(byScenario[sc], set.ranges...)
		}
	}
	for _, f := range s.Failures {
		byScenario[f.Scenario] = append(byScenario[f.Scenario], seeds.Range{First: f.Seed, Last: f.Seed})
	}
	var out Failing
	for _, sc := range s.Scenarios {
		if len(byScenario[sc]) == 0 {
			continue
		}
		out.Scenarios = append(out.Scenarios, sc)
		out.Seeds = append(out.Seeds, seeds.FromRanges(byScenario[sc]))
	}
	for _, byScen := range s.ByProperty {
		for _, set := range byScen {
			out.Unlisted += set.omitted
		}
	}
	return out
}
