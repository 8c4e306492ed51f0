package netcore

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// Hooks is what a user of the model plugs in: its clock, its queue of
// deliveries, its trace and its reply failpoints. Every method is called
// with mu held.
type Hooks interface {
	// Now is the time since the network's start.
	Now() time.Duration
	// Schedule runs do at at. Deliveries due at one instant run in (key,
	// n) order, one at a time, each with mu held.
	Schedule(at time.Duration, key string, n uint64, do func())
	// Event records what the network did as it delivered (on the
	// delivering goroutine).
	Event(Event)
	// Note records what a host's code did (a Listen), on its goroutine.
	Note(Event)
	// Reply is asked before a reply (a data segment from the accepting end
	// once a request reached it) is delivered.
	Reply(Reply) Verdict
}

// Event is one thing the network did, for a trace.
type Event struct {
	Kind, Node, Peer, Detail string
	Digest                   uint64
}

// Reply describes a reply about to be delivered, for [Hooks.Reply].
type Reply struct {
	From, To         *Host
	FromLife, ToLife *Life // the lives of the sending and receiving endpoints
	ToClosed         bool  // the receiving endpoint is closed
}

// Verdict is what [Hooks.Reply] decides for a reply.
type Verdict struct {
	// Do is Deliver, Stall or Lose.
	Do int
	// HoldUntil, with Stall, holds the reply's pipe until then (the hook
	// schedules a [Net.Release] for it).
	HoldUntil time.Duration
	// Why, with Lose, is the trace's reason.
	Why string
}

// What a Verdict does with a reply.
const (
	Deliver = iota // deliver it
	Stall          // hold it on its pipe (paused receiver, held reply)
	Lose           // lose it and reset its connection
)

// Config builds a network.
type Config struct {
	// Mu is the network's mutex; a host shares its own.
	Mu *sync.Mutex
	// Hooks is the host's side.
	Hooks Hooks
	// Seed seeds every pipe's latency and loss draws.
	Seed uint64
	// Latency is every link's latency unless set per link;
	// sim.DefaultLink's when zero.
	Latency sim.Dist
	// Loss is every link's loss probability unless set per link.
	Loss float64
	// Prefix begins the network's own error texts ("simnet", "gohost").
	Prefix string
	// Dead is the error a dead life's calls return.
	Dead error
}

// Link is a direction between two hosts.
type Link struct{ From, To string }

// Net is one simulated network.
type Net struct {
	mu        *sync.Mutex
	hooks     Hooks
	seed      uint64
	prefix    string
	deadErr   error
	hosts     []*Host
	byName    map[string]*Host
	cut       map[Link]bool
	latency   map[Link]sim.Dist
	loss      map[Link]float64
	defLat    sim.Dist
	defLoss   float64
	pipes     []*pipe // pipes holding stalled segments
	frozen    []*pipe // pipes of stalled connections (Life.Freeze), until Thaw
	listeners map[string]*listener
}

// New builds a network with no hosts.
func New(cfg Config) *Net {
	n := &Net{mu: cfg.Mu, hooks: cfg.Hooks, seed: cfg.Seed, prefix: cfg.Prefix, deadErr: cfg.Dead,
		byName: make(map[string]*Host), cut: make(map[Link]bool), latency: make(map[Link]sim.Dist),
		loss: make(map[Link]float64), listeners: make(map[string]*listener), defLat: cfg.Latency, defLoss: cfg.Loss}
	if n.defLat.Kind == "" {
		n.defLat = sim.DefaultLink.Latency
	}
	return n
}

// Mix derives a seed for a component from a seed.
func Mix(seed uint64, component string, k uint64) uint64 {
	return sim.Digest(seed, sim.DigestString(component), k)
}

// AddHost adds a host named name, or returns the one there is. Callers
// hold mu.
func (n *Net) AddHost(name string) *Host {
	if h := n.byName[name]; h != nil {
		return h
	}
	h := &Host{net: n, name: name}
	n.hosts = append(n.hosts, h)
	n.byName[name] = h
	return h
}

// Cut cuts the link from one host to another: its segments stall.
// Callers hold mu.
func (n *Net) Cut(from, to string) { n.cut[Link{from, to}] = true }

// Uncut restores one cut link and sends on what it held. Callers hold mu.
func (n *Net) Uncut(from, to string) {
	delete(n.cut, Link{from, to})
	n.Release()
}

// HealAll restores every cut link and sends on what the cuts held back.
// Callers hold mu.
func (n *Net) HealAll() {
	clear(n.cut)
	n.Release()
}

// Thaw lets every connection Life.Freeze stalled flow again and sends on
// what it held. Callers hold mu.
func (n *Net) Thaw() {
	for _, p := range n.frozen {
		p.frozen = false
	}
	clear(n.frozen)
	n.frozen = n.frozen[:0]
	n.Release()
}

// SetLink sets one link's latency and loss. Callers hold mu.
func (n *Net) SetLink(from, to string, latency sim.Dist, loss float64) {
	n.latency[Link{from, to}] = latency
	n.loss[Link{from, to}] = loss
}

// ResetLinks sets every link back to the network's latency and loss.
// Callers hold mu.
func (n *Net) ResetLinks() {
	clear(n.latency)
	clear(n.loss)
}

// sample draws the pipe's next latency. Callers hold mu.
func (n *Net) sample(p *pipe) time.Duration {
	d, ok := n.latency[Link{p.from.name, p.to.name}]
	if !ok {
		d = n.defLat
	}
	return d.Sample(p.rnd)
}

// linkLoss is the loss probability of p's link. Callers hold mu.
func (n *Net) linkLoss(p *pipe) float64 {
	if l, ok := n.loss[Link{p.from.name, p.to.name}]; ok {
		return l
	}
	return n.defLoss
}

// Release sends on the segments stalled on pipes that can deliver again,
// in pipe-name order, each with a fresh latency. Callers hold mu.
func (n *Net) Release() {
	slices.SortFunc(n.pipes, func(a, b *pipe) int { return strings.Compare(a.name, b.name) })
	kept := n.pipes[:0]
	for _, p := range n.pipes {
		if !n.deliverable(p) {
			kept = append(kept, p)
			continue
		}
		segs := p.stalled
		p.stalled = nil
		for _, s := range segs {
			n.send(p, s)
		}
	}
	clear(n.pipes[len(kept):])
	n.pipes = kept
}

// errorf makes one of the network's own errors, with its prefix.
func (n *Net) errorf(format string, args ...any) error {
	return fmt.Errorf(n.prefix+": "+format, args...)
}
