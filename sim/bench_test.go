package sim_test

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasesim/leasesim/internal/benchtest"
	"github.com/leasesim/leasesim/sim"
)

// The heartbeat storm is the kernel's hot path in its purest form: stormNodes
// nodes, each re-arming one timer of stormInterval, jittered by up to
// ±stormJitter drawn from the node's own PRNG. The three storm benchmarks run
// the same storm on the kernel, on a bare specialised heap (the physical
// limit) and under testing/synctest (what a Go user would pick instead). One
// benchmark op is one timer firing, so ns/op is comparable between them;
// each also reports the unit explicitly (ns/event, ns/wakeup).
// internal/benchratio prints the ratios.
const (
	stormNodes    = 1000
	stormInterval = 100 * time.Millisecond
	stormJitter   = 10 * time.Millisecond
)

// stormDelay draws the next heartbeat delay: stormInterval ± stormJitter.
func stormDelay(r *rand.Rand) time.Duration {
	return stormInterval - stormJitter + time.Duration(r.Int64N(int64(2*stormJitter)+1))
}

// stormEventsPerSecond is the storm's mean event rate in simulated time.
const stormEventsPerSecond = stormNodes * int64(time.Second/stormInterval)

// unbounded lifts the limits a benchmark could reach: b.N decides the run's
// length, and a limit hit would end it early (the benchmarks assert it does
// not).
var unbounded = sim.Limits{Duration: 1 << 62, Events: 1 << 62}

func newHeartbeatWorld() *sim.World {
	w := sim.New(sim.Config{Seed: 1, Limits: unbounded})
	for i := range stormNodes {
		w.AddNode(nodeName(i), func(n *sim.Node) {
			r := n.Rand()
			var beat func()
			beat = func() { n.SetTimer(stormDelay(r), beat) }
			n.SetTimer(stormDelay(r), beat)
		})
	}
	return w
}

// BenchmarkKernelHeartbeatStorm measures the kernel's cost per timer event.
// The world is built and warmed up (every node booted and its slabs grown)
// before the timer starts, so the figures are for the steady state.
func BenchmarkKernelHeartbeatStorm(b *testing.B) {
	w := newHeartbeatWorld()
	requireOK(b, w.RunFor(time.Second))
	// b.N events take b.N/stormEventsPerSecond of simulated time.
	runMeasured(b, w, time.Duration(b.N)*time.Second/time.Duration(stormEventsPerSecond))
}

// runMeasured runs w for d of simulated time with the benchmark timer on,
// and reports ns/event and allocs/event (counted with runtime.MemStats, so
// that they are per event and not per op). It returns the events run.
func runMeasured(b *testing.B, w *sim.World, d time.Duration) float64 {
	before := w.Events()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs := ms.Mallocs
	b.ReportAllocs()
	b.ResetTimer()
	res := w.RunFor(d)
	b.StopTimer()
	requireOK(b, res)
	runtime.ReadMemStats(&ms)
	events := float64(w.Events() - before)
	if events > 0 { // a tiny b.N may run no event at all
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
		b.ReportMetric(float64(ms.Mallocs-mallocs)/events, "allocs/event")
	}
	return events
}

// bareEntry and bareHeap are the smallest structure that can run the storm:
// a binary min-heap of (time, sequence, node), specialised to the type, with
// ties broken by sequence as in the kernel and the same branch-free
// comparison, so that the ratio to it measures the kernel's overhead and not
// a difference in heap technique.
type bareEntry struct {
	at   int64
	seq  uint64
	node int32
}

type bareHeap []bareEntry

// bareLess returns 1 if a comes before b in (at, seq) order, else 0.
func bareLess(a, b *bareEntry) int {
	_, borrow := bits.Sub64(a.seq, b.seq, 0)
	_, borrow = bits.Sub64(uint64(a.at), uint64(b.at), borrow)
	return int(borrow)
}

func (h *bareHeap) push(e bareEntry) {
	s := append(*h, e)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if bareLess(&e, &s[p]) == 0 {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = e
	*h = s
}

func (h *bareHeap) pop() bareEntry {
	s := *h
	top := s[0]
	n := len(s) - 1
	e := s[n]
	s = s[:n]
	i := 0
	for {
		c := 2*i + 1
		if c+1 < n {
			c += bareLess(&s[c+1], &s[c])
		} else if c >= n {
			break
		}
		if bareLess(&s[c], &e) == 0 {
			break
		}
		s[i] = s[c]
		i = c
	}
	if n > 0 {
		s[i] = e
	}
	*h = s
	return top
}

// BenchmarkBareHeapHeartbeatStorm runs the storm on bareHeap with the same
// per-node PRNG (math/rand/v2 PCG) and the same delays: pop the earliest
// entry, draw its node's next delay, push it back. No kernel, no callbacks,
// no trace. It is the physical limit the kernel is measured against.
func BenchmarkBareHeapHeartbeatStorm(b *testing.B) {
	rands := make([]*rand.Rand, stormNodes)
	h := make(bareHeap, 0, stormNodes)
	var seq uint64
	for i := range rands {
		rands[i] = rand.New(rand.NewPCG(uint64(i), 1))
		seq++
		h.push(bareEntry{at: int64(stormDelay(rands[i])), seq: seq, node: int32(i)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	var now int64
	for range b.N {
		e := h.pop()
		if e.at < now {
			b.Fatal("bare heap went back in time")
		}
		now = e.at
		seq++
		h.push(bareEntry{at: now + int64(stormDelay(rands[e.node])), seq: seq, node: e.node})
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
}

// BenchmarkSynctestHeartbeatStorm runs the storm as stormNodes goroutines,
// each sleeping jittered intervals in a testing/synctest bubble.
//
// synctest.Test needs a *testing.T and Go 1.26 has no variant for
// benchmarks (the experimental synctest.Run is gone). So the benchmark runs
// one test through benchtest.Run and opens the bubble in it. Timing stays
// outside the bubble, because inside it time.Now (and so the benchmark
// timer) is fake: the timer covers creating the bubble and its goroutines,
// which is amortised over b.N wakeups, as the kernel benchmark's figures
// cover its own event loop.
func BenchmarkSynctestHeartbeatStorm(b *testing.B) {
	perNode := (b.N + stormNodes - 1) / stormNodes
	wakeups := perNode * stormNodes
	storm := func(t *testing.T) {
		synctest.Test(t, func(*testing.T) {
			var wg sync.WaitGroup
			for i := range stormNodes {
				r := rand.New(rand.NewPCG(uint64(i), 1))
				wg.Go(func() {
					for range perNode {
						time.Sleep(stormDelay(r))
					}
				})
			}
			wg.Wait()
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	ok := benchtest.Run("SynctestHeartbeatStorm", storm)
	b.StopTimer()
	if !ok {
		b.Fatal("the synctest storm failed")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(wakeups), "ns/wakeup")
}

// Message storm: messageNodes nodes each send one message every
// messageInterval (jittered) to a random peer; a receiver forwards it to a
// random peer until it has made messageHops hops. The network loses 1%,
// duplicates 1%, reorders 1% and draws latency from a Pareto distribution.
const (
	messageNodes    = 100
	messageInterval = 10 * time.Millisecond
	messageHops     = 4
)

// messageLink is the lossy, delayed, duplicating link of the message storm.
var messageLink = sim.LinkConfig{
	Latency:      sim.ParetoDist(500*time.Microsecond, 200*time.Millisecond, 1.5),
	Loss:         0.01,
	Duplicate:    0.01,
	Reorder:      0.01,
	ReorderDelay: sim.Duration(5 * time.Millisecond),
}

func newMessageWorld() *sim.World {
	link := messageLink
	w := sim.New(sim.Config{Seed: 1, Limits: unbounded, Link: &link})
	for i := range messageNodes {
		w.AddNode(nodeName(i), func(n *sim.Node) {
			r := n.Rand()
			peer := func() sim.NodeID { return sim.NodeID(r.IntN(messageNodes)) }
			// Payloads are hop counts: small integers box without allocating.
			n.Handle(func(_ sim.NodeID, payload any) {
				if hops := payload.(uint8); hops < messageHops {
					n.Send(peer(), hops+1)
				}
			})
			var tick func()
			tick = func() {
				n.Send(peer(), uint8(1))
				n.SetTimer(messageInterval/2+time.Duration(r.Int64N(int64(messageInterval))), tick)
			}
			n.SetTimer(0, tick)
		})
	}
	return w
}

// BenchmarkKernelMessageStorm measures the kernel's throughput with the
// network on the hot path: sends, loss, duplication, Pareto latency and
// deliveries. One op is one event (a delivery, a drop at delivery, or a
// timer).
func BenchmarkKernelMessageStorm(b *testing.B) {
	w := newMessageWorld()
	requireOK(b, w.RunFor(time.Second))
	rate := float64(w.Events()) // events per simulated second, measured in the warm-up
	events := runMeasured(b, w, time.Duration(float64(b.N)/rate*float64(time.Second)))
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
}

func requireOK(b *testing.B, res sim.Result) {
	b.Helper()
	if res.Err != nil {
		b.Fatalf("run stopped early: %v", res.Err)
	}
}
