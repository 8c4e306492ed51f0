package scenarios

import (
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
)

// swarmFaultsPerMinute is the swarm's fault rate, which NemesisFor lends
// to a scenario that has no nemesis of its own.
const swarmFaultsPerMinute = 6

// NemesisFor returns the nemesis sc draws from when it runs against impl,
// with every default filled in (targets, boundaries, bounds, failpoints),
// as Execute draws it. A scripted scenario without a nemesis gets the
// swarm's, aimed at its own nodes and lease configuration: a search over
// schedules (package explore) draws new fault events from it.
func (sc Scenario) NemesisFor(impl lease.Impl) faults.Nemesis {
	if sc.Nemesis == nil {
		sc.Nemesis = &faults.Nemesis{FaultsPerMinute: swarmFaultsPerMinute}
	}
	impl = impl.OrCorrect()
	sc = sc.ForImpl(impl)
	return sc.nemesis(sc.NodesFor(impl))
}
