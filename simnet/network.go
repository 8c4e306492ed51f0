package simnet

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/leasesim/leasesim/internal/netcore"
	"github.com/leasesim/leasesim/sim"
)

// Network is one simulated network: hosts by name, the links between
// them and their connections. Make it with [New] inside the synctest
// bubble that uses it. Its methods are safe for concurrent use.
type Network struct {
	mu    sync.Mutex
	core  *netcore.Net
	hosts map[string]*Host // under mu
	t0    time.Time
	queue deliveries    // under mu
	timer *time.Timer   // fires at the earliest delivery, under mu
	due   time.Duration // when timer fires, under mu
}

// Option configures a [Network].
type Option func(*config)

type config struct {
	seed    uint64
	latency sim.Dist
	loss    float64
}

// Seed seeds every connection's latency and loss draws (0 by default):
// the same seed and the same code give the same delays.
func Seed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// Latency makes every segment take d on every link.
func Latency(d time.Duration) Option { return LatencyDist(sim.FixedDist(d)) }

// UniformLatency draws every segment's latency uniformly from [lo, hi],
// from its connection's own seeded stream (segments of one connection
// still arrive in order).
func UniformLatency(lo, hi time.Duration) Option { return LatencyDist(sim.UniformDist(lo, hi)) }

// LatencyDist draws every segment's latency from d (sim.FixedDist,
// sim.UniformDist, sim.ParetoDist). The default is sim.DefaultLink's, 1 to
// 5 ms.
func LatencyDist(d sim.Dist) Option { return func(c *config) { c.latency = d } }

// Loss loses each data segment with probability p. A stream cannot lose
// bytes silently, so a lost segment resets its connection (both ends read
// ECONNRESET after what they had received), as TCP gives up on a link
// that drops too much.
func Loss(p float64) Option { return func(c *config) { c.loss = p } }

// ErrBadOption is what New panics with, wrapped, for an unusable option.
var ErrBadOption = errors.New("simnet: bad option")

// New returns a network with no hosts. It panics, with [ErrBadOption]
// wrapped, on an invalid latency distribution or a loss outside [0, 1].
// Call it inside the bubble: its clock starts there, and its deliveries
// are bubble timers.
func New(opts ...Option) *Network {
	cfg := config{latency: sim.DefaultLink.Latency}
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.latency.Validate(); err != nil {
		panic(fmt.Errorf("%w: latency: %w", ErrBadOption, err))
	}
	if !(cfg.loss >= 0 && cfg.loss <= 1) {
		panic(fmt.Errorf("%w: loss %v is not a probability in [0, 1]", ErrBadOption, cfg.loss))
	}
	n := &Network{hosts: make(map[string]*Host), t0: time.Now()}
	n.core = netcore.New(netcore.Config{Mu: &n.mu, Hooks: (*hooks)(n), Seed: cfg.seed, Latency: cfg.latency,
		Loss: cfg.loss, Prefix: "simnet", Dead: errClosedNetwork})
	return n
}

// errClosedNetwork is never returned: a standalone host does not die. It
// is the model's error for a dead life.
var errClosedNetwork = errors.New("simnet: host is down")

// delivery is one queued delivery.
type delivery struct {
	at  time.Duration
	key string
	n   uint64
	do  func()
}

// deliveries is a heap ordered by (at, key, n): deliveries due at one
// instant act in an order that does not depend on which goroutine wrote
// first.
type deliveries []*delivery

func (q deliveries) Len() int { return len(q) }
func (q deliveries) Less(i, j int) bool {
	a, b := q[i], q[j]
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.key, b.key), cmp.Compare(a.n, b.n)) < 0
}
func (q deliveries) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *deliveries) Push(x any)   { *q = append(*q, x.(*delivery)) }
func (q *deliveries) Pop() any {
	old := *q
	d := old[len(old)-1]
	*q = old[:len(old)-1]
	return d
}

// hooks is the network as its model sees it: the bubble's clock, one
// bubble timer for the queue of deliveries, no trace, no reply
// failpoints.
type hooks Network

func (h *hooks) Now() time.Duration { return time.Since(h.t0) }

// Schedule queues a delivery and moves the timer up if it is the
// earliest. Callers hold mu.
func (h *hooks) Schedule(at time.Duration, key string, n uint64, do func()) {
	heap.Push(&h.queue, &delivery{at: at, key: key, n: n, do: do})
	(*Network)(h).arm()
}

func (h *hooks) Event(netcore.Event)                 {}
func (h *hooks) Note(netcore.Event)                  {}
func (h *hooks) Reply(netcore.Reply) netcore.Verdict { return netcore.Verdict{} }

// arm sets the timer for the earliest delivery. Callers hold mu.
func (n *Network) arm() {
	if len(n.queue) == 0 {
		return
	}
	at := n.queue[0].at
	if n.timer != nil && n.due <= at && n.due >= time.Since(n.t0) {
		return // already set for no later than at
	}
	n.due = at
	d := at - time.Since(n.t0)
	if n.timer == nil {
		n.timer = time.AfterFunc(d, n.fire)
		return
	}
	n.timer.Reset(d)
}

// fire delivers everything due, one at a time, in queue order.
func (n *Network) fire() {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Since(n.t0)
	for len(n.queue) > 0 && n.queue[0].at <= now {
		heap.Pop(&n.queue).(*delivery).do()
	}
	n.due = -1 // the timer has fired: arm again
	n.arm()
}
