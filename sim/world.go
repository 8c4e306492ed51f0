package sim

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"
)

// Config configures a World.
type Config struct {
	// Seed is the root seed. Every component derives its own PRNG from it.
	Seed uint64
	// Limits bounds the run; zero fields take DefaultLimits.
	Limits Limits
	// Link is every link's configuration until a fault changes it. The zero
	// value means DefaultLink.
	Link *LinkConfig
	// Trace controls the trace's memory and streaming.
	Trace TraceConfig
	// Logger receives the seed and every derived seed first, then limit
	// reports. Nil discards.
	Logger *slog.Logger
}

// World is one deterministic simulation: true time, the event queue, nodes,
// the network and the trace. It is not safe for concurrent use; run
// independent seeds in independent worlds.
type World struct {
	cfg     Config
	log     *slog.Logger
	now     Time
	q       queue
	timers  []timerSlot
	free    []uint32
	msgs    []msgSlot
	msgFree []uint32
	nodes   []*Node
	byName  map[string]NodeID
	net     Network
	trace   Trace
	faults  []FaultRecord
	seeds   []DerivedSeed
	events  uint64
	stale   int   // queue entries of cancelled or re-timed timers
	halt    error // set when a limit is hit or Stop is called
	// undigested counts sent payloads whose contents the trace hash could
	// not cover (neither Digester nor bytes); see UndigestedSends.
	undigested uint64
}

// New creates a world and logs its seed. An invalid Config.Link is a
// programmer error and panics, naming the field.
func New(cfg Config) *World {
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Link != nil {
		if err := cfg.Link.Validate(); err != nil {
			panic("sim: New: Config.Link." + err.Error())
		}
	}
	w := &World{cfg: cfg, byName: make(map[string]NodeID)}
	w.log = cfg.Logger
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.trace = newTrace(cfg.Trace, w.nodeName)
	w.log.Info("sim: world", "seed", cfg.Seed)
	def := DefaultLink
	if cfg.Link != nil {
		def = *cfg.Link
	}
	w.net.init(w, def)
	return w
}

// Seed returns the root seed.
func (w *World) Seed() uint64 { return w.cfg.Seed }

// Now returns the current true time.
func (w *World) Now() Time { return w.now }

// Network returns the world's network.
func (w *World) Network() *Network { return &w.net }

// Trace returns the world's trace.
func (w *World) Trace() *Trace { return &w.trace }

// Events returns how many events have executed.
func (w *World) Events() uint64 { return w.events }

// Seeds returns every seed derived so far, in the order they were derived.
func (w *World) Seeds() []DerivedSeed { return w.seeds }

// Rand returns a new PRNG for a named component, derived from the root seed
// and the name alone. The derivation is logged and traced.
func (w *World) Rand(component string) *rand.Rand { return newRand(w.derive(component)) }

// derive derives, logs and traces the seed of a named component.
func (w *World) derive(component string) uint64 {
	seed := deriveSeed(w.cfg.Seed, component)
	w.seeds = append(w.seeds, DerivedSeed{Component: component, Seed: seed})
	if w.log.Enabled(context.Background(), slog.LevelInfo) { // its arguments cost allocations even when discarded
		w.log.Info("sim: derived seed", "component", component, "seed", seed)
	}
	w.record(RecSeed, -1, -1, seed, fnv64(component))
	return seed
}

// Nodes returns the nodes in the order they were added.
func (w *World) Nodes() []*Node { return w.nodes }

// Node returns the node with the given id.
func (w *World) Node(id NodeID) *Node { return w.nodes[id] }

// Lookup returns the node with the given name.
func (w *World) Lookup(name string) (*Node, bool) {
	id, ok := w.byName[name]
	if !ok {
		return nil, false
	}
	return w.nodes[id], true
}

func (w *World) nodeName(id int32) string { return w.nodes[id].name }

// At runs fn at true time t, outside any node: this is how faults and
// harness actions are scheduled. t must not be in the past.
func (w *World) At(t Time, fn func()) {
	if t < w.now {
		panic(fmt.Sprintf("sim: At(%v) is in the past (now %v)", t, w.now))
	}
	w.pushTimer(t, w.allocTimer(Func(fn), -1))
}

// After runs fn d of true time from now, outside any node. A negative d
// counts as zero.
func (w *World) After(d time.Duration, fn func()) { w.At(w.now.Add(max(d, 0)), fn) }

// Stop ends the run after the current event, with the given reason.
func (w *World) Stop(reason error) {
	if w.halt == nil {
		w.halt = reason
	}
}

// Mark folds an event a host observed on node (-1: none) into the trace
// and its hash: what says which kind of event (a host's own code), digest
// its contents. Recorders use it so that the hash covers the history the
// checkers read, not only the messages and timers that produced it.
func (w *World) Mark(node NodeID, what, digest uint64) {
	w.record(RecMark, node, -1, what, digest)
}

// UndigestedSends returns how many sent payloads had contents the trace
// hash could not cover: they implement neither Digester nor are bytes,
// strings or integers. Nonzero means two runs with equal hashes may still
// have carried different message contents.
func (w *World) UndigestedSends() uint64 { return w.undigested }

func (w *World) record(kind RecordKind, node, peer NodeID, a, b uint64) {
	w.trace.add(w.now, kind, int32(node), int32(peer), a, b)
}

func (w *World) limitHit(l Limit) {
	if w.halt != nil {
		return
	}
	bound := map[Limit]string{
		LimitDuration: w.cfg.Limits.Duration.String(),
		LimitEvents:   fmt.Sprint(w.cfg.Limits.Events),
		LimitQueue:    fmt.Sprint(w.cfg.Limits.Queue),
		LimitFaults:   fmt.Sprint(w.cfg.Limits.Faults),
	}[l]
	w.halt = &LimitError{Limit: l, At: w.now, Bound: bound}
	w.log.Warn("sim: limit reached", "limit", string(l), "bound", bound, "at", w.now)
}
