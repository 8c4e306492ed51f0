package explore

// A search of several scenarios (Config.Hosts) is a portfolio: each
// scenario is an arm with its own corpus and features, and the search
// picks the arm of every run. The primary arm, the scenario whose nemesis
// draws the most varied faults, takes every other run. The other runs go
// to the other scenarios: each once, in order, so that the scripted
// stories' own runs come early; then each is picked with weight 1 +
// armScale × (its runs that joined its corpus) / (its runs), so that a
// scenario whose runs keep reaching something new runs more and one that
// stopped keeps a small share. The weights are integers, so the picks are
// the same on every machine.
//
// Measured (docs/explore.md, "Every scenario at once"): with the primary
// on every other run only until each scenario had run once, and every arm
// weighted after that, the stories' bugs were found as often but swarm's
// rarer ones less (114 of 125 searches found their bug, against 119).

// armScale is the weight of an arm all of whose runs joined its corpus.
const armScale = 64

// pickArm returns the arm the next run runs.
func (s *search) pickArm() *arm {
	if len(s.arms) == 1 || s.runs%2 == 0 {
		return s.arms[0]
	}
	others := s.arms[1:]
	for _, a := range others {
		if a.runs == 0 {
			return a
		}
	}
	weights := make([]int, len(others))
	total := 0
	for i, a := range others {
		weights[i] = 1 + armScale*a.finds/a.runs
		total += weights[i]
	}
	return others[weighted(s.rng, weights, total)]
}
