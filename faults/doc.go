// Package faults is leasesim's fault plan, kept as data.
//
// A [Schedule] is a list of timed fault [Event]s followed by a heal phase:
// partitions (symmetric, one-way, isolate, bridge) and heal, link latency,
// loss, duplication and reordering and their reset, clock drift and wall
// steps, pauses, crashes and restarts, failpoints armed to pause or
// crash a node at a named point of its code, and stalls of the
// connections open between groups (stall-conns, which only the goroutine
// host applies: [Schedule.Apply] refuses it, and the nemesis never draws
// it). [Kinds] lists them. A schedule
// round-trips through JSON exactly:
//
//	{"version":1,"heal_at":"40s","events":[
//	  {"at":"2s","kind":"partition","groups":[["n1"],["n2","n3"]]},
//	  {"at":"5s","kind":"pause","node":"n2","duration":"1.5s"},
//	  {"at":"9s","kind":"heal"}]}
//
// [Parse] reads one strictly and reports malformed input with its line and
// column; [Schedule.Validate] rejects a schedule that makes no sense for a
// set of nodes, naming the event and the field; [Schedule.Apply] schedules
// it on a [sim.World] through the kernel's public methods only. At HealAt
// the heal phase ([HealPhase]) ends every fault, so a run is a safety phase
// followed by a liveness phase.
//
// A [Nemesis] draws schedules from a seed: swarm testing (each draw enables
// a random subset of the fault kinds and scales the intensity) with
// edge-biased durations (extra mass just below and just above the
// boundaries the caller names, such as the TTL). Because a schedule is plain
// data, a failing one can be replayed from a file and cut down by a
// shrinker.
//
// An event's node may be a role instead: [RoleLeader] ("@leader") is
// whichever node leads a replicated lease store when the event acts. The
// host resolves it ([Roles], [Schedule.ApplyWith]) and lists it among the
// nodes it validates against; an event whose role no node holds does not
// act. The kernel knows no roles.
//
// [Windows] reads the kernel's fault log back as intervals, so that checkers
// and reports can say which faults were in force at a given time.
//
// Nothing here reads a clock, starts a goroutine or uses global randomness:
// every random choice comes from the *rand.Rand handed to [Nemesis.Draw].
package faults
