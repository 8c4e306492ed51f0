package scenarios

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// beliefTracker turns holders' lease events into belief intervals in true
// time. A belief ends at the earliest of the holder's own deadline (mapped
// back to true time through its clock, so a pause does not stretch it), a
// release, a loss, a fence, or a crash (applied after the run from the fault
// log). Actions under a token stretch its belief to the instant they were
// decided.
//
// Every lookup is indexed, so its cost does not grow with the number of
// open beliefs or with the history: open beliefs by (node, resource), the
// latest belief by (node, resource, token). Each node remembers its last
// lookup of each kind (nodeBeliefs), which a holder's renewals and actions
// repeat, and which then costs no hash.
type beliefTracker struct {
	w *sim.World
	h *history.History
	// beliefs are the beliefs in the order they began; finish builds the
	// history's table from them at its final size. A chunked table: beliefs
	// are updated in place by index while the run goes, and never moved.
	beliefs chunked[history.BeliefInterval]
	open    []openBelief        // in no particular order
	openAt  map[openKey]int32   // index into open; looked up, never iterated
	latest  map[beliefKey]int32 // the latest belief per (node, resource, token), into beliefs; looked up, never iterated
	// perNode counts each node's open beliefs (by node id); they all
	// belong to the incarnation that opened them, since a grant to a new
	// incarnation first closes the previous one's.
	perNode []nodeBeliefs
}

type openKey struct {
	node     sim.NodeID
	resource string
}

type beliefKey struct {
	node     sim.NodeID
	resource string
	token    uint64
}

type nodeBeliefs struct {
	open        int
	incarnation uint64
	// found is 1 + the index into open of the node's belief that find last
	// returned, 0 if none; the belief may have closed or moved since, so
	// find checks it is still the node's in that resource.
	found int32
	// acted is the (resource, token) of the node's last action and actedIn
	// 1 + its belief's index into beliefs (latest's), 0 if none; a
	// belief appended for the node clears it.
	acted   beliefKey
	actedIn int32
}

type openBelief struct {
	node        *sim.Node
	incarnation uint64 // a restarted holder believes afresh
	resource    string
	index       int32         // into beliefTracker.beliefs
	deadline    time.Duration // holder's local monotonic deadline
}

func newBeliefTracker(w *sim.World, h *history.History) beliefTracker {
	return beliefTracker{w: w, h: h, openAt: make(map[openKey]int32), latest: make(map[beliefKey]int32)}
}

type beliefObserver struct {
	t *beliefTracker
	n *sim.Node
}

func (o beliefObserver) Observe(ev lease.Event) {
	markEvent(o.t.w, o.n, ev)
	switch ev.Kind {
	case lease.EventGrant:
		o.t.grant(o.n, ev.Resource, ev.Token, ev.Deadline)
	case lease.EventRenew:
		o.t.renew(o.n, ev.Resource, ev.Token, ev.Deadline)
	case lease.EventLost:
		o.t.end(o.n, ev.Resource, ev.Token, history.EndLost)
	case lease.EventFenced:
		o.t.end(o.n, ev.Resource, ev.Token, history.EndFenced)
	case lease.EventRelease:
		o.t.end(o.n, ev.Resource, ev.Token, history.EndRelease)
	}
}

// find returns the open belief of n's current incarnation in resource.
func (t *beliefTracker) find(n *sim.Node, resource string) int {
	nb := t.node(n.ID())
	i := nb.found - 1
	if i < 0 || int(i) >= len(t.open) || t.open[i].node.ID() != n.ID() || t.open[i].resource != resource {
		var ok bool
		if i, ok = t.openAt[openKey{n.ID(), resource}]; !ok {
			return -1
		}
		nb.found = i + 1
	}
	if t.open[i].incarnation != n.Incarnation() {
		return -1
	}
	return int(i)
}

// node returns the open-belief count of node id.
func (t *beliefTracker) node(id sim.NodeID) *nodeBeliefs {
	for int(id) >= len(t.perNode) {
		t.perNode = append(t.perNode, nodeBeliefs{})
	}
	return &t.perNode[id]
}

func (t *beliefTracker) grant(n *sim.Node, resource string, token uint64, deadline time.Duration) {
	if nb := t.node(n.ID()); nb.open > 0 && nb.incarnation != n.Incarnation() {
		for i := len(t.open) - 1; i >= 0; i-- {
			if i < len(t.open) && t.open[i].node == n {
				t.close(i, history.EndCrash) // a previous incarnation's belief; the crash cut ends it
			}
		}
	}
	if i := t.find(n, resource); i >= 0 {
		if t.belief(t.open[i].index).Token == token {
			t.open[i].deadline = max(t.open[i].deadline, deadline)
			return
		}
		t.close(i, history.EndLost)
	}
	t.appendBelief(n, history.BeliefInterval{Holder: n.Name(), Incarnation: n.Incarnation(), Resource: resource, Token: token,
		Start: history.Time(t.w.Now()), End: history.Never, LastAct: history.Unknown})
	t.openAt[openKey{n.ID(), resource}] = int32(len(t.open))
	t.open = append(t.open, openBelief{node: n, incarnation: n.Incarnation(), resource: resource,
		index: t.beliefs.n - 1, deadline: deadline})
	nb := t.node(n.ID())
	nb.open++
	nb.incarnation = n.Incarnation()
}

// appendBelief adds b, held by n, to the beliefs and indexes it.
func (t *beliefTracker) appendBelief(n *sim.Node, b history.BeliefInterval) {
	t.latest[beliefKey{n.ID(), b.Resource, b.Token}] = t.beliefs.add(b)
	t.node(n.ID()).actedIn = 0
}

// belief returns belief i.
func (t *beliefTracker) belief(i int32) *history.BeliefInterval { return t.beliefs.at(i) }

func (t *beliefTracker) renew(n *sim.Node, resource string, token uint64, deadline time.Duration) {
	if i := t.find(n, resource); i >= 0 && t.belief(t.open[i].index).Token == token {
		t.open[i].deadline = max(t.open[i].deadline, deadline)
	}
}

func (t *beliefTracker) end(n *sim.Node, resource string, token uint64, reason history.EndReason) {
	if i := t.find(n, resource); i >= 0 && t.belief(t.open[i].index).Token == token {
		t.close(i, reason)
	}
}

// close ends open belief i now, or at its deadline if that came first. The
// last open belief takes its place.
func (t *beliefTracker) close(i int, reason history.EndReason) {
	ob := t.open[i]
	b := t.belief(ob.index)
	b.End, b.Reason = history.Time(t.w.Now()), reason
	if dl := history.Time(ob.node.TrueTimeOf(ob.deadline)); dl < b.End {
		b.End, b.Reason = dl, history.EndDeadline
	}
	b.End = max(b.End, b.Start, b.LastAct)
	delete(t.openAt, openKey{ob.node.ID(), ob.resource})
	t.node(ob.node.ID()).open--
	last := len(t.open) - 1
	if i != last {
		t.open[i] = t.open[last]
		t.openAt[openKey{t.open[i].node.ID(), t.open[i].resource}] = int32(i)
	}
	t.open[last] = openBelief{}
	t.open = t.open[:last]
}

// act stretches the belief in (n, resource, token) to now.
func (t *beliefTracker) act(n *sim.Node, resource string, token uint64) {
	now := history.Time(t.w.Now())
	key, nb := beliefKey{n.ID(), resource, token}, t.node(n.ID())
	i, ok := nb.actedIn-1, nb.actedIn > 0 && nb.acted == key
	if !ok {
		if i, ok = t.latest[key]; ok {
			nb.acted, nb.actedIn = key, i+1
		}
	}
	if ok {
		b := t.belief(i)
		b.LastAct = now
		if b.End != history.Never && b.End < now {
			b.End = now
		}
		return
	}
	// Acting under a token it was never seen to receive: a belief of one instant.
	t.appendBelief(n, history.BeliefInterval{Holder: n.Name(), Incarnation: n.Incarnation(), Resource: resource, Token: token,
		Start: now, End: now, Reason: history.EndLost, LastAct: now, Inferred: true})
}

// finish closes every belief still open when the run ends, then builds the
// history's beliefs, each cut at the first crash of its holder after it
// began.
func (t *beliefTracker) finish(crashes map[string][]history.Time) {
	for len(t.open) > 0 {
		t.close(len(t.open)-1, history.EndRun)
	}
	beliefs := sized[[]history.BeliefInterval](int(t.beliefs.n))
	for i := range beliefs {
		b := &beliefs[i]
		*b = *t.belief(int32(i))
		for _, c := range crashes[b.Holder] {
			if c >= b.Start && c < b.End {
				b.End, b.Reason = c, history.EndCrash
				break
			}
		}
		if b.Start > b.End || (b.LastAct != history.Unknown && (b.LastAct < b.Start || b.LastAct > b.End)) {
			panic(fmt.Sprintf("scenarios: invariant belief-span-ordered: %s %q token %d: start %d, last act %d, end %d",
				b.Holder, b.Resource, b.Token, b.Start, b.LastAct, b.End))
		}
	}
	t.h.Beliefs = beliefs
}
