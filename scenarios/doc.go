// Package scenarios is the one scenario API over every host: a Scenario is
// a test story as a Go value (who runs, what they do, what goes wrong, what
// must have happened for the verdicts to mean anything), and Execute runs
// it on one seed, on the host the scenario names, and returns the Outcome
// with every property's verdict and the metrics. Run runs it over many
// seeds as Go subtests and prints, for a failing seed, the line that
// replays it and the line that shrinks it; ShrinkSeed cuts a failing
// seed's fault schedule down; premises (premise.go) are pure functions of
// the history, so they mean the same on every host.
//
// Three hosts run scenarios today:
//
//   - The event host (the default): it builds a sim.World, boots a lease
//     implementation on every node through the lease.Env adapter (env.go),
//     drives the workload (contending holders, checkpointed workers, a
//     service registry), applies the fault plan (an explicit
//     faults.Schedule, a nemesis drawn from the seed, or both) and records
//     the history the checkers read (recorder.go, beliefs.go).
//   - The goroutine host (Scenario.Goroutines): ordinary Go code, one
//     function per node, in a testing/synctest bubble (package gohost).
//     It runs inside a Go test (Options.T); simrun runs a module's
//     goroutine-host scenarios through its test binary's Worker.
//   - The real-time host (Scenario.Processes): real processes on real TCP
//     in real time, under the scenario's Faults; a zoo module implements
//     Processes (zoo/etcd runs etcd members and clientv3 holders) and
//     returns the history, which Execute judges like any other. Its
//     outcomes are statistical (HostProcess).
//
// One rule for when an action counts holds on every host: at the holder's
// decision (gohost.Node.Act, and the event host's recorder when a holder
// decides to write), so a story gives the same verdicts on every host that
// runs it (TestKleppmannSameVerdictsOnEveryHost).
//
// Catalog returns the built-in scenarios, from the Kleppmann GC-pause story
// to the nemesis's swarm, and WithImpl plugs in any implementation of
// package lease's interfaces, so a user tests their own grantor and holder
// with every built-in scenario and checker:
//
//	func TestMine(t *testing.T) {
//		for _, sc := range scenarios.Catalog() {
//			t.Run(sc.Name, func(t *testing.T) {
//				scenarios.Run(t, sc, scenarios.Seeds(1, 200), scenarios.WithImpl(mine))
//			})
//		}
//	}
//
// A failing seed prints the property, its evidence and the lines that
// replay and shrink it.
package scenarios
