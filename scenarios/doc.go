// Package scenarios is where leasesim's pieces meet: a Scenario is a test
// story as a Go value (who runs, what they do, what goes wrong), and
// Execute runs it on one seed: it builds a sim.World, boots a lease
// implementation on every node through the lease.Env adapter (env.go),
// drives the workload (contending holders, checkpointed workers, a service
// registry), applies the fault plan (an explicit faults.Schedule, a
// nemesis drawn from the seed, or both), records the history the checkers
// read (recorder.go, beliefs.go), and returns the Outcome with every
// property's verdict and the metrics.
//
// Catalog returns the built-in scenarios, from the Kleppmann GC-pause story
// to the nemesis's swarm. Run runs a scenario over many seeds as Go
// subtests, and WithImpl plugs in any implementation of package lease's
// interfaces, so a user tests their own grantor and holder with every
// built-in scenario and checker:
//
//	func TestMine(t *testing.T) {
//		for _, sc := range scenarios.Catalog() {
//			t.Run(sc.Name, func(t *testing.T) {
//				scenarios.Run(t, sc, scenarios.Seeds(1, 200), scenarios.WithImpl(mine))
//			})
//		}
//	}
//
// A failing seed prints the property, its evidence and the simrun command
// that replays it.
package scenarios
