package checker

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
)

// cut is a fault window that cut some holders off from the lease store:
// they could neither renew nor be heard.
type cut struct {
	start history.Time
	all   bool     // everyone (the store itself was cut off)
	nodes []string // who, unless all
}

func (c cut) cuts(node string) bool { return c.all || slices.Contains(c.nodes, node) }

// storeMembers are the nodes of the lease store: its members, if it is
// replicated (History.Leaders, else History.Members), else its grantor. A holder is cut off from
// it when it reaches fewer than a quorum of them: a majority of a
// replicated store's members, the grantor of a single one.
type storeMembers struct {
	names  []string
	quorum int
}

// storeOf returns h's lease store: every member a leader named, else the
// grantor; none if the history names no grantor (then only a holder's own
// crash or isolation cuts it off).
func storeOf(h *history.History) storeMembers {
	var names []string
	for _, l := range h.Leaders {
		for _, m := range l.Members {
			if !slices.Contains(names, m) {
				names = append(names, m)
			}
		}
	}
	if len(names) == 0 {
		names = slices.Clone(h.Members)
	}
	if len(names) == 0 && h.Grantor != "" {
		names = []string{h.Grantor}
	}
	quorum := 0
	if len(names) > 0 {
		quorum = len(names)/2 + 1
	}
	return storeMembers{names: names, quorum: quorum}
}

func (s storeMembers) member(node string) bool { return slices.Contains(s.names, node) }

// cutOff reports whether a holder that reaches only reachable members is
// cut off from the store.
func (s storeMembers) cutOff(reachable int) bool { return reachable < s.quorum }

// cutsFromStore turns the fault windows into cuts: a holder's crash or
// isolation; an isolation of a member, or a one-way partition between a
// holder and a member in either direction, that leaves fewer than a
// quorum of members (on a single grantor: the grantor itself isolated cuts
// everyone, a one-way partition cuts the holder); a partition that puts a
// holder in a group with fewer than a quorum of members (members in no
// group keep their links). A member's crash is not a holder's failure and
// is left out, unless the member holds a lease itself (a raft node whose
// leadership is the lease): then its crash, its isolation and a partition
// that leaves it with fewer than a quorum of members cut it off. Each
// window is judged alone, not with the windows it overlaps.
func cutsFromStore(h *history.History) []cut {
	store := storeOf(h)
	holding := make(map[string]bool) // the members that hold a lease themselves; looked up, never iterated
	for _, b := range h.Beliefs {
		if store.member(b.Holder) {
			holding[b.Holder] = true
		}
	}
	holds := func(node string) bool { return holding[node] }
	var cuts []cut
	for _, w := range h.Faults {
		c := cut{start: w.Start}
		switch w.Kind {
		case history.FaultCrash:
			if !store.member(w.Node()) || holds(w.Node()) {
				c.nodes = []string{w.Node()}
			}
		case history.FaultIsolate:
			if store.member(w.Node()) {
				c.all = store.cutOff(len(store.names) - 1)
				if !c.all && holds(w.Node()) && store.cutOff(1) {
					c.nodes = []string{w.Node()}
				}
			} else {
				c.nodes = []string{w.Node()}
			}
		case history.FaultPartitionOneWay:
			a, b := w.Node(), w.Peer()
			if store.member(a) != store.member(b) && store.cutOff(len(store.names)-1) {
				c.nodes = []string{a}
				if store.member(a) {
					c.nodes = []string{b}
				}
			}
		case history.FaultPartition, history.FaultSplit, history.FaultBridge:
			c.nodes = cutByGroups(w, store, holds)
		}
		if c.all || len(c.nodes) > 0 {
			cuts = append(cuts, c)
		}
	}
	// In order of start (firstCut searches them): a simulator's windows
	// are already, a history file's need not be.
	slices.SortStableFunc(cuts, func(a, b cut) int { return cmp.Compare(a.start, b.start) })
	return cuts
}

// cutByGroups returns the nodes, not the store's unless they hold a lease
// (holds), that a partition window puts in a group with fewer than a
// quorum of the store's members. A node in no group keeps its links (a
// split's bystander, a bridge), so a member in none is reached from every
// group.
func cutByGroups(w history.FaultWindow, store storeMembers, holds func(string) bool) []string {
	groups := parseGroups(w.Detail)
	bystanders := len(store.names)
	for _, g := range groups {
		for _, n := range g {
			if store.member(n) {
				bystanders--
			}
		}
	}
	var cut []string
	for _, g := range groups {
		reachable := bystanders
		for _, n := range g {
			if store.member(n) {
				reachable++
			}
		}
		if !store.cutOff(reachable) {
			continue
		}
		for _, n := range g {
			if !store.member(n) || holds(n) {
				cut = append(cut, n)
			}
		}
	}
	return cut
}

// parseGroups reads the groups of a partition's detail, "[a b] | [c]".
func parseGroups(detail string) [][]string {
	var groups [][]string
	for part := range strings.SplitSeq(detail, "|") {
		part = strings.TrimSpace(part)
		part = strings.TrimSuffix(strings.TrimPrefix(part, "["), "]")
		if names := strings.Fields(part); len(names) > 0 {
			groups = append(groups, names)
		}
	}
	return groups
}

// failovers measures, for every belief during which its holder was cut off
// from the lease store (the first cut that began within it: cutsFromStore), the time from the
// cut until the resource is held again: the next new grant of the resource
// to another holder, or the first grant to the same holder for a request it
// sent after the cut (a crashed holder restarted, or an isolated one
// reconnected, and took its own lease back), whichever came first. A cut
// with neither before the run ended is unresolved.
//
// A grant is a successful acquire, when the grantor processed it; a belief
// under a token that no recorded acquire issued is a grant at the
// belief's start (a store whose grants are not acquire replies: the
// lessor grants a lease and creates a key, an expiring-key store sets
// one), as the rework metric reads it. On leasesim's lease store every
// belief's token comes from an acquire, so its figures are those of the
// acquire replies alone.
func failovers(a *analysis) (samples []time.Duration, unresolved int) {
	h := a.h
	cuts := cutsFromStore(h)
	if len(cuts) == 0 {
		return nil, 0
	}
	grants, own, issued := acquireGrants(a)
	addBeliefGrants(h, grants, own, issued)
	for i := range h.Beliefs {
		b := &h.Beliefs[i]
		at, ok := firstCut(cuts, b)
		if !ok {
			continue
		}
		other, okOther := nextGrant(grants[b.Resource], at, b.Holder)
		back, okBack := takenBack(own[[2]string{b.Resource, b.Holder}], at)
		switch {
		case okOther && okBack:
			samples = append(samples, min(other, back).Sub(at))
		case okOther:
			samples = append(samples, other.Sub(at))
		case okBack:
			samples = append(samples, back.Sub(at))
		default:
			unresolved++
		}
	}
	slices.Sort(samples)
	return samples, unresolved
}

// ownGrant is a successful acquire: when its request was sent and when the
// grantor processed it.
type ownGrant struct{ call, at history.Time }

// acquireGrants reads the successful acquires, in processed order, in one
// pass: the new grants of each resource (grants), every successful acquire
// by (resource, holder), re-confirmations included (own), and the tokens
// issued on each resource (issued).
func acquireGrants(a *analysis) (grants map[string][]newGrant, own map[[2]string][]ownGrant,
	issued map[resourceToken]bool) {
	grants, own, issued = make(map[string][]newGrant), make(map[[2]string][]ownGrant), make(map[resourceToken]bool)
	t := newGrantTracker()
	var op history.Operation
	for i, r := range a.inProcessedOrder() {
		if !r.grantorOK(opAcquire) {
			continue
		}
		a.h.LoadOp(i, &op)
		res := op.Input.Resource
		key := [2]string{res, op.Client}
		own[key] = append(own[key], ownGrant{call: op.Call, at: op.Processed})
		if kind, _ := t.observe(&op); kind.isNew() {
			grants[res] = append(grants[res], newGrant{at: op.Processed, holder: op.Client})
		}
		issued[resourceToken{resource: res, token: op.Output.Token}] = true
	}
	return grants, own, issued
}

// takenBack returns when the first grant for a request sent after at was
// processed.
func takenBack(gs []ownGrant, at history.Time) (history.Time, bool) {
	for _, g := range gs {
		if g.call > at {
			return g.at, true
		}
	}
	return 0, false
}

// firstCut returns when b's holder was first cut off while it believed.
// cuts are in order of start (cutsFromStore): it looks only at those that
// began within the belief, so a long run's thousands of beliefs and cuts
// cost a search each instead of a scan of every cut.
func firstCut(cuts []cut, b *history.BeliefInterval) (history.Time, bool) {
	i, _ := slices.BinarySearchFunc(cuts, b.Start, func(c cut, t history.Time) int { return cmp.Compare(c.start, t) })
	for _, c := range cuts[i:] {
		if c.start > b.End {
			break
		}
		if c.cuts(b.Holder) {
			return c.start, true
		}
	}
	return 0, false
}

// newGrant is a grant that was not a re-confirmation.
type newGrant struct {
	at     history.Time
	holder string
}

// nextGrant returns the first grant at or after at to another holder than
// holder.
func nextGrant(gs []newGrant, at history.Time, holder string) (history.Time, bool) {
	i, _ := slices.BinarySearchFunc(gs, at, func(g newGrant, t history.Time) int { return cmp.Compare(g.at, t) })
	for ; i < len(gs); i++ {
		if gs[i].holder != holder {
			return gs[i].at, true
		}
	}
	return 0, false
}

// addBeliefGrants adds the grants that only beliefs show: each belief
// under a token no recorded acquire on its resource issued (issued) is a
// grant processed, and requested, at its start: new unless it is under
// the same holder, incarnation and token as the resource's previous such
// belief (a belief regained by a renewal). grants stays in time order.
func addBeliefGrants(h *history.History, grants map[string][]newGrant, own map[[2]string][]ownGrant,
	issued map[resourceToken]bool) {
	latest := make(map[string]grantID)
	added := make(map[string]bool)
	for _, i := range beliefStartsInOrder(h.Beliefs) {
		b := &h.Beliefs[i]
		if issued[resourceToken{resource: b.Resource, token: b.Token}] {
			continue
		}
		key := [2]string{b.Resource, b.Holder}
		own[key] = append(own[key], ownGrant{call: b.Start, at: b.Start})
		id := grantID{holder: b.Holder, incarnation: b.Incarnation, token: b.Token}
		if prev, ok := latest[b.Resource]; ok && prev == id {
			continue
		}
		latest[b.Resource] = id
		grants[b.Resource] = append(grants[b.Resource], newGrant{at: b.Start, holder: b.Holder})
		added[b.Resource] = true
	}
	for res := range added {
		slices.SortStableFunc(grants[res], func(a, b newGrant) int { return cmp.Compare(a.at, b.at) })
	}
	for key, gs := range own {
		if added[key[0]] {
			slices.SortStableFunc(gs, func(a, b ownGrant) int { return cmp.Compare(a.at, b.at) })
		}
	}
}
