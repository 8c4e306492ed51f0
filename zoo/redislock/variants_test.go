package redislock

import (
	"github.com/leasesim/leasesim/scenarios"
)

// lockOnlyVariants are the catalogue scenarios that a Redis lock cannot
// run as they are (their workers need checkpoints), with the workers
// removed and everything else, the fault plan and the premises included,
// as in the catalogue. They are named "<scenario>/lock-only".
func lockOnlyVariants() []scenarios.Scenario {
	var out []scenarios.Scenario
	for _, sc := range scenarios.Catalog() {
		if sc.Workers == 0 || sc.Contenders == 0 {
			continue
		}
		sc.Name += "/lock-only"
		sc.Workers, sc.Tasks = 0, nil
		out = append(out, sc)
	}
	return out
}
