package faults

import "github.com/leasesim/leasesim/sim"

// Window is an interval of true time during which one fault was in force,
// read back from the kernel's fault log. Checkers use windows to say which
// faults were active when a property broke; reports shade them on a
// timeline. An instant fault (a clock step, a failpoint hit) has Start ==
// End.
type Window struct {
	// Kind is the fault that opened the window.
	Kind sim.FaultKind `json:"kind"`
	// Node and Peer are the nodes involved, as in the fault record: the node
	// paused, crashed, drifting or isolated; a one-way partition or link
	// change from Node to Peer; a bridge's bridge node.
	Node string `json:"node,omitempty"`
	Peer string `json:"peer,omitempty"`
	// Start and End bound the window, both included.
	Start sim.Time `json:"start_ns"`
	End   sim.Time `json:"end_ns"`
	// Detail is the opening record's detail, such as the groups of a
	// partition or a link's new latency.
	Detail string `json:"detail,omitempty"`
}

// open is a window not closed yet, by its index in the output.
const open sim.Time = -1

// Windows turns a fault log (sim.World.Faults) into the intervals during
// which each fault was in force, in the order they began:
//
//   - pause until the node's resume, or its crash;
//   - crash until the node's restart;
//   - partition, one-way partition, isolate, split and bridge until the
//     next heal;
//   - a non-zero drift until the node's next drift change;
//   - a link change until the next link reset, or the next change of the
//     same link;
//   - a wall-clock step and a failpoint hit are instants.
//
// Failpoint arming, resume, restart, heal, link reset and a drift back to
// zero open no window. A window still open at the end of the log ends at
// end (or at its start, if that is later).
func Windows(log []sim.FaultRecord, end sim.Time) []Window {
	var out []Window
	if len(log) > 0 {
		out = make([]Window, 0, len(log)) // at most a window per record
	}
	t := tracker{out: &out}
	for _, rec := range log {
		t.record(rec)
	}
	for i := range out {
		if out[i].End == open {
			out[i].End = max(end, out[i].Start)
		}
	}
	return out
}

// tracker remembers which windows are open, by index into the output. The
// maps are only looked up, never iterated, so the output order is the log's.
type tracker struct {
	out        *[]Window
	paused     map[string]int
	crashed    map[string]int
	drifting   map[string]int
	links      map[[2]string]int
	partitions []int
	linkOrder  [][2]string // links in the order they opened, to close on reset
}

func (t *tracker) openWindow(rec sim.FaultRecord) int {
	*t.out = append(*t.out, Window{Kind: rec.Kind, Node: rec.Node, Peer: rec.Peer,
		Start: rec.At, End: open, Detail: rec.Detail})
	return len(*t.out) - 1
}

func (t *tracker) instant(rec sim.FaultRecord) {
	(*t.out)[t.openWindow(rec)].End = rec.At
}

// closeKey closes the window m[key], if one is open.
func closeKey[K comparable](t *tracker, m map[K]int, key K, at sim.Time) {
	if i, ok := m[key]; ok {
		(*t.out)[i].End = at
		delete(m, key)
	}
}

// openKey opens a window for rec under key, unless one is already open.
func openKey[K comparable](t *tracker, m *map[K]int, key K, rec sim.FaultRecord) {
	if *m == nil {
		*m = make(map[K]int)
	}
	if _, ok := (*m)[key]; !ok {
		(*m)[key] = t.openWindow(rec)
	}
}

func (t *tracker) record(rec sim.FaultRecord) {
	switch rec.Kind {
	case sim.FaultPause:
		openKey(t, &t.paused, rec.Node, rec) // a second pause extends the first
	case sim.FaultResume:
		closeKey(t, t.paused, rec.Node, rec.At)
	case sim.FaultCrash:
		closeKey(t, t.paused, rec.Node, rec.At)
		openKey(t, &t.crashed, rec.Node, rec)
	case sim.FaultRestart:
		closeKey(t, t.crashed, rec.Node, rec.At)
	case sim.FaultPartition, sim.FaultPartitionOneWay, sim.FaultIsolate, sim.FaultSplit, sim.FaultBridge:
		t.partitions = append(t.partitions, t.openWindow(rec))
	case sim.FaultHeal:
		for _, i := range t.partitions {
			(*t.out)[i].End = rec.At
		}
		t.partitions = t.partitions[:0]
	case sim.FaultDrift:
		closeKey(t, t.drifting, rec.Node, rec.At)
		if rec.Value != 0 {
			openKey(t, &t.drifting, rec.Node, rec)
		}
	case sim.FaultLink: // a change of a link ends its previous window (a link event on every node makes n^2)
		key := [2]string{rec.Node, rec.Peer}
		if t.links == nil {
			t.links = make(map[[2]string]int)
		}
		if i, ok := t.links[key]; ok {
			(*t.out)[i].End = rec.At
		}
		t.links[key] = t.openWindow(rec)
		t.linkOrder = append(t.linkOrder, key)
	case sim.FaultLinkReset:
		for _, key := range t.linkOrder {
			if i, ok := t.links[key]; ok {
				(*t.out)[i].End = rec.At
			}
		}
		clear(t.links) // every open link is in linkOrder
		t.linkOrder = t.linkOrder[:0]
	case sim.FaultStep, sim.FaultFailpointHit:
		t.instant(rec)
	}
}

// ActiveAt returns the windows in force at true time t (Start <= t <= End),
// in their order.
func ActiveAt(windows []Window, t sim.Time) []Window {
	var active []Window
	for _, w := range windows {
		if w.Start <= t && t <= w.End {
			active = append(active, w)
		}
	}
	return active
}
