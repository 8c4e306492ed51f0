// Package checker decides, for one recorded run, whether the properties
// P1..P8 of DESIGN.md held. Each property lives in its own file and returns
// a three-valued Result (ok, violated, unknown) with evidence: the
// operations, the times, the tokens, and the faults active at the time.
// Unknown is never a pass: it says the run was too short to tell, or broke
// an assumption of the property (drift beyond rho). Checkers are pure
// functions of a history.History; they never read a clock.
//
//   - P1 exclusivity in true time (exclusivity.go)
//   - P2 fencing safety (fencing.go)
//   - P3 linearizability with porcupine (linearizability.go)
//   - P4 liveness after the heal phase (liveness.go; the service registry
//     in registry.go), against LivenessBound
//   - P5 checkpoint handoff (handoff.go)
//   - P6 the at-least-once window (atleastonce.go; the accounting of
//     re-executed work in rework.go)
//   - P7 failure-detector accuracy (accuracy.go) and P8 completeness
//     (completeness.go), for a history whose lease configuration declares
//     a detection bound: a member whose accepted renewals show it alive is
//     never declared dead; a member that stopped is declared dead within
//     the bound (what they share is in detector.go)
//
// Two notions are shared. A grant is a (holder, token) pair, and an
// acquire reply that re-confirms the holder's own current grant is not a
// new grant (grants.go). The latest accepted checkpoint of a resource
// ignores a checkpoint overtaken by a newer request of the same holder
// under the same token, which the grantor linearises before it
// (handoff.go).
//
// Metrics (metrics.go, failover.go) summarise a run for reports, sweeps and
// tuning; Merge, Add and Aggregate pool them over many seeds.
package checker
