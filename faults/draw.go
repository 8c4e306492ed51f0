package faults

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// durationMin is the shortest pause, window, step or latency bound the
// nemesis draws (or the configured maximum, if that is shorter).
const durationMin = time.Millisecond

// Link settings a link fault picks from. Drawing from tables keeps per-draw
// arithmetic integer; duplicates of zero make a clean setting likelier.
var (
	lossLevels    = [...]float64{0, 0, 0.01, 0.05, 0.2}
	dupLevels     = [...]float64{0, 0, 0.01, 0.1}
	reorderLevels = [...]float64{0, 0, 0.05, 0.25}
	paretoAlphas  = [...]float64{0.5, 1, 1.5, 2}
)

// drawer is the state of one Draw.
type drawer struct {
	n         Nemesis
	r         *rand.Rand
	rhoPPB    int64
	windowMax time.Duration
	// downUntil[i] is when Targets[i] is restarted after its last crash
	// (Phase if never before the heal); the node is crashed before it.
	downUntil []time.Duration
	events    []Event
}

func (d *drawer) init() {
	// Floating point, once per draw: Rho to integer parts per billion.
	d.rhoPPB = int64(math.Round(d.n.Rho * 1e9))
	d.windowMax = d.n.WindowMax
	if d.windowMax == 0 {
		d.windowMax = d.n.Phase / 4
	}
}

func (d *drawer) add(e Event) { d.events = append(d.events, e) }

// undoAt returns when a fault begun at at ends: after an edge-biased window,
// unless the heal phase comes first (ok is false).
func (d *drawer) undoAt(at time.Duration) (end time.Duration, ok bool) {
	end = at + d.edge(d.windowMax)
	return end, end < d.n.Phase
}

// undo appends e, the event that ends a fault begun at at, if it comes
// before the heal phase.
func (d *drawer) undo(at time.Duration, e Event) {
	if end, ok := d.undoAt(at); ok {
		e.At = end
		d.add(e)
	}
}

// edge draws an edge-biased duration in [min(durationMin, hi), hi].
func (d *drawer) edge(hi time.Duration) time.Duration {
	return edgeBiased(d.r, min(durationMin, hi), hi, d.n.Boundaries)
}

// fault draws one fault of kind k at time at.
func (d *drawer) fault(k Kind, at time.Duration) {
	switch k {
	case KindPartition:
		d.partition(at)
	case KindPartitionOneWay:
		p := d.shuffled(d.n.Partitionable)
		d.add(Event{At: at, Kind: k, From: p[0], To: p[1]})
		d.undo(at, Event{Kind: KindHeal})
	case KindIsolate:
		d.add(Event{At: at, Kind: k, Node: d.pick(d.n.Partitionable)})
		d.undo(at, Event{Kind: KindHeal})
	case KindBridge:
		d.bridge(at)
	case KindLink:
		d.link(at)
	case KindDrift:
		node := d.pick(d.n.Targets)
		d.add(Event{At: at, Kind: k, Node: node, Drift: float64(d.driftPPB()) / 1e9})
		if d.r.IntN(2) == 0 { // otherwise the drift lasts until the heal phase
			d.undo(at, Event{Kind: KindDrift, Node: node})
		}
	case KindStep:
		step := d.edge(d.n.StepMax)
		if d.r.IntN(2) == 0 {
			step = -step
		}
		d.add(Event{At: at, Kind: k, Node: d.pick(d.n.Targets), Step: step})
	case KindPause:
		if i, ok := d.upTarget(at); ok {
			d.add(Event{At: at, Kind: k, Node: d.n.Targets[i], Duration: d.edge(d.n.PauseMax)})
		}
	case KindCrash:
		if i, ok := d.upTarget(at); ok && !IsRole(d.n.Targets[i]) {
			d.add(Event{At: at, Kind: k, Node: d.n.Targets[i]})
			d.restartLater(i, at)
		}
	case KindFailpoint:
		d.failpoint(at)
	default:
		panic(fmt.Sprintf("faults: invariant drawable-kind: the pool holds %q", k))
	}
}

func (d *drawer) partition(at time.Duration) {
	nodes := d.shuffled(d.n.Partitionable)
	k := 2
	if len(nodes) >= 3 && d.r.IntN(3) == 0 {
		k = 3
	}
	groups := make([][]string, k)
	for i, name := range nodes {
		switch {
		case i < k: // every group gets at least one node
			groups[i] = append(groups[i], name)
		case d.r.IntN(4) == 0: // left out: it still reaches every side
		default:
			g := d.r.IntN(k)
			groups[g] = append(groups[g], name)
		}
	}
	d.add(Event{At: at, Kind: KindPartition, Groups: groups})
	d.undo(at, Event{Kind: KindHeal})
}

func (d *drawer) bridge(at time.Duration) {
	nodes := d.shuffled(d.n.Partitionable)
	rest := nodes[1:]
	cut := 1 + d.r.IntN(len(rest)-1)
	groups := [][]string{slices.Clone(rest[:cut]), slices.Clone(rest[cut:])}
	d.add(Event{At: at, Kind: KindBridge, Groups: groups, Bridge: nodes[0]})
	d.undo(at, Event{Kind: KindHeal})
}

func (d *drawer) link(at time.Duration) {
	from, to := AnyNode, AnyNode
	if d.r.IntN(4) != 0 {
		p := d.shuffled(d.n.Partitionable)
		from, to = p[0], p[1]
	}
	hi := d.edge(d.n.DelayMax)
	lo := hi * time.Duration(d.r.IntN(101)) / 100
	var latency sim.Dist
	switch d.r.IntN(3) {
	case 0:
		latency = sim.FixedDist(hi)
	case 1:
		latency = sim.UniformDist(lo, hi)
	default:
		latency = sim.ParetoDist(lo, hi, paretoAlphas[d.r.IntN(len(paretoAlphas))])
	}
	cfg := sim.LinkConfig{
		Latency:   latency,
		Loss:      lossLevels[d.r.IntN(len(lossLevels))],
		Duplicate: dupLevels[d.r.IntN(len(dupLevels))],
		Reorder:   reorderLevels[d.r.IntN(len(reorderLevels))],
	}
	if cfg.Reorder > 0 {
		cfg.ReorderDelay = sim.Duration(hi)
	}
	d.add(Event{At: at, Kind: KindLink, From: from, To: to, Link: &cfg})
	d.undo(at, Event{Kind: KindLinkReset})
}

func (d *drawer) failpoint(at time.Duration) {
	i, ok := d.upTarget(at)
	if !ok {
		return
	}
	e := Event{At: at, Kind: KindFailpoint, Node: d.n.Targets[i], Failpoint: d.pick(d.n.Failpoints)}
	if d.n.PauseMax > 0 && d.r.IntN(2) == 0 {
		e.Action, e.Duration = ActionPause, d.edge(d.n.PauseMax)
		d.add(e)
		return
	}
	if IsRole(e.Node) {
		return // a role is never crashed: its restart could not name the same node
	}
	e.Action = ActionCrash
	d.add(e)
	// The failpoint may fire at any time or never; the restart is a no-op
	// if it has not fired yet.
	d.restartLater(i, at)
}

// restartLater restarts Targets[i], crashed at at, after an edge-biased
// window, and keeps it out of further draws until then.
func (d *drawer) restartLater(i int, at time.Duration) {
	end, ok := d.undoAt(at)
	if !ok {
		d.downUntil[i] = d.n.Phase
		return
	}
	d.add(Event{At: end, Kind: KindRestart, Node: d.n.Targets[i]})
	d.downUntil[i] = end
}

// upTarget picks a target that is not crashed at at, if there is one.
func (d *drawer) upTarget(at time.Duration) (int, bool) {
	up := 0
	for _, until := range d.downUntil {
		if until <= at {
			up++
		}
	}
	if up == 0 {
		return 0, false
	}
	k := d.r.IntN(up)
	for i, until := range d.downUntil {
		if until <= at {
			if k == 0 {
				return i, true
			}
			k--
		}
	}
	panic("faults: invariant up-target: counted more up targets than found")
}

func (d *drawer) pick(names []string) string { return names[d.r.IntN(len(names))] }

func (d *drawer) shuffled(names []string) []string {
	p := slices.Clone(names)
	d.r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}
