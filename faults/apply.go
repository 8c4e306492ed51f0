package faults

import (
	"errors"
	"fmt"

	"github.com/leasesim/leasesim/sim"
)

// Apply validates s against the world's node names and schedules every
// event, in the order the events act (one World.Series, which keeps At's
// order), then the heal phase at HealAt (see HealPhase). Node names are
// resolved to ids now, once. Every time in s is true time since the start
// of the run, so none may lie before the world's current time.
//
// A link change that the kernel refuses while the run is under way (it keeps
// at most 65535 distinct link configurations) stops the run through w.Stop
// with an error naming the event.
func (s Schedule) Apply(w *sim.World) error { return s.ApplyWith(w, Roles{}) }

// ApplyWith is Apply with roles resolved by r: an event whose node is a
// role (RoleLeader) acts on the node that holds the role when the event
// acts, or does not act if none does (r.Unapplied is told). Without
// r.Holder a role is a validation error.
func (s Schedule) ApplyWith(w *sim.World, r Roles) error {
	nodes := w.Nodes()
	names := make([]string, len(nodes), len(nodes)+1)
	for i, n := range nodes {
		names[i] = n.Name()
	}
	names = append(names, r.Names()...)
	if err := s.Validate(names); err != nil {
		return err
	}
	now := w.Now()
	if sim.Time(s.HealAt) < now {
		return &ValidationError{Index: -1, Field: "heal_at",
			Err: fmt.Errorf("%v is before the world's current time %v", s.HealAt, now)}
	}
	order := s.order()
	for _, i := range order {
		e := s.Events[i]
		if sim.Time(e.At) < now {
			return &ValidationError{Index: i, Kind: e.Kind, Field: "at",
				Err: fmt.Errorf("%v is before the world's current time %v", e.At, now)}
		}
		if e.Kind == KindStallConns {
			return &ValidationError{Index: i, Kind: e.Kind, Field: "kind",
				Err: errors.New("stall-conns acts on connections, which the event host's message network does not have (the goroutine host applies it)")}
		}
	}
	ats, acts := make([]sim.Time, len(order)), make([]func(), len(order))
	for k, i := range order {
		e := s.Events[i]
		ats[k] = sim.Time(e.At)
		if IsRole(e.Node) {
			acts[k] = e.roleAction(w, i, r)
		} else {
			acts[k] = e.action(w, i)
		}
	}
	// A Series, not an At per event: a plan of hours holds thousands of
	// events, and queued all at once they deepened the event queue for the
	// whole run (a 6-hour swarm's held 2,900 events on average, 77 in ten
	// minutes). The order among other events is At's.
	w.Series(len(acts), func(k int) sim.Time { return ats[k] }, func(k int) { acts[k]() })
	w.At(sim.Time(s.HealAt), func() { HealPhase(w) })
	return nil
}

// HealPhase ends every fault at once: it disarms every failpoint, heals
// every partition, resets every link, sets every drifting clock back to the
// true rate, resumes paused nodes and restarts crashed ones, in that order
// and in node order. Wall-clock steps are not undone: a stepped clock stays
// where it is, as after a real NTP step. Apply runs it at a schedule's
// HealAt; after it no scheduled fault acts.
func HealPhase(w *sim.World) {
	for _, n := range w.Nodes() {
		n.DisarmFailpoints()
	}
	w.Network().Heal()
	w.Network().ResetLinks()
	for _, n := range w.Nodes() {
		if n.DriftPPB() != 0 {
			n.SetDrift(0)
		}
		switch n.State() {
		case sim.Paused:
			n.Resume()
		case sim.Crashed:
			n.Restart()
		}
	}
}

// action resolves e's node names in w and returns the call that applies it.
// e has been validated; index names it in a run-time error.
func (e Event) action(w *sim.World, index int) func() {
	net := w.Network()
	switch e.Kind {
	case KindPartition:
		groups := resolveGroups(w, e.Groups)
		if len(groups) == 2 {
			return func() { net.Partition(groups[0], groups[1]) }
		}
		return func() { net.Split(groups...) }
	case KindBridge:
		groups, bridge := resolveGroups(w, e.Groups), lookup(w, e.Bridge).ID()
		return func() { net.Bridge(groups[0], groups[1], bridge) }
	case KindPartitionOneWay:
		from, to := lookup(w, e.From).ID(), lookup(w, e.To).ID()
		return func() { net.PartitionOneWay(from, to) }
	case KindIsolate:
		id := lookup(w, e.Node).ID()
		return func() { net.Isolate(id) }
	case KindHeal:
		return net.Heal
	case KindLink:
		return linkAction(w, e, index)
	case KindLinkReset:
		return net.ResetLinks
	}
	return e.nodeAction(lookup(w, e.Node))
}

// nodeAction returns the call that applies a process or clock fault to n.
func (e Event) nodeAction(n *sim.Node) func() {
	switch e.Kind {
	case KindDrift:
		drift := e.Drift
		return func() { n.SetDrift(drift) }
	case KindStep:
		step := e.Step
		return func() { n.StepWall(step) }
	case KindPause:
		d := e.Duration
		return func() { n.Pause(d) }
	case KindCrash:
		return n.Crash
	case KindRestart:
		return n.Restart
	case KindFailpoint:
		name, action, d := e.Failpoint, sim.FailCrash, e.Duration
		if e.Action == ActionPause {
			action = sim.FailPause
		}
		return func() { n.ArmFailpoint(name, action, d) }
	}
	panic(fmt.Sprintf("faults: invariant validated-kind: Apply met kind %q", e.Kind))
}

// linkAction reconfigures every link the event's from and to select, in node
// order, skipping a node's link to itself.
func linkAction(w *sim.World, e Event, index int) func() {
	froms, tos := selectNodes(w, e.From), selectNodes(w, e.To)
	cfg := *e.Link // the schedule may be changed after Apply; the run must not see it
	return func() {
		for _, from := range froms {
			for _, to := range tos {
				if from == to {
					continue
				}
				if err := w.Network().SetLink(from, to, cfg); err != nil {
					w.Stop(fmt.Errorf("faults: event %d (link): %w", index, err))
					return
				}
			}
		}
	}
}

// selectNodes resolves a link end: one node, or every node for AnyNode.
func selectNodes(w *sim.World, name string) []sim.NodeID {
	if name != AnyNode {
		return []sim.NodeID{lookup(w, name).ID()}
	}
	ids := make([]sim.NodeID, len(w.Nodes()))
	for i, n := range w.Nodes() {
		ids[i] = n.ID()
	}
	return ids
}

func resolveGroups(w *sim.World, groups [][]string) [][]sim.NodeID {
	out := make([][]sim.NodeID, len(groups))
	for i, g := range groups {
		out[i] = make([]sim.NodeID, len(g))
		for j, name := range g {
			out[i][j] = lookup(w, name).ID()
		}
	}
	return out
}

// lookup returns a node that validation has proved exists.
func lookup(w *sim.World, name string) *sim.Node {
	n, ok := w.Lookup(name)
	if !ok {
		panic(fmt.Sprintf("faults: invariant validated-node: node %q vanished after validation", name))
	}
	return n
}
