package gohost

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"testing/synctest"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/netcore"
	"github.com/leasesim/leasesim/sim"
)

// labelKey is the pprof label every goroutine of a node's life carries
// (inherited by the goroutines it starts): "run/node/incarnation".
const labelKey = "gohost"

// The classes of queued host actions, in the order they act at one instant:
// the schedule's faults, then the host's own follow-ups (a pause ending, a
// failpoint's crash), then deliveries, then the end of the run.
const (
	classFault = iota
	classHost
	classDeliver
	classEnd
)

// action is one thing the host does at one instant. Actions at the same
// instant act in (class, key, n) order, which does not depend on the order
// in which goroutines queued them.
type action struct {
	at    time.Duration
	class int
	key   string
	n     uint64
	do    func()
}

type actionQueue []*action

func (q actionQueue) Len() int { return len(q) }
func (q actionQueue) Less(i, j int) bool {
	a, b := q[i], q[j]
	return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.class, b.class), cmp.Compare(a.key, b.key),
		cmp.Compare(a.n, b.n)) < 0
}
func (q actionQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *actionQueue) Push(x any)   { *q = append(*q, x.(*action)) }
func (q *actionQueue) Pop() any {
	old := *q
	a := old[len(old)-1]
	*q = old[:len(old)-1]
	return a
}

// host is one run in one bubble. Everything below mu is shared between the
// host's goroutine (the bubble's main) and the nodes' goroutines.
type host struct {
	timer *time.Timer // the host's one timer (sleep)
	cfg   *Config
	seed  uint64
	runID string
	t0    time.Time
	// waiting and progress tell the watchdog (outside the bubble) whether
	// the host is waiting for the bubble to settle, and whether it moved.
	waiting  *atomic.Bool
	progress *atomic.Uint64

	mu       sync.Mutex
	queue    actionQueue
	nodes    []*nodeState
	byName   map[string]*nodeState
	net      *netcore.Net // the simulated network, under mu
	internal uint64       // sequence of classHost actions
	trace    []Event
	pending  []pendingRecord
	rec      recorder
	checks   []*Node // lives to check for leaks once the bubble settles
	leaks    []Leak
	// ending are the lives the run's end stopped or found leaking, endAt
	// when it ended: leftovers checks them if goroutines outlive the
	// bubble's main.
	ending   []*Node
	endAt    time.Duration
	problems []string
	notApp   []string
	windows  []*history.FaultWindow
	ended    bool
	// asleep is true while the host waits on its timer, due when the
	// timer fires: push moves it up for an earlier action.
	asleep bool
	due    time.Duration
	// clockFaults are the drift and step events applied, for the notes.
	clockFaults []faults.Event
}

// now is true time since the start of the run: the bubble's clock.
func (h *host) now() time.Duration { return time.Since(h.t0) }

// at converts a bubble time to true time since the start of the run.
func (h *host) at(t time.Time) history.Time { return history.Time(t.Sub(h.t0)) }

// push queues an action. When the host sleeps until later than the
// action, push moves the host's timer up to it instead of waking the host:
// the host wakes once, when the earliest action is due, not once per
// action queued (a run queues one per segment sent). Callers hold mu.
func (h *host) push(a *action) {
	heap.Push(&h.queue, a)
	if h.asleep && a.at < h.due {
		h.due = a.at
		h.timer.Reset(a.at - h.now())
	}
}

// later queues a host follow-up for node at time at. Callers hold mu.
func (h *host) later(at time.Duration, node string, do func()) {
	h.internal++
	h.push(&action{at: at, class: classHost, key: node, n: h.internal, do: do})
}

// event appends a host event to the trace, at now unless e.At says
// when. Callers hold mu, on the host's goroutine.
func (h *host) event(e Event) {
	if e.At == 0 {
		e.At = h.now()
	}
	h.record(e)
}

// record appends e to the trace as it is. Callers hold mu.
func (h *host) record(e Event) {
	e.Seq = len(h.trace)
	h.trace = append(h.trace, e)
}

// traceLen is the length of the trace the last run in this process
// recorded: a run's trace starts with room for as many events (and a
// sixteenth more), so that a sweep's runs, whose traces are alike, do not
// grow theirs by doubling (a run records an event per segment delivered).
// It sizes an allocation only: what a run records does not depend on it.
var traceLen atomic.Int64

// newHost builds the host of one run; run starts it.
func newHost(cfg *Config, seed uint64, runID string, waiting *atomic.Bool, progress *atomic.Uint64) *host {
	h := &host{cfg: cfg, seed: seed, runID: runID, waiting: waiting, progress: progress,
		byName: make(map[string]*nodeState)}
	if n := traceLen.Load(); n > 0 {
		h.trace = make([]Event, 0, n+n/16)
	}
	for i, spec := range cfg.Nodes {
		ns := &nodeState{h: h, spec: spec, idx: i, storage: NewStorage(), armed: make(map[string]faults.Event),
			clock: nodeClock{mono: sim.NewDriftClock(0)}}
		h.nodes = append(h.nodes, ns)
		h.byName[spec.Name] = ns
	}
	h.newNet()
	h.rec.init()
	return h
}

// settle waits until every other goroutine of the bubble is durably
// blocked, telling the watchdog while it waits.
func (h *host) settle() {
	h.progress.Add(1)
	h.waiting.Store(true)
	synctest.Wait()
	h.waiting.Store(false)
	h.progress.Add(1)
}

// run is the bubble's main: it starts the nodes, applies the schedule and
// delivers the network's bytes one action at a time, letting the bubble
// settle between them, until the run's duration, then stops every node.
func (h *host) run() *Result {
	h.t0 = time.Now()
	h.mu.Lock()
	h.schedule()
	h.push(&action{at: h.cfg.Duration, class: classEnd, do: func() { h.ended = true }})
	for _, ns := range h.nodes {
		h.start(ns)
	}
	h.mu.Unlock()
	for {
		h.settle()
		h.mu.Lock()
		h.drain()
		if len(h.checks) > 0 {
			checks := h.checks
			h.checks = nil
			h.mu.Unlock()
			h.checkLeaks(checks, "crash", h.now())
			continue
		}
		if h.ended {
			h.mu.Unlock()
			break
		}
		next := h.queue[0]
		if wait := next.at - h.now(); wait > 0 {
			h.sleep(wait)
			continue
		}
		heap.Pop(&h.queue)
		next.do()
		// When nothing is due before a later instant, the wait for it
		// stands in for a settle: the bubble's clock advances only once
		// every goroutine is durably blocked, and what the nodes record
		// meanwhile is drained, sorted, at the settle after the wait,
		// before anything else acts.
		if len(h.checks) == 0 && !h.ended && len(h.queue) > 0 && h.queue[0].at > h.now() {
			h.sleep(h.queue[0].at - h.now())
			continue
		}
		h.mu.Unlock()
	}
	return h.finish()
}

// sleep waits d on the bubble's clock, or less when a node queues an
// earlier action (push moves the timer up), on the host's one timer.
// Callers hold mu; sleep releases it.
func (h *host) sleep(d time.Duration) {
	h.asleep, h.due = true, h.now()+d
	if h.timer == nil {
		h.timer = time.NewTimer(d)
	} else {
		h.timer.Reset(d)
	}
	h.mu.Unlock()
	<-h.timer.C
	h.mu.Lock()
	h.asleep = false
	h.mu.Unlock()
}

// finish stops every node, waits for the bubble to settle and builds the
// result. It leaves the leak check of the lives it stopped to leftovers:
// once the bubble has settled, a goroutine of a life is durably blocked
// and stays so (only the bubble's clock or its other goroutines could
// wake it, and neither will), so synctest panics when the bubble's main
// returns if and only if some goroutine is left, and a clean run never
// reads the goroutine profile.
func (h *host) finish() *Result {
	h.mu.Lock()
	end := h.now()
	h.event(Event{Kind: "end", Detail: "run over: every node's context is cancelled"})
	lives := h.leaked() // still there at the end: they will keep the bubble from ending
	for _, ns := range h.nodes {
		if n := ns.cur; n != nil {
			h.stop(n, "end of run")
			lives = append(lives, n)
		}
	}
	h.rec.closeAll(history.Time(end), history.EndRun)
	h.mu.Unlock()
	h.settle()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.drain()
	h.ending, h.endAt = lives, end
	for _, w := range h.windows {
		if w.End == history.Never {
			w.End = history.Time(end)
		}
	}
	h.clockNotes()
	traceLen.Store(int64(len(h.trace)))
	hist := h.rec.history(h.cfg, end, h.windows)
	hist.MaxDriftPPB = h.maxDriftPPB()
	return &Result{Seed: h.seed, Hash: traceHash(h.trace), Events: h.trace, History: hist,
		Leaks: h.leaks, Problems: h.problems, NotApplied: h.notApp, Level: Level{Runs: 1, DivergedAt: -1}}
}

// leftovers is the end of the run's leak check, once goroutines outlived
// the bubble's main (synctest panicked): they stay parked in the
// abandoned bubble with their labels, and the stacks they had when the
// bubble settled. It records the leaks in res, their events at the end of
// the trace, as the host would have had it looked before its main
// returned. It runs outside the bubble.
func (h *host) leftovers(res *Result) {
	h.checkLeaks(h.ending, "end of run", h.endAt)
	h.mu.Lock()
	defer h.mu.Unlock()
	res.Events, res.Hash, res.Leaks = h.trace, traceHash(h.trace), h.leaks
}

// pendingRecord is something a node recorded, waiting for the host to put
// it in the trace once the bubble settles.
type pendingRecord struct {
	ev Event
	op *history.Operation
}

// note queues a node's record for the trace. Callers hold mu.
func (h *host) note(ev Event, op *history.Operation) {
	ev.At = h.now()
	h.pending = append(h.pending, pendingRecord{ev: ev, op: op})
}

// drain moves the nodes' records into the trace and the history, in an
// order that does not depend on which goroutine recorded first. Callers
// hold mu, on the host's goroutine.
func (h *host) drain() {
	slices.SortStableFunc(h.pending, func(a, b pendingRecord) int {
		x, y := a.ev, b.ev
		return cmp.Or(cmp.Compare(x.At, y.At), cmp.Compare(x.Node, y.Node), cmp.Compare(x.Kind, y.Kind),
			cmp.Compare(x.Peer, y.Peer), cmp.Compare(x.Detail, y.Detail), cmp.Compare(x.Digest, y.Digest))
	})
	for _, p := range h.pending {
		h.event(p.ev)
		if p.op != nil {
			h.rec.op(p.op)
		}
	}
	h.pending = h.pending[:0]
}

// start begins a new life of ns: a new Node with a fresh context, running
// ns's function in a goroutine labelled with the life. Callers hold mu.
func (h *host) start(ns *nodeState) {
	ns.life++
	ctx, cancel := context.WithCancel(context.Background())
	n := &Node{h: h, ns: ns, life: ns.life, ctx: ctx, cancel: cancel, nl: ns.net.NewLife(ns.life),
		rnd: rand.New(rand.NewPCG(mix(h.seed, "node/"+ns.spec.Name, ns.life), mix(h.seed, "node2/"+ns.spec.Name, ns.life)))}
	ns.cur = n
	ns.crashed = false
	h.event(Event{Kind: "start", Node: ns.spec.Name, Detail: fmt.Sprintf("incarnation %d", n.life)})
	label := fmt.Sprintf("%s/%s/%d", h.runID, ns.spec.Name, n.life)
	pprof.Do(context.Background(), pprof.Labels(labelKey, label), func(context.Context) {
		go n.main()
	})
}

// stop ends a life: its context is cancelled, its connections reset, its
// listeners closed, its pause (if any) lifted. Callers hold mu.
func (h *host) stop(n *Node, why string) {
	n.dead = true
	n.cancel()
	n.nl.Kill()
	for _, t := range n.timers {
		t.stopLocked() // a crashed process runs no timer callbacks
	}
	n.ns.net.Unpause()
	_ = why
}

// mix derives a seed for a component from the run's seed.
func mix(seed uint64, component string, n uint64) uint64 { return netcore.Mix(seed, component, n) }
