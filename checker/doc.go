// Package checker decides, for one recorded run, whether the properties
// P1..P6 of DESIGN.md held. Each property lives in its own file and returns
// a three-valued Result (ok, violated, unknown) with evidence: the
// operations, the times, the tokens, and the faults active at the time.
// Checkers read a history.History; they never read a clock.
//
//   - P1 exclusivity in true time (exclusivity.go)
//   - P2 fencing safety (fencing.go)
//   - P3 linearizability with porcupine (linearizability.go)
//   - P4 liveness after the heal phase (liveness.go)
//   - P5 checkpoint handoff (handoff.go)
//   - P6 the at-least-once window (atleastonce.go)
//
// Metrics (metrics.go) summarise a run for reports and tuning.
package checker
