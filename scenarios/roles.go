package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// leaderMember is what a member of a replicated lease store may offer the
// host (zoo/etcdraft's members do): whether it leads, a hook told of its
// promotions and demotions, and what the store declares about how its
// leader times leases. The host resolves faults.RoleLeader with the first
// and records the history's leader terms (history.LeaderTerm) with the
// others. A store whose members offer none of it has no leader terms, and
// a fault aimed at its leader never acts.
type leaderMember interface {
	Leading() (term uint64, leading bool)
	OnLeadership(f func(term uint64, leading bool))
	LeaderDeclaration() (members []string, extension, checkpointInterval, checkPeriod time.Duration)
}

// leaderMemberOf returns g's leaderMember, behind implementation
// boundaries (and the hook it calls behind a harness boundary), if it
// offers one.
func leaderMemberOf(g lease.Grantor) (leaderMember, bool) {
	if x, ok := g.(guardedGrantor); ok {
		g = x.g
	}
	m, ok := g.(leaderMember)
	if !ok {
		return nil, false
	}
	return guardedLeader{m}, true
}

// guardedLeader puts a leaderMember behind implementation boundaries.
type guardedLeader struct{ m leaderMember }

func (x guardedLeader) Leading() (uint64, bool) {
	return x.m.Leading()
}

func (x guardedLeader) OnLeadership(f func(term uint64, leading bool)) {
	x.m.OnLeadership(func(term uint64, leading bool) { harnessCall(func() { f(term, leading) }) })
}

func (x guardedLeader) LeaderDeclaration() ([]string, time.Duration, time.Duration, time.Duration) {
	return x.m.LeaderDeclaration()
}

// leaders follows the members of a replicated store through a run: it
// resolves role targets and records leader terms. Members are kept in
// node order, so resolving is deterministic.
type leaders struct {
	w         *sim.World
	nodes     []*sim.Node    // the members, in node order
	members   []leaderMember // each member's running incarnation, nil if it offers none
	open      []int          // the index in terms of each member's open term, -1 if none
	terms     []history.LeaderTerm
	unapplied []faults.Event
}

// newLeaders returns the tracker for a store of n members, nil for a
// store of one grantor (nothing to resolve or record).
func newLeaders(w *sim.World, n int) *leaders {
	if n <= 1 {
		return nil
	}
	return &leaders{w: w}
}

// boot takes member i's new incarnation g on node n, closing a term its
// previous incarnation left open when it crashed.
func (l *leaders) boot(i int, n *sim.Node, g lease.Grantor) {
	if l == nil {
		return
	}
	for len(l.nodes) <= i {
		l.nodes, l.members, l.open = append(l.nodes, nil), append(l.members, nil), append(l.open, -1)
	}
	l.nodes[i] = n
	if o := l.open[i]; o >= 0 {
		l.terms[o].End = l.lastCrash(n.Name(), l.terms[o].Start)
		l.open[i] = -1
	}
	m, ok := leaderMemberOf(g)
	if !ok {
		l.members[i] = nil
		return
	}
	l.members[i] = m
	m.OnLeadership(func(term uint64, leading bool) { l.change(i, term, leading) })
	if term, leading := m.Leading(); leading {
		l.change(i, term, true)
	}
}

// change records member i's promotion (a term opens) or demotion (its
// open term closes), now.
func (l *leaders) change(i int, term uint64, leading bool) {
	now := history.Time(l.w.Now())
	if o := l.open[i]; o >= 0 {
		l.terms[o].End = now
		l.open[i] = -1
	}
	if !leading {
		return
	}
	members, ext, cp, check := l.members[i].LeaderDeclaration()
	l.open[i] = len(l.terms)
	l.terms = append(l.terms, history.LeaderTerm{Server: l.nodes[i].Name(), Members: members, Term: term, Start: now,
		End: now, Extension: ext, CheckpointInterval: cp, CheckPeriod: check})
}

// lastCrash is when node last crashed at or after since, by the kernel's
// fault log; now if it did not.
func (l *leaders) lastCrash(node string, since history.Time) history.Time {
	log := l.w.Faults()
	for i := len(log) - 1; i >= 0; i-- {
		if f := log[i]; f.Kind == sim.FaultCrash && f.Node == node && history.Time(f.At) >= since {
			return history.Time(f.At)
		}
	}
	return history.Time(l.w.Now())
}

// holder names the member that leads now: one that is up (not paused or
// crashed) and says it leads, the highest term first, then node order.
func (l *leaders) holder(role string) (string, bool) {
	if role != faults.RoleLeader {
		return "", false
	}
	best, bestTerm := -1, uint64(0)
	for i, m := range l.members {
		if m == nil || l.nodes[i].State() != sim.Up {
			continue
		}
		if term, leading := m.Leading(); leading && (best < 0 || term > bestTerm) {
			best, bestTerm = i, term
		}
	}
	if best < 0 {
		return "", false
	}
	return l.nodes[best].Name(), true
}

// roles is the resolver a run's schedule is applied with: none for a store
// of one grantor.
func (l *leaders) roles() faults.Roles {
	if l == nil {
		return faults.Roles{}
	}
	return faults.Roles{Holder: l.holder, Unapplied: func(_ int, e faults.Event) { l.unapplied = append(l.unapplied, e) }}
}

// finish closes the terms still open when the run ended (at the member's
// crash if it crashed after the term began) and returns every term, in
// the order they began.
func (l *leaders) finish() []history.LeaderTerm {
	if l == nil {
		return nil
	}
	for i, o := range l.open {
		if o >= 0 {
			l.terms[o].End = l.lastCrash(l.nodes[i].Name(), l.terms[o].Start)
			l.open[i] = -1
		}
	}
	return l.terms
}

// roleNodes returns the roles a run against impl resolves, to be listed
// with its nodes: the leader, for a replicated store.
func roleNodes(impl lease.Impl) []string {
	if impl.Members <= 1 {
		return nil
	}
	return []string{faults.RoleLeader}
}

// nodesOnly returns names without roles.
func nodesOnly(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !faults.IsRole(n) {
			out = append(out, n)
		}
	}
	return out
}
