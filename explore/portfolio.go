package explore

// A search of several scenarios (Config.Hosts) is a portfolio: each
// scenario is an arm with its own corpus and features, and the search
// picks the arm of every run. The primary arm, the scenario whose nemesis
// draws the most varied faults, takes every other run until each arm has
// run once, so that the scripted stories' own runs come early without
// starving the scenario that reaches the most. After that an arm is
// picked with weight 1 + armScale × (its runs that joined its corpus) /
// (its runs): a scenario whose runs keep reaching something new is run
// more, one that stopped reaching anything keeps a small share. The
// weights are integers, so the picks are the same on every machine.

// armScale is the weight of an arm all of whose runs joined its corpus.
const armScale = 64

// pickArm returns the arm the next run runs.
func (s *search) pickArm() *arm {
	if len(s.arms) == 1 {
		return s.arms[0]
	}
	for _, a := range s.arms[1:] {
		if a.runs == 0 {
			if s.runs%2 == 0 {
				return s.arms[0]
			}
			return a
		}
	}
	weights := make([]int, len(s.arms))
	total := 0
	for i, a := range s.arms {
		weights[i] = 1 + armScale*a.finds/a.runs
		total += weights[i]
	}
	return s.arms[weighted(s.rng, weights, total)]
}
