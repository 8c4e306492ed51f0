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
//     The model is package simnet's (the same code, for tests that need
//     the network without the harness); the host delivers its segments
//     one at a time from its own action queue and traces them.
//   - Partitions (partition, one-way, isolate, bridge, heal) stall a
//     link: its segments wait, in order, until the heal and then travel
//     with a fresh latency. Nothing is lost and nothing is reset by a cut
//     (TCP whose retransmissions outlast the cut): only the code's own
//     deadlines notice. A connect request waits for the heal or its ctx.
//   - Stalled connections (stall-conns, a goroutine-host fault kind):
//     the connections open between the groups at that instant stall both
//     ways until the heal, without a reset, as over a middlebox that lost
//     the flows' state while the hosts stay up; new connections between
//     the same nodes flow. Only the code's deadlines notice, and only
//     code that closes the stalled connection and dials again recovers.
//   - Resets. A stream cannot lose bytes silently, so a link fault's loss
//     is applied as resets: each data segment crossing a lossy link is
//     lost with that probability (drawn from its connection's own seeded
//     stream), and a loss breaks the connection: the receiver reads
//     ECONNRESET after the bytes it already received, the sender once the
//     reset travels back, and the connection's later segments are
//     dropped ("lose deliver", "drop deliver" in the trace). Connect
//     requests are not lost. Duplication and reordering are absorbed, as
//     TCP absorbs them, and not applied (Result.NotApplied says both).
//   - A reply lost after the server acted: the failpoints [TriggerReplyLost]
//     (armed on a server: its next reply after a request is lost, the
//     connection reset, or held back for a pause's duration) and
//     [TriggerOnReply] (armed on a client, as the event host's on-reply: it
//     crashes, or pauses, as a reply reaches it). The host reaches them as
//     it delivers, so "the next reply" is the same in every run.
//   - Pause (a "pause" fault or a failpoint): the node's I/O is frozen at
//     its boundary both ways until it resumes, late: its reads, accepts and
//     dials block and nothing is delivered to it; what it writes (and a
//     close) is held in the send buffer and leaves at the resume, in order,
//     even if the code has since given up on it (a pause cannot take back
//     a write). Its code keeps running between I/O calls and its timers
//     fire: a pause of the I/O, not a stop of the world.
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
//   - [Node.Clock], the node's own [Clock] for code that takes an
//     injectable clock (k8s.io/utils/clock, clockwork: an adapter is a few
//     forwarding lines): the bubble's clock through the node's drift and
//     wall steps from the schedule, with sim's model (sim.DriftClock): a
//     monotonic clock at rate 1+drift that never jumps, and a wall clock
//     that adds every step. Now returns the wall reading without a
//     monotonic reading, so a step shows in Since, Until and comparisons;
//     timers, tickers, After and Sleep run on the monotonic clock (a node
//     5% fast sees its 1 s timer fire after 952 ms of true time) and are
//     re-timed when the drift changes. Drift and steps survive crashes;
//     the heal phase sets drift back to 0 (steps stay, as in the event
//     host).
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
// time.Now is the bubble's one clock, so clock drift and steps apply only
// to code that uses Node.Clock (Result.NotApplied says, for each clock
// fault, whether the node's code used it). Timers of Node.Clock are bubble
// timers, not host actions: like time.Sleep, they are not serialised with
// deliveries at the same instant. Inside a
// bubble time.Sleep and timers are always fake: sleeping on the real clock
// cannot happen. Real I/O (a real net.Dial, a file read that blocks) is not
// durable blocking: the bubble cannot settle and its clock stands still;
// a watchdog outside the bubble (Config.Watchdog, real time) reports it,
// naming the node and its stack. Neither is a goroutine waiting for a
// sync.Mutex: the watchdog names the waiter and, where one is in real I/O,
// the goroutine that may hold the mutex.
//
// # Stories
//
// gohost is a host, not a test API: a story about goroutine code is a
// scenarios.Scenario whose Goroutines field builds this package's Config
// for a seed, and scenarios.Execute, scenarios.Run, scenarios.ShrinkSeed,
// its premises and simrun treat it as they treat a story on the event
// host. Package examples/ttllock shows one.
//
// # Knobs
//
// An implementation may declare knobs ([Knob]: the settings its users
// tune, each a duration with a default and a range). Its worker test
// serves them (scenarios.TunableWorker): a list names them with every
// scenario ([ScenarioInfo].Knobs), and a [Job] carries values
// ([Job].Knobs, [KnobValues]) from which the worker builds the scenarios
// it runs. [ParseKnob] reads simrun's --knob NAME=V1,V2, [CheckKnobs]
// checks values against the declared knobs, and [KnobArgs] writes them
// back into a printed line. A bad name or value is [ErrBadKnob] (an
// [ErrKindBadKnob] record from a worker); simrun tune sweeps them.
//
// # Limits of this first slice
//
// synctest.Test needs a *testing.T, so Run works from go test only: simrun
// cannot run it in-process: it runs a zoo module's test binary as worker
// processes (scenarios.Worker). A goroutine that outlives the run keeps the bubble from
// ending: synctest panics ("deadlock: main bubble goroutine has exited but
// blocked goroutines remain"); Run recovers that panic, reports it with
// the leaks, and the goroutines stay parked in the abandoned bubble.
// Goroutines the runtime starts for the code (time.AfterFunc callbacks)
// may not carry the node's label, so a leak there can go unnamed. The
// math/rand (v1) global source is seeded only with Config.SeedMathRand,
// and only in a binary with GODEBUG randseednop=0. Node.Clock's
// readings carry no monotonic reading (Go's cannot be forged outside the
// runtime): code that compares two readings across a step sees the step,
// where the same code on a real clock would not. Links cannot lose,
// duplicate or reorder bytes silently: loss is a reset, duplication and
// reordering are not applied.
package gohost
