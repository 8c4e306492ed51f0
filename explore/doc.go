// Package explore searches fault schedules for a violation, guided by what
// each run reached, as greybox fuzzers do (AFL, Go's own fuzzing engine,
// Mallory for distributed systems), on any host.
//
// Explore runs one (scenario, implementation) again and again. Its first
// runs are the scenario's own: a seed and the schedule the scenario draws
// for it. Every run's behaviour coverage (checker.Cover) is compared with
// what earlier runs reached: a run that reached a behaviour no run had
// reached, or a behaviour a number of times in a count bucket (1, 2, 3,
// 4-7, 8-15, 16-31, 32-127, 128+) not seen for it before, joins the corpus.
// Later runs take a corpus entry, picked with a bias toward entries that
// reached the behaviours fewest runs reached, and mutate its schedule: add
// fault events drawn from the scenario's nemesis (scenarios.NemesisFor),
// remove one, shift one in time, stretch a pause, move one to another
// node, aim a failpoint at a protocol moment (on-reply, after-request,
// after-write, and before-write where the implementation marks it, on a
// node; favouring the moments no run has hit, Run.Moments), run a
// node's clock at the drift bound, change the seed, or splice two entries
// at an instant. One run in three stays a fresh draw of the scenario, so
// the search never narrows to its corpus alone: where mutation does not
// help, it costs at most that factor against random draws.
//
// The search stops at the first run that violates a property (P1..P8, or a
// panic of the implementation; unknown is not a violation), shrinks that
// run's schedule with scenarios.ShrinkSeed, and returns it with the line
// that replays it (Failure.Replay). Within the budget without a violation,
// the Result says which behaviours the runs reached and which they never
// did.
//
// Config.Hosts explores several scenarios of one implementation at once
// (simrun explore --scenario all), as a portfolio: each scenario keeps its
// own corpus and features; the primary, the scenario whose faults are the
// most varied, takes every other run; the other runs go to the other
// scenarios, once each in order, then with a weight that follows how
// often their runs reached something new (portfolio.go). The scripted
// stories, whose faults take one path on most seeds, then run early,
// beside the scenario that reaches the most.
//
// The search is one thing and how a run is executed another: a Host runs
// one Input and returns what the run's history reached (its behaviour
// coverage, first violation and trace hash), says what mutations may use
// (a Vocabulary: nodes, fault targets, failpoints, lease boundaries, and a
// nemesis to draw from, if it has one here), and shrinks a failing input
// with scenarios.ShrinkSeed. Explore runs the event host in process unless
// Config.Host names another; simrun explore runs goroutine code (zoo
// modules, a user's package) through its worker processes.
//
// The explorer's own choices come from its seed alone: one PCG stream, no
// map iteration, no clock. The same Config gives the same runs in the same
// order; on the event host also the same verdicts and the same first
// failure on any machine. On the goroutine host the verdicts are as
// deterministic as the host (verified by repetition).
package explore
