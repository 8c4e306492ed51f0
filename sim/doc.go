// Package sim is leasesim's deterministic discrete-event kernel.
//
// A [World] holds true simulated time, one event queue ordered by (time,
// insertion sequence), a root seed from which every component derives its own
// PRNG, a set of [Node]s with their own clocks, a faulty [Network], and a
// hashed [Trace] of every event. Everything runs on the caller's goroutine:
// the kernel never reads the wall clock, never sleeps, never starts a
// goroutine and never iterates a map, so the same seed gives the same trace
// hash on any machine and any GOMAXPROCS.
//
// Each node has two clocks. Its monotonic clock runs at rate 1+drift relative
// to true time and never jumps; its wall clock is the monotonic clock plus an
// offset that can be stepped either way. Timers are set in the node's local
// monotonic time. A node can be paused (its clocks keep running, but it
// processes nothing until it resumes), crashed (volatile state is lost; only
// what was synced to its [Storage] survives) and restarted.
//
// Node code can mark named failpoints with [Node.Failpoint]. A fault armed on
// a failpoint pauses or crashes the node the next time it reaches that point,
// which is how a pause lands exactly between "check the lease" and "write".
//
// The kernel knows nothing about leases. Faults are applied through the
// methods of [Node] and [Network]; package faults turns schedules into such
// calls.
package sim
