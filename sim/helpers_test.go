package sim_test

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// nodeName is the name of the i-th node of a test world.
func nodeName(i int) string { return "n" + strconv.Itoa(i) }

// ping is the payload of the demo world's messages.
type ping struct {
	from, seq int
	reply     bool
}

// demoNodes and demoDuration size the demo world: small enough to run
// hundreds of seeds under the race detector, big enough that every fault
// kind acts on live traffic.
const (
	demoNodes    = 5
	demoDuration = 5 * time.Second
)

// newDemoWorld builds a small world in which demoNodes nodes ping random
// peers on jittered timers, answer pings, keep a synced counter in storage
// and pass a failpoint before every write. Faults of every kind the kernel
// knows (partitions, pauses, crashes and restarts, drift changes, wall
// steps, link loss, duplication, reordering and latency, armed failpoints)
// are drawn from a PRNG derived from the world's seed, as package faults
// does, and scheduled with World.At.
func newDemoWorld(seed uint64, trace sim.TraceConfig) *sim.World {
	w := sim.New(sim.Config{Seed: seed, Trace: trace})
	for i := range demoNodes {
		w.AddNode(nodeName(i), bootPinger)
	}
	scheduleFaults(w, w.Rand("test/faults"), 60)
	return w
}

// bootPinger is the demo node's boot function: its volatile state is the
// closure; its durable state is the "count" key.
func bootPinger(n *sim.Node) {
	r := n.Rand()
	seq := 0
	if v, ok := n.Storage().Get("count"); ok {
		seq = int(v[0]) // resume the count after a restart
	}
	n.Handle(func(from sim.NodeID, payload any) {
		p := payload.(*ping)
		if !p.reply {
			n.Send(from, &ping{from: int(n.ID()), seq: p.seq, reply: true})
		}
	})
	var tick func()
	tick = func() {
		seq++
		// Everything after the check belongs to the failpoint's continuation:
		// an armed pause delays it, an armed crash cancels it.
		n.Failpoint("before-write", func() {
			n.Storage().Put("count", []byte{byte(seq)})
			if seq%3 == 0 {
				if err := n.Storage().Sync(); err != nil {
					panic(err)
				}
			}
			n.Send(sim.NodeID(r.IntN(demoNodes)), &ping{from: int(n.ID()), seq: seq})
			n.SetTimer(20*time.Millisecond+time.Duration(r.Int64N(int64(30*time.Millisecond))), tick)
		})
	}
	n.SetTimer(time.Duration(r.Int64N(int64(10*time.Millisecond))), tick)
}

// scheduleFaults draws count faults at random times in the first 90% of
// demoDuration, then heals everything, so the run ends fault-free.
func scheduleFaults(w *sim.World, r *rand.Rand, count int) {
	nodes := w.Nodes()
	pick := func() *sim.Node { return nodes[r.IntN(len(nodes))] }
	groups := func(k int) [][]sim.NodeID {
		g := make([][]sim.NodeID, k)
		for _, n := range nodes {
			i := r.IntN(k)
			g[i] = append(g[i], n.ID())
		}
		return g
	}
	net := w.Network()
	for range count {
		at := sim.Time(r.Int64N(int64(demoDuration) * 9 / 10))
		d := time.Duration(r.Int64N(int64(300 * time.Millisecond)))
		var act func()
		kind := r.IntN(12)
		switch kind {
		case 0:
			g := groups(2)
			act = func() { net.Partition(g[0], g[1]) }
		case 1:
			a, b := pick(), pick()
			act = func() { net.PartitionOneWay(a.ID(), b.ID()) }
		case 2:
			a := pick()
			act = func() { net.Isolate(a.ID()) }
		case 3:
			g := groups(3)
			act = func() { net.Split(g...) }
		case 4:
			br := pick()
			var a, b []sim.NodeID
			for _, n := range nodes {
				if n != br {
					if r.IntN(2) == 0 {
						a = append(a, n.ID())
					} else {
						b = append(b, n.ID())
					}
				}
			}
			act = func() { net.Bridge(a, b, br.ID()) }
		case 5:
			act = net.Heal
		case 6:
			n := pick()
			act = func() { n.Pause(d) }
		case 7:
			n := pick()
			act = func() {
				n.Crash()
				w.After(d, n.Restart)
			}
		case 8:
			n, drift := pick(), (r.Float64()*2-1)*1e-3
			act = func() { n.SetDrift(drift) }
		case 9:
			n, step := pick(), time.Duration(r.Int64N(int64(2*time.Second)))-time.Second
			act = func() { n.StepWall(step) }
		case 10:
			a, b := pick(), pick()
			cfg := sim.LinkConfig{
				Latency:      sim.ParetoDist(time.Millisecond, 200*time.Millisecond, 1+r.Float64()),
				Loss:         r.Float64() * 0.3,
				Duplicate:    r.Float64() * 0.3,
				Reorder:      r.Float64() * 0.3,
				ReorderDelay: sim.Duration(d),
			}
			act = func() {
				if err := net.SetLink(a.ID(), b.ID(), cfg); err != nil {
					panic(err)
				}
			}
		case 11:
			n, action := pick(), sim.FailAction(1+r.IntN(2))
			act = func() { n.ArmFailpoint("before-write", action, d) }
		}
		if kind < 5 && r.IntN(2) == 0 {
			cut := act // most partitions heal on their own, some last to the end
			act = func() {
				cut()
				w.After(3*d, net.Heal)
			}
		}
		w.At(at, act)
	}
	w.At(sim.Time(demoDuration)*9/10, func() {
		net.Heal()
		net.ResetLinks()
		for _, n := range nodes {
			n.DisarmFailpoints()
			n.Restart()
			n.Resume()
		}
	})
}
