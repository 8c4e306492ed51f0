// Package tune chooses a lease configuration from evidence: it replays a
// workload (package workload) under a grid of TTLs, renew intervals and
// checkpoint policies, measures each configuration over the same seeds,
// marks the Pareto frontier, and recommends one configuration under the
// user's constraints, with a sentence that says why. `simrun tune` is its
// command line.
//
// # The grid
//
// [Config] lists the TTLs, the renew intervals ([Renew]: a duration, or
// a fraction of the TTL such as "ttl/3", which [ParseRenew] reads) and the
// checkpoint policies ([Checkpoint]: every N units "5u", an interval
// "30s", or "none", which [ParseCheckpoint] reads), plus the drift bound
// rho and the safety margin (DefaultRho and DefaultMargin are the
// built-in scenarios' 1% and 50ms). Each combination becomes a
// lease.Config.
//
// A replicated store adds a fourth axis, innermost: its election timeouts
// (Config.ElectionTimeouts, lease.Config.ElectionTimeout). Only an
// implementation that declares lease.Capabilities.ElectionTick takes it,
// in whole ticks of that length, more than one ([CheckElectionTimeouts]);
// any other refuses it, since it would ignore the knob and every value
// would measure the same store. Without the axis each run uses the
// implementation's default, and neither the labels, the JSON, the replay
// commands nor the table mention it.
//
// One that cannot be valid — a renew interval at or above
// TTL×(1−rho)−margin, so that a holder would stop believing before it
// renews, or any other reason lease.Config.Validate gives — is reported
// with its reason and not run.
//
// # Goroutine-host implementations: knobs
//
// An implementation that runs as ordinary Go code in a zoo module has no
// lease.Config: it declares knobs (gohost.Knob), and [RunKnobs] tunes
// those instead. [KnobConfig] names its stories and an axis of values per
// knob ([KnobAxis]); every combination runs on every seed of every story
// through a sweep.Host the caller builds per configuration ([KnobHost],
// which also says when the implementation refuses a combination: it is
// listed as invalid). The result is a [Result] like Run's: each
// [ConfigResult] carries its Knobs, its violating runs per property
// (Violated), the same Metrics (for a failure detector: false suspicions
// and their time, P7; detection p50 and max, P8; and the smallest P1
// margin), and the frontier and recommendation are decided as below, with
// the objectives ObjectiveFalseSuspicions and ObjectiveDetectionMax and
// the constraints MaxFalseSuspicions and MaxDetection. Each configuration
// replays with a `simrun sweep` line, each failing run with a `simrun run`
// line, both with --knob.
//
// # Common random numbers
//
// Every valid configuration runs on the same seeds. A workload's random
// faults (GC pauses, crashes) and the unit times it draws come from PRNGs
// derived from the seed alone, so every configuration meets the same
// faults at the same instants, and differences between configurations
// come from the configurations, not from the luck of the draw. The runs
// go through package sweep: in parallel, aggregated in seed order, so a
// [Result] is the same at any parallelism (apart from its wall time).
// Every property (P1..P6) is checked on every run; a run that violates
// one is listed with the command that replays it (`simrun tune … --seeds
// N-N`, which prints the same trace hash), and the configuration takes no
// part in the recommendation.
//
// # What is measured
//
// Per configuration, over all its runs ([Metrics]): failover time (p50,
// p99, max, mean; from a holder's crash to the next new grant of its task
// to another worker, processed at the grantor, as package checker
// defines it: an acquire reply on leasesim's store; on a store whose
// grants are not acquire replies, such as the lessor's create of the key,
// the new holder's belief), re-executed units and their fraction, duplicate unfenced
// side effects, false expirations, ErrFenced replies, renewal failures,
// lease-store writes per second of workload, task completion latency
// (p50, p99), unfinished tasks, and verdicts that could not be given.
//
// # Frontier and recommendation
//
// The Pareto frontier is over three costs, all minimised: p99 failover,
// re-executed fraction and store writes per second of workload (and, for
// a failure detector, false suspicions and the longest detection, zero
// and so inert for every other implementation). A
// configuration is on it when no other is at least as good in all three
// and better in one; equal configurations are both on it. Only
// configurations that ran on every seed without a failing run take part,
// and, when the workload makes some of them fail over, only those that saw
// a failover: a p99 failover without samples is unknown, not zero. The
// recommendation minimises the [Objective] (p99 failover by default) among
// the frontier's configurations that meet the [Constraints], breaking ties
// by the other objectives in the order p99 failover, re-executed work,
// store writes, task latency p99, then by grid order. For the three
// frontier costs this is the best of every configuration that meets the
// constraints (one that dominated it would meet them too). When none meets
// them, nothing is recommended and the explanation says how many
// configurations each constraint excluded and which came closest.
//
// # The failover time, analytically
//
// On a baseline with crashes only (fixed one-way latency L, no loss, no
// pauses), the expected failover time follows from the implementation. A
// holder sends a renewal every RenewInterval after the previous one's
// send time (lease/renew.go); the grantor keeps the lease GrantorHold(TTL)
// = TTL×(1+rho) from the renewal's receipt, L after its send. A crash
// lands at a uniformly random point of the renewal cycle, so the lease
// outlives the crash by GrantorHold(TTL) + L − RenewInterval/2 on
// average. Each of the k other workers waits on ErrHeld: told the time
// remaining, it sends its next acquire remaining + U(0, BackoffMin) after
// the reply reaches it (lease/session.go), so it is processed a round trip
// 2L plus its jitter after the expiry; the first of k is BackoffMin/(k+1)
// after it on average. Hence
//
//	E[failover] = GrantorHold(TTL) − RenewInterval/2 + 3L + BackoffMin/(k+1)
//
// which TestFailoverMeanMatchesAnalysis checks within 3% at TTLs from 2s
// to 20s (it agrees within 1%).
package tune
