// Package workload reads, writes, records and generates workloads, and
// turns them into scenarios: the tasks a fleet of workers runs, the faults
// that strike them, and the environment they run in. It is what replayed
// workloads and `simrun tune` stand on.
//
// # Format
//
// A workload is JSON lines, one object per line, version 1. The first line
// is the header:
//
//	{"type":"header","version":1,"name":"steady-batch","workers":4,"duration":"30m",
//	 "env":{"latency":{"kind":"pareto","min":"1ms","max":"500ms","alpha":1.5},"loss":0.001,
//	        "gc_pause":{"per_minute":2,"p50":"20ms","p99":"300ms","max":"2s"},
//	        "crash_per_hour":0.5,"restart_after":"10s"}}
//
// (one line in a file; wrapped here). Its fields:
//
//   - version (required): 1.
//   - name (required): the workload's name, also the scenario's.
//   - workers (required, 1..1000): the workers, named "w1".."wN".
//   - duration (optional, positive): how long the workload lasts; faults
//     stop there and a drain phase follows. Without it, the workload lasts
//     until its last event ends (a pause's end, a deploy's last restart).
//   - env (optional): the environment. latency is the one-way message
//     delay, a distribution as in package sim: {"kind":"fixed","min":D},
//     {"kind":"uniform","min":D,"max":D} or
//     {"kind":"pareto","min":D,"max":D,"alpha":A} (default: uniform 1ms to
//     5ms). loss is a probability in [0, 1]. gc_pause pauses each worker
//     at random, per_minute times a minute on average (Poisson), for
//     durations whose median is p50, whose 99th percentile is p99 and
//     which never exceed max. crash_per_hour crashes each worker at random
//     (Poisson); a crashed worker restarts restart_after later (default
//     10s). The random faults are drawn from each run's seed.
//
// Durations are Go duration strings ("250ms", "1m30s"). Every line after
// the header is an event, in non-decreasing "at" order:
//
//	{"type":"task","at":"1s","id":"t1","units":20,"unit_time":"250ms"}
//	{"type":"task","at":"2s","id":"t2","units":8,"unit_time_dist":{"kind":"uniform","min":"100ms","max":"400ms"}}
//	{"type":"crash","at":"5m","worker":"w2"}
//	{"type":"restart","at":"5m10s","worker":"w2"}
//	{"type":"pause","at":"7m","worker":"w1","duration":"800ms"}
//	{"type":"deploy","at":"10m","spacing":"20s","down":"5s"}
//	{"type":"pause","at":"12m","member":"@leader","duration":"6s"}
//	{"type":"crash","at":"14m","member":"grantor2"}
//
// The event types:
//
//   - task: a task with a unique id arrives at "at": units units of work
//     (1..1048576), each unit_time long, or with a unit time drawn from
//     unit_time_dist once per task and run. Every worker contends for it;
//     the holder works through it, checkpointing as the lease
//     configuration says.
//   - crash, restart: the worker crashes, or restarts after a crash. A
//     crash that the file does not follow with a restart of the same
//     worker gets one restart_after later.
//   - pause: the worker freezes for duration (a stop-the-world GC, a VM
//     migration); its clocks run on.
//   - crash, restart and pause may strike the lease store instead: member
//     (in place of worker) names one of its members as a replicated
//     store's are named, "grantor", "grantor2" … "grantor9", or, for a
//     pause only, "@leader": whichever member leads when the pause
//     begins (faults.RoleLeader). A crashed member restarts as a worker
//     does. Which members exist depends on the implementation under
//     test, so Plan.ForStore checks them once it is known: a member the
//     store lacks is an error naming its line and the member field; on a
//     store of one grantor "@leader" is that grantor (the one node that
//     grants), so one file runs against every implementation.
//   - deploy: a rolling restart: worker i (from 1) crashes at
//     at + (i−1)×spacing and restarts down later.
//
// Reading is strict: unknown fields, duplicate fields, wrong types, an
// unknown type, events out of time order, zero or negative values where a
// positive one is needed, unknown workers and other versions are errors
// that name the line and the field (a *LineError):
//
//	workload: line 12: task "t9": units: must be positive, got 0
//
// Blank lines are skipped. A [Writer] writes the format and checks what it
// writes by the same rules, so whatever it writes reads back equal.
//
// # Reading and replaying
//
// [NewReader] streams a workload: it holds one line at a time, so memory
// does not grow with the file. [Inspect] reads a workload once, checks
// what spans lines (duplicate ids, crashing a crashed worker, pausing a
// crashed one), and returns its [Plan]. [Scenario] (or [Plan.Scenario])
// turns it into a scenarios.Scenario that streams the tasks again on every
// run, applies the explicit faults, draws the environment's random faults
// from the seed (the same for every lease configuration: common random
// numbers), heals when the workload ends and drains until every task can
// finish.
//
// # Recording and generating
//
// [FromEvents] turns a lease observer log (the JSON lines of
// lease.NewJSONLinesObserver, for example from the real-time runtime) into
// a workload: tasks with their arrivals and sizes, observed crashes, and
// the latency and pause distributions; its heuristics are documented on
// it. [Generate] writes a synthetic workload from a few parameters
// ([GenParams]): Poisson arrivals or bursts, task sizes, unit time,
// workers, fault rates and rolling deploys.
//
// Nothing here reads a clock or uses global randomness: every random
// choice comes from a *rand.Rand handed in, with integer arithmetic on
// the simulated path.
package workload
