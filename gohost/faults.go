package gohost

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
)

// schedule queues the schedule's events in the order they act, then its
// heal phase. Callers hold mu.
func (h *host) schedule() {
	s := h.cfg.Schedule
	if len(s.Events) == 0 && s.HealAt == 0 {
		return
	}
	idx := make([]int, len(s.Events))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return int(s.Events[a].At - s.Events[b].At) })
	for order, i := range idx {
		e := s.Events[i]
		h.push(&action{at: e.At, class: classFault, n: uint64(order), do: func() { h.apply(e) }})
	}
	h.push(&action{at: s.HealAt, class: classFault, n: uint64(len(idx)), do: h.healPhase})
}

// apply acts one fault event. Callers hold mu.
func (h *host) apply(e faults.Event) {
	h.event(Event{Kind: "fault", Node: e.Node, Detail: e.String()})
	switch e.Kind {
	case faults.KindPartition:
		for i, a := range e.Groups {
			for _, b := range e.Groups[i+1:] {
				h.cutBetween(a, b)
			}
		}
		kind := history.FaultPartition
		if len(e.Groups) > 2 {
			kind = history.FaultSplit
		}
		h.openWindow(kind, "", groupsText(e.Groups), false)
	case faults.KindPartitionOneWay:
		h.net.Cut(e.From, e.To)
		h.openWindow(history.FaultPartitionOneWay, e.From, e.To, false)
	case faults.KindIsolate:
		h.cutBetween([]string{e.Node}, h.others(e.Node))
		h.openWindow(history.FaultIsolate, e.Node, "", false)
	case faults.KindBridge:
		h.cutBetween(e.Groups[0], e.Groups[1])
		h.openWindow(history.FaultBridge, e.Bridge, groupsText(e.Groups), false)
	case faults.KindHeal:
		h.heal()
	case faults.KindLink:
		h.setLink(e)
	case faults.KindLinkReset:
		h.net.ResetLinks()
		h.openWindow(history.FaultLinkReset, "", "", true)
	case faults.KindPause:
		h.pause(h.byName[e.Node], e.Duration, "pause fault")
	case faults.KindCrash:
		h.crash(h.byName[e.Node], "crash fault")
	case faults.KindRestart:
		h.restart(h.byName[e.Node])
	case faults.KindFailpoint:
		h.byName[e.Node].armed[e.Failpoint] = e
		h.openWindow(history.FaultFailpointArm, e.Node, history.FailpointDetail(e.Failpoint, string(e.Action)), true)
	case faults.KindDrift, faults.KindStep:
		h.applyClock(e)
	case faults.KindStallConns:
		h.stallConns(e)
	default:
		h.notApplied(fmt.Sprintf("%s: unknown fault kind", e))
	}
}

// notApplied records a fault the host does not model, once per text, and
// puts it in the trace. Callers hold mu.
func (h *host) notApplied(s string) {
	h.notes(s)
	h.event(Event{Kind: "not-applied", Detail: s})
}

// notes adds s to Result.NotApplied, once. Callers hold mu.
func (h *host) notes(s string) {
	if !slices.Contains(h.notApp, s) {
		h.notApp = append(h.notApp, s)
	}
}

// setLink applies a link event's latency to every matching direction.
// Callers hold mu.
func (h *host) setLink(e faults.Event) {
	if e.Link == nil {
		return
	}
	l := *e.Link
	if l.Loss != 0 {
		h.notApplied(fmt.Sprintf("%s: loss is applied as connection resets: a stream cannot lose bytes silently, so a lost segment resets its connection", e))
	}
	if l.Duplicate != 0 || l.Reorder != 0 {
		h.notApplied(fmt.Sprintf("%s: duplication and reordering are not applied: a connection delivers each byte once, in order, as TCP does over such a link", e))
	}
	for _, from := range h.expand(e.From) {
		for _, to := range h.expand(e.To) {
			if from != to {
				h.net.SetLink(from, to, l.Latency, l.Loss)
			}
		}
	}
	h.openWindow(history.FaultLink, e.From, e.To, false)
}

// expand turns a link end into node names ("*" is every node).
func (h *host) expand(name string) []string {
	if name != faults.AnyNode {
		return []string{name}
	}
	out := make([]string, len(h.nodes))
	for i, ns := range h.nodes {
		out[i] = ns.spec.Name
	}
	return out
}

// others returns every node but name, in node order.
func (h *host) others(name string) []string {
	var out []string
	for _, ns := range h.nodes {
		if ns.spec.Name != name {
			out = append(out, ns.spec.Name)
		}
	}
	return out
}

// cutBetween cuts both directions between every node of a and every node
// of b. Callers hold mu.
func (h *host) cutBetween(a, b []string) {
	for _, x := range a {
		for _, y := range b {
			if x != y {
				h.net.Cut(x, y)
				h.net.Cut(y, x)
			}
		}
	}
}

// stallConns stalls every connection open between the event's groups,
// both ways and without a reset (netcore.Life.Freeze); new connections
// flow. The trace names how many it stalled. Callers hold mu.
func (h *host) stallConns(e faults.Event) {
	group := make(map[string]int) // the group of each named node; looked up, never iterated
	for i, g := range e.Groups {
		for _, name := range g {
			group[name] = i + 1
		}
	}
	stalled := 0
	for _, ns := range h.nodes {
		mine := group[ns.spec.Name]
		if mine == 0 || ns.cur == nil {
			continue
		}
		stalled += ns.cur.nl.Freeze(func(peer string) bool { return group[peer] != 0 && group[peer] != mine })
	}
	h.event(Event{Kind: "stall-conns", Detail: fmt.Sprintf("%d connections stalled", stalled)})
	h.openWindow(history.FaultStallConns, "", groupsText(e.Groups), false)
}

// heal removes every partition and every connection stall and sends on
// what they held back. Callers hold mu.
func (h *host) heal() {
	h.net.HealAll()
	h.net.Thaw()
	h.closeWindows(func(w *history.FaultWindow) bool {
		switch w.Kind {
		case history.FaultPartition, history.FaultSplit, history.FaultPartitionOneWay, history.FaultIsolate, history.FaultBridge,
			history.FaultStallConns:
			return true
		}
		return false
	})
	h.openWindow(history.FaultHeal, "", "", true)
}

// pause freezes ns's I/O for d and returns the channel closed when the
// pause ends (or the node crashes). A pause of a paused node extends it to
// the later end. Callers hold mu.
func (h *host) pause(ns *nodeState, d time.Duration, why string) chan struct{} {
	if ns.cur == nil {
		h.note(Event{Kind: "pause-ignored", Node: ns.spec.Name, Detail: why + ": the node is down"}, nil)
		return closedChan
	}
	if !ns.paused() {
		h.openWindow(history.FaultPause, ns.spec.Name, why, false)
	}
	resume := ns.net.Pause()
	h.notes(pauseModel)
	h.note(Event{Kind: "pause", Node: ns.spec.Name, Detail: fmt.Sprintf("%s for %v", why, d)}, nil)
	n := ns.cur
	h.later(h.now()+d, ns.spec.Name, func() {
		if paused, now := ns.net.Paused(); ns.cur == n && paused && now == resume {
			h.resume(ns)
		}
	})
	return resume
}

// pauseModel is what a run that paused a node says of the model it
// applied (in Result.NotApplied, with the faults the host does not model).
const pauseModel = "pause: applied as a pause of the node's I/O (reads, accepts and dials block; writes wait in " +
	"the send buffer and leave at the resume); its code and timers kept running: not a stop of the world"

// closedChan is a channel that is always closed.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// resume ends ns's pause: its blocked I/O calls go on and what was held
// for it is delivered, late. Callers hold mu.
func (h *host) resume(ns *nodeState) {
	ns.net.Unpause()
	h.event(Event{Kind: "resume", Node: ns.spec.Name})
	h.closeWindows(func(w *history.FaultWindow) bool { return w.Kind == history.FaultPause && w.Node() == ns.spec.Name })
	h.openWindow(history.FaultResume, ns.spec.Name, "", true)
	ns.cur.nl.Wake()
	h.net.Release()
}

// crash ends ns's current life; the host checks for its leaked goroutines
// once the bubble settles. Callers hold mu.
func (h *host) crash(ns *nodeState, why string) {
	n := ns.cur
	if n == nil {
		h.event(Event{Kind: "crash-ignored", Node: ns.spec.Name, Detail: why + ": already down"})
		return
	}
	h.event(Event{Kind: "crash", Node: ns.spec.Name, Detail: fmt.Sprintf("incarnation %d: %s", n.life, why)})
	h.closeWindows(func(w *history.FaultWindow) bool { return w.Kind == history.FaultPause && w.Node() == ns.spec.Name })
	h.openWindow(history.FaultCrash, ns.spec.Name, why, false)
	h.stop(n, why)
	h.rec.closeLife(ns.spec.Name, n.life, history.Time(h.now()), history.EndCrash)
	ns.cur = nil
	ns.crashed = true
	h.checks = append(h.checks, n)
}

// restart starts ns's next life, with its storage. Callers hold mu.
func (h *host) restart(ns *nodeState) {
	if !ns.crashed {
		h.event(Event{Kind: "restart-ignored", Node: ns.spec.Name, Detail: "not crashed"})
		return
	}
	h.closeWindows(func(w *history.FaultWindow) bool { return w.Kind == history.FaultCrash && w.Node() == ns.spec.Name })
	h.openWindow(history.FaultRestart, ns.spec.Name, "", true)
	h.start(ns)
}

// healPhase ends every fault: failpoints disarmed, partitions healed,
// links reset, paused nodes resumed and crashed ones restarted, in node
// order. Callers hold mu.
func (h *host) healPhase() {
	h.event(Event{Kind: "heal-phase"})
	for _, ns := range h.nodes {
		clear(ns.armed)
	}
	h.heal()
	h.net.ResetLinks()
	for _, ns := range h.nodes {
		if ns.clock.mono.DriftPPB() != 0 {
			h.setDrift(ns, 0)
		}
	}
	for _, ns := range h.nodes {
		if ns.paused() {
			h.resume(ns)
		}
	}
	for _, ns := range h.nodes {
		if ns.crashed {
			h.restart(ns)
		}
	}
}

// openWindow starts a fault window for the history; an instant one ends
// where it starts. Callers hold mu.
func (h *host) openWindow(kind, node, detail string, instant bool) {
	w := &history.FaultWindow{Kind: kind, Start: history.Time(h.now()), End: history.Never, Detail: detail}
	if node != "" {
		w.Nodes = []string{node}
	}
	if kind == history.FaultPartitionOneWay || kind == history.FaultLink {
		w.Nodes, w.Detail = []string{node, detail}, ""
	}
	if instant {
		w.End = w.Start
	}
	h.windows = append(h.windows, w)
}

// closeWindows ends the open windows match selects. Callers hold mu.
func (h *host) closeWindows(match func(*history.FaultWindow) bool) {
	for _, w := range h.windows {
		if w.End == history.Never && match(w) {
			w.End = history.Time(h.now())
		}
	}
}

func groupsText(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "[" + strings.Join(g, " ") + "]"
	}
	return strings.Join(parts, " | ")
}
