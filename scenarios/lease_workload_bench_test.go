package scenarios_test

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/internal/benchtest"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/leasetest"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// The lease workload both benchmarks of BenchmarkLeaseWorkload run: three
// holders contend for one lock for ten simulated minutes; the one holding
// it writes to the fenced store every half second, releases after twenty
// seconds and contends again two seconds later. The network delivers every
// message after a fixed 2 ms; nothing fails. It is the swarm scenario's lock
// load without its workers and faults.
var workload = struct {
	holders  int
	load     scenarios.LockLoad
	cfg      lease.Config
	latency  time.Duration
	duration time.Duration
}{
	holders:  3,
	load:     scenarios.LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 500 * time.Millisecond, Hold: 20 * time.Second, Idle: 2 * time.Second},
	cfg:      lease.Config{TTL: 5 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond},
	latency:  2 * time.Millisecond,
	duration: 10 * time.Minute,
}

// BenchmarkLeaseWorkload runs the same lease workload (the real lease core:
// grantor, fenced store and holders) on leasesim, unchecked, and as plain
// goroutines and channels under testing/synctest, which is what a Go user
// would write instead: one goroutine per node running its callbacks, timers
// from time.AfterFunc, messages delivered by time.AfterFunc after the
// latency. One op is one run; both report the writes the store accepted
// per run (writes/run), so that the two can be seen to do the same work.
// internal/benchratio prints synctest / leasesim.
func BenchmarkLeaseWorkload(b *testing.B) {
	b.Run("leasesim", func(b *testing.B) {
		link := sim.LinkConfig{Latency: sim.FixedDist(workload.latency)}
		sc := scenarios.Scenario{Name: "lease-workload", Config: workload.cfg, Contenders: workload.holders,
			Lock: workload.load, Link: &link, Duration: workload.duration}
		var writes int
		seed := uint64(0)
		for b.Loop() {
			seed++
			out, err := scenarios.Execute(sc, seed, scenarios.Options{Check: checker.Options{Skip: true}})
			if err != nil {
				b.Fatal(err)
			}
			for _, op := range out.History.AllOps() {
				if op.Input.Kind == lease.KindWrite.String() && op.Output.OK {
					writes++
				}
			}
		}
		b.ReportMetric(float64(writes)/float64(b.N), "writes/run")
	})
	b.Run("synctest", func(b *testing.B) {
		var writes atomic.Int64
		for b.Loop() {
			if !benchtest.Run("LeaseWorkload", func(t *testing.T) { synctest.Test(t, func(t *testing.T) { writes.Add(synctestWorkload(t)) }) }) {
				b.Fatal("the synctest workload failed")
			}
		}
		b.ReportMetric(float64(writes.Load())/float64(b.N), "writes/run")
	})
}

// synctestWorkload runs the workload in the current bubble and returns the
// writes the store accepted.
func synctestWorkload(t *testing.T) int64 {
	done := make(chan struct{})
	var wg sync.WaitGroup
	nodes := map[lease.Addr]*stNode{}
	newNode := func(addr lease.Addr, seed uint64) (*stNode, lease.Env) {
		n := &stNode{addr: addr, loop: make(chan func(), 64), done: done, start: time.Now(), nodes: nodes}
		nodes[addr] = n
		return n, lease.Env{Self: addr, Clock: n, Net: n, Store: leasetest.NewStore(), Rand: rand.New(rand.NewPCG(seed, 1))}
	}
	gn, genv := newNode("grantor", 1)
	grantor, err := lease.NewGrantor(genv, workload.cfg)
	if err != nil {
		t.Fatal(err)
	}
	gn.node = grantor.(lease.Node)
	sn, senv := newNode("store", 2)
	store, err := lease.NewResource(senv)
	if err != nil {
		t.Fatal(err)
	}
	sn.node = store.(lease.Node)
	var writes atomic.Int64
	for i := range workload.holders {
		hn, henv := newNode(lease.Addr("h"+strconv.Itoa(i+1)), uint64(3+i))
		h, err := lease.NewHolder(henv, workload.cfg, "grantor", "store")
		if err != nil {
			t.Fatal(err)
		}
		hn.node = h.(lease.Node)
		c := &stContender{n: hn, h: h, writes: &writes}
		hn.AfterFunc(time.Duration(i)*workload.load.Stagger, c.contend)
	}
	for _, n := range nodes { // order does not matter: each starts its own loop
		wg.Go(n.run)
	}
	time.Sleep(workload.duration)
	close(done)
	wg.Wait()
	return writes.Load()
}

// stNode is one node: a goroutine that runs its callbacks one at a time.
// It is the node's lease.Clock and lease.Transport.
type stNode struct {
	addr  lease.Addr
	node  lease.Node
	loop  chan func()
	done  <-chan struct{}
	start time.Time
	nodes map[lease.Addr]*stNode // written before the loops start, then only read
}

func (n *stNode) run() {
	for {
		select {
		case f := <-n.loop:
			f()
		case <-n.done:
			return
		}
	}
}

// post queues f on the node's loop, unless the run is over.
func (n *stNode) post(f func()) {
	select {
	case n.loop <- f:
	case <-n.done:
	}
}

func (n *stNode) Now() time.Duration { return time.Since(n.start) }

// AfterFunc runs f on the node's loop after d. Stop is exact, as the core
// expects: the flags are touched only on the loop.
func (n *stNode) AfterFunc(d time.Duration, f func()) lease.Timer {
	t := &stTimer{}
	t.t = time.AfterFunc(d, func() {
		n.post(func() {
			if !t.stopped {
				t.fired = true
				f()
			}
		})
	})
	return t
}

// Send delivers m to its node's loop after the latency.
func (n *stNode) Send(to lease.Addr, m lease.Message) {
	dst := n.nodes[to]
	time.AfterFunc(workload.latency, func() { dst.post(func() { dst.node.Deliver(n.addr, m) }) })
}

type stTimer struct {
	t              *time.Timer
	stopped, fired bool
}

func (t *stTimer) Stop() bool {
	if t.stopped || t.fired {
		return false
	}
	t.stopped = true
	t.t.Stop()
	return true
}

// stContender is scenarios' contender (lock.go) on an stNode.
type stContender struct {
	n      *stNode
	h      lease.Holder
	token  uint64
	seq    int
	writes *atomic.Int64
}

func (c *stContender) contend() {
	c.h.Acquire("lock", lease.AcquireOptions{OnGrant: c.granted, OnLost: c.lost})
}

func (c *stContender) granted(g lease.Grant) {
	if c.token == g.Token {
		return
	}
	c.token = g.Token
	c.writeLoop(g.Token)
	c.n.AfterFunc(workload.load.Hold, func() { c.release(g.Token) })
}

func (c *stContender) lost(_ string, token uint64, _ error) {
	if token == c.token {
		c.token = 0
	}
}

func (c *stContender) writeLoop(token uint64) {
	if c.token != token {
		return
	}
	if g, ok := c.h.Valid("lock"); ok && g.Token == token {
		c.seq++
		value := []byte(string(c.n.addr) + "/" + strconv.FormatUint(token, 10) + "/" + strconv.Itoa(c.seq))
		c.h.Write("lock", "x", value, func(err error) {
			switch {
			case err == nil:
				c.writes.Add(1)
			case errors.Is(err, lease.ErrFenced) && c.token == token:
				c.token = 0
			}
		})
	}
	c.n.AfterFunc(workload.load.WriteEvery, func() { c.writeLoop(token) })
}

func (c *stContender) release(token uint64) {
	if c.token != token {
		return
	}
	c.token = 0
	c.h.Release("lock")
	c.n.AfterFunc(workload.load.Idle, c.contend)
}
