package gohost

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/netcore"
)

// ErrCrashed is the error a crashed node's connections, listeners and
// dials return (wrapped in a *net.OpError for connections).
var ErrCrashed = errors.New("gohost: node crashed")

// nodeState is a node across its lives.
type nodeState struct {
	h       *host
	spec    NodeSpec
	idx     int
	life    uint64
	cur     *Node // the current life, nil while crashed
	crashed bool
	net     *netcore.Host // the node on the network: its pause, dials and ports
	storage *Storage
	clock   nodeClock
	armed   map[string]faults.Event // looked up by name, never iterated
}

// Node is one life of a node, as its function sees it: the simulated
// network, failpoints, seeded randomness, the bubble's clock, durable
// storage and the history recorder. A restarted node gets a new Node; the
// old one's calls fail with ErrCrashed.
type Node struct {
	h      *host
	ns     *nodeState
	life   uint64
	ctx    context.Context
	cancel context.CancelFunc
	rnd    *rand.Rand
	dead   bool // under h.mu

	nl         *netcore.Life // the life's connections and listeners
	timers     []*clockTimer // the life's Clock timers, under h.mu
	timersKept int           // len(timers) after the last compaction
}

// Name returns the node's name.
func (n *Node) Name() string { return n.ns.spec.Name }

// Incarnation returns which life of the node this is, from 1; a restart
// starts the next.
func (n *Node) Incarnation() uint64 { return n.life }

// Context returns the life's context, cancelled when the node crashes or
// the run ends.
func (n *Node) Context() context.Context { return n.ctx }

// Now returns the bubble's clock, which is also what time.Now returns in
// the node's code. Every node shares it: no drift or step applies to it
// (the node's own drifting clock is [Node.Clock]).
func (n *Node) Now() time.Time { return time.Now() }

// Rand returns the life's random source, seeded from the run's seed, the
// node's name and the incarnation. It is not safe for concurrent use.
func (n *Node) Rand() *rand.Rand { return n.rnd }

// Storage returns the node's durable storage, which survives its crashes.
func (n *Node) Storage() *Storage { return n.ns.storage }

// main runs the node's function and records how it ended.
func (n *Node) main() {
	err := n.call()
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	detail := "returned"
	if err != nil {
		detail = "returned: " + err.Error()
	}
	h.note(Event{Kind: "exit", Node: n.Name(), Detail: fmt.Sprintf("incarnation %d %s", n.life, detail)}, nil)
	if err != nil && !(n.dead && errors.Is(err, context.Canceled)) {
		h.problems = append(h.problems, fmt.Sprintf("node %s (incarnation %d) at %v: %v", n.Name(), n.life, h.now(), err))
	}
}

// call runs the node's function, turning a panic into an error with its
// stack.
func (n *Node) call() (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return n.ns.spec.Run(n.ctx, n)
}

// Failpoint marks a point in the node's code where the schedule can pause
// or crash it (a "failpoint" event naming this node and name). When no
// fault is armed there it returns at once. Armed with a pause, the node's
// I/O freezes and the call blocks for the pause's duration; armed with a
// crash, the node crashes and the call returns once its context is
// cancelled (the code should then stop). Each arming fires once.
func (n *Node) Failpoint(name string) {
	h := n.h
	h.mu.Lock()
	ev, ok := n.ns.armed[name]
	if !ok || n.dead {
		h.mu.Unlock()
		return
	}
	delete(n.ns.armed, name)
	h.note(Event{Kind: "failpoint-hit", Node: n.Name(), Detail: fmt.Sprintf("%q %s", name, ev.Action)}, nil)
	h.openWindow(history.FaultFailpointHit, n.Name(), history.FailpointDetail(name, string(ev.Action)), true)
	switch ev.Action {
	case faults.ActionCrash:
		h.later(h.now(), n.Name(), func() { h.crash(n.ns, "failpoint "+name) })
		h.mu.Unlock()
		<-n.ctx.Done()
	default:
		resume := h.pause(n.ns, ev.Duration, "failpoint "+name)
		h.mu.Unlock()
		<-resume
	}
}

// Storage is a node's durable storage: a small map of values that
// survives the node's crashes (every Put is durable at once). It is safe
// for concurrent use.
type Storage struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewStorage returns an empty storage. The host gives each node its own;
// code that runs both under the host and without it can make one.
func NewStorage() *Storage { return &Storage{m: make(map[string][]byte)} }

// Get returns a copy of the value stored under key and whether there is one.
func (s *Storage) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return slices.Clone(v), ok
}

// Put stores a copy of value under key.
func (s *Storage) Put(key string, value []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = slices.Clone(value)
}

// Delete removes key.
func (s *Storage) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
}

// Keys returns the stored keys in sorted order.
func (s *Storage) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
