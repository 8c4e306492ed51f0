// Package gohost is the goroutine host: it runs ordinary Go code (node
// functions with goroutines, time.Sleep, context deadlines and net.Conn)
// under leasesim's faults, inside a testing/synctest bubble the host owns.
//
// A [Config] names the nodes, each with a func(ctx, *Node) error, and a
// faults.Schedule. [Run] (from a go test) runs one seed and returns a
// [Result]: the trace and its hash, the determinism level, the history
// the nodes recorded for the checkers, and what went wrong outside the
// protocol (leaked goroutines, node errors, stalls).
//
// # What a node has
//
//   - A simulated TCP network: [Node.Listen] and [Node.Dial] (the
//     signature of grpc.WithContextDialer and http.Transport.DialContext)
//     on "node:port" addresses. Every Write is a segment delivered in
//     order after a latency drawn per connection direction from the run's
//     seed (Config.Latency, sim.Dist). Deadlines behave as net.Conn's.
//   - Partitions (partition, one-way, isolate, bridge, heal) stall a
//     link: its segments wait, in order, until the heal and then travel
//     with a fresh latency. Nothing is lost and nothing is reset by a cut
//     (TCP whose retransmissions outlast the cut): only the code's own
//     deadlines notice. A connect request waits for the heal or its ctx.
//   - Pause (a "pause" fault or a failpoint): the node's I/O is frozen at
//     its boundary both ways — its reads, writes, accepts and dials block,
//     and nothing is delivered to it — until it resumes, late. Its code
//     keeps running between I/O calls and its timers fire: a pause of the
//     I/O, not a stop of the world.
//   - Crash and restart: the life's context is cancelled, its connections
//     fail (ErrCrashed locally; peers read a reset, in order behind the
//     data already sent), its listeners close. Once the bubble settles,
//     any goroutine of the crashed life still running is a [Leak] naming
//     the node (goroutines are told apart by a pprof label they inherit).
//     A restart starts the function again, as a new incarnation, with the
//     node's [Storage], which survives crashes.
//   - [Node.Failpoint]: blocks there (pause) or crashes the node when the
//     schedule arms it; a no-op otherwise.
//   - [Node.Rand], seeded from the run's seed, the node and the
//     incarnation; [Node.Now], the bubble's clock (time.Now too).
//   - A history recorder: [Node.Believe], [Node.EndBelief],
//     [Node.Release] for holders and [Node.RecordWrite] for a fenced store
//     produce the history.BeliefInterval and fenced-register
//     history.Operation values P1 and P2 read; checker.Check judges
//     Result.History like any other history.
//
// # Determinism
//
// The host owns the bubble's main goroutine. It keeps one queue of
// actions (faults, pause ends, deliveries), ordered by (time, class, name,
// sequence) so that the order does not depend on which goroutine queued
// first, and acts one at a time, calling synctest.Wait between actions so
// that the nodes react to each before the next. What nodes record is put
// in the trace once the bubble settles, sorted. The trace (deliveries with
// a digest of their bytes, faults, lifecycle, beliefs, writes) is hashed
// with sim.Digest. With Config.Verify the seed runs twice and the result
// is "verified" or "diverged at event N", with both runs' events at N; a
// divergence is reported (Result.Err), never hidden. The lock service of
// the tests gives the same hash at GOMAXPROCS 1, 2 and 4 and with -race.
//
// What it cannot promise: goroutines woken at the same instant run in any
// order, so code whose output depends on that race can diverge; the
// process-global crypto/rand is seeded only with Config.SeedCryptoRand
// (testing/cryptotest, so not in parallel tests), and a node that reads
// the real clock through a syscall cannot be stopped (Verify shows both as
// a divergence at the first event they shape);
// time.Now is the bubble's one clock, so clock drift and steps are not
// applied (Result.NotApplied says so); links carry reliable streams, so
// loss, duplication and reordering are not applied either. Inside a
// bubble time.Sleep and timers are always fake: sleeping on the real clock
// cannot happen. Real I/O (a real net.Dial, a file read that blocks) is not
// durable blocking: the bubble cannot settle and its clock stands still;
// a watchdog outside the bubble (Config.Watchdog, real time) reports it,
// naming the node and its stack.
//
// # Limits of this first slice
//
// synctest.Test needs a *testing.T, so Run works from go test only: simrun
// cannot run it in-process yet (it would need worker processes that run a
// test binary). A goroutine that outlives the run keeps the bubble from
// ending: synctest panics ("deadlock: main bubble goroutine has exited but
// blocked goroutines remain"); Run recovers that panic, reports it with
// the leaks, and the goroutines stay parked in the abandoned bubble.
// Goroutines the runtime starts for the code (time.AfterFunc callbacks)
// may not carry the node's label, so a leak there can go unnamed. The
// math/rand (v1) global source is not seeded by the host.
package gohost
