package scenarios

import (
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// The scenarios of a replicated lease store (lease.Impl.Members > 1). Its
// first member is GrantorNode, which the store makes its first leader, so
// a fault on GrantorNode early in a run hits the leader; the others are
// named as lease.MemberAddrs names them. A scenario whose schedule names a
// further member needs that many members, and is skipped for a smaller
// store (Supports).

// member returns the name of the store's i-th member (1-based).
func member(i int) string { return string(lease.MemberAddrs(GrantorNode, i)[i-1]) }

// replicatedLoad is the contention the replicated scenarios share: three
// holders, writing every 250 ms.
func replicatedLoad() LockLoad {
	return LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 250 * time.Millisecond}
}

// membersNeeded is how many members the scenario's schedule names (1 if
// it names none beyond GrantorNode), and why: a further member by name, or
// the leader as a role (faults.RoleLeader), which needs three, so that a
// new leader is elected while the paused one is away.
func (s Scenario) membersNeeded() (int, string) {
	need, why := 1, ""
	names := func(e faults.Event) []string {
		out := []string{e.Node, e.From, e.To, e.Bridge}
		for _, g := range e.Groups {
			out = append(out, g...)
		}
		return out
	}
	for _, e := range s.Faults.Events {
		for _, n := range names(e) {
			if base, i, ok := lease.ParseMember(lease.Addr(n), 9); ok && i > 0 && base == GrantorNode && i+1 > need {
				need = i + 1
				why = fmt.Sprintf("the schedule acts on %s, a store's %s member (lease.Impl.Members)", n, ordinal(need))
			}
			if faults.IsRole(n) && need < 3 {
				need = 3
				why = fmt.Sprintf("the schedule acts on %s, a replicated store's leader, which the others replace (lease.Impl.Members)", n)
			}
		}
	}
	return need, why
}

// LeaderChanged: a member other than GrantorNode (the first leader)
// answered a request successfully, so leadership moved.
func LeaderChanged() Premise {
	return Premise{
		Name: "leadership moved to another member",
		Holds: func(h *history.History) (bool, string) {
			for _, op := range h.AllOps() {
				if op.Server != "" && op.Server != GrantorNode && op.Server != StoreNode && op.Output.Err == "" &&
					slices.Contains([]string{"grant_reply", "keepalive_reply", "create_reply"}, op.Output.Kind) {
					return true, fmt.Sprintf("%s answered %s at %v", op.Server, op.Output.Kind, time.Duration(op.Processed))
				}
			}
			return false, "only " + GrantorNode + " ever answered: leadership never moved"
		},
	}
}

// LeaderPartitionMinority cuts the leader off from one follower.
func LeaderPartitionMinority() Scenario {
	return Scenario{
		Name: "leader-partition-minority",
		Doc:  "replicated store: the leader is cut off from a minority of members; nothing may change for holders",
		Story: "A three-member store, its first member leading. At 8 s the leader loses its links to the third " +
			"member for four TTLs, then the same with the second; it keeps a quorum throughout, so it must stay " +
			"leader, keep answering keepalives and never let two holders believe at once.",
		Config:     baseConfig(),
		Contenders: 3,
		Lock:       replicatedLoad(),
		Faults: faults.Schedule{Events: []faults.Event{
			{At: 8 * time.Second, Kind: faults.KindPartition, Groups: [][]string{{GrantorNode}, {member(3)}}},
			{At: 8*time.Second + 4*ttl, Kind: faults.KindHeal},
			{At: 40 * time.Second, Kind: faults.KindPartition, Groups: [][]string{{GrantorNode}, {member(2)}}},
			{At: 40*time.Second + 4*ttl, Kind: faults.KindHeal},
		}},
		Premises: []Premise{
			FaultWhileLeaseLive("the leader lost a follower while a lease was live", []string{history.FaultPartition}),
		},
		Duration: 90 * time.Second,
		HealAt:   70 * time.Second,
	}
}

// LeaderPartitionMajority cuts a member, the leader first, off from the
// others together with two of the holders.
func LeaderPartitionMajority() Scenario {
	var evs []faults.Event
	for i := 1; i <= 3; i++ {
		// Half an election timeout off the second: the leader's quorum
		// checks run on whole seconds of its term, so a cut in between
		// leaves it leading up to two election timeouts after it.
		at := time.Duration(8+(i-1)*27)*time.Second + 500*time.Millisecond
		evs = append(evs,
			faults.Event{At: at, Kind: faults.KindPartition,
				Groups: [][]string{{member(i), "h1", "h3"}, {member(i%3 + 1), member((i+1)%3 + 1), "h2", "h4"}}},
			faults.Event{At: at + 3*ttl, Kind: faults.KindHeal})
	}
	return Scenario{
		Name: "leader-partition-majority",
		Doc:  "replicated store: the leader is cut off from the majority, with two holders on its side",
		Story: "A three-member store, its first member leading. At 8.5 s the leader and holders h1 and h3 are cut " +
			"off from the other two members, h2 and h4 for three TTLs; later the same happens to the second and " +
			"third members (it deposes them if they lead). Holders take 1 s turns, so the lock changes hands on " +
			"the majority's side while the minority's holders still ask the old leader. The majority elects a new " +
			"leader; the old one may go on believing it leads until CheckQuorum steps it down, up to two " +
			"election timeouts after it lost its quorum, which is why a new leader extends every lease by the " +
			"election timeout and why reads and keepalives must be confirmed by a quorum (ReadIndex). No two " +
			"holders may believe at once, and every answer must be linearizable.",
		Config:     baseConfig(),
		Contenders: 4,
		Lock: LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 250 * time.Millisecond, Hold: time.Second,
			Idle: 200 * time.Millisecond},
		Faults: faults.Schedule{Events: evs},
		Premises: []Premise{
			FaultWhileLeaseLive("the leader was cut off while a lease was live", []string{history.FaultPartition}),
			LeaderChanged(),
		},
		Duration: 100 * time.Second,
		HealAt:   85 * time.Second,
	}
}

// LeaderStall pauses the leader past the TTL.
func LeaderStall() Scenario {
	return Scenario{
		Name: "leader-stall",
		Doc:  "replicated store: the leader stalls past the TTL and resumes (etcd #15247)",
		Story: "A three-member store, its first member leading. At 8 s the leader freezes for two TTLs, as an " +
			"etcd leader stuck in fdatasync; the others elect a new leader and holders keep their leases alive " +
			"there. When the old leader resumes every lease looks expired on its clock: it must not revoke them " +
			"(it is no longer the leader), and no two holders may believe at once.",
		Config:     baseConfig(),
		Contenders: 3,
		Lock:       replicatedLoad(),
		Faults: faults.Schedule{Events: []faults.Event{
			{At: 8 * time.Second, Kind: faults.KindPause, Node: GrantorNode, Duration: 2 * ttl},
			{At: 40 * time.Second, Kind: faults.KindPause, Node: member(2), Duration: 2 * ttl},
			{At: 60 * time.Second, Kind: faults.KindPause, Node: member(3), Duration: 2 * ttl},
		}},
		Premises: []Premise{
			FaultWhileLeaseLive("the leader stalled while a lease was live", []string{history.FaultPause}, GrantorNode),
			LeaderChanged(),
		},
		Duration: 90 * time.Second,
		HealAt:   75 * time.Second,
	}
}

// RollingRestart crashes and restarts every member in turn.
func RollingRestart() Scenario {
	var evs []faults.Event
	for round := range 2 {
		for i := 1; i <= 3; i++ {
			at := time.Duration(8+round*30+(i-1)*8) * time.Second
			evs = append(evs, faults.Event{At: at, Kind: faults.KindCrash, Node: member(i)},
				faults.Event{At: at + 2*time.Second, Kind: faults.KindRestart, Node: member(i)})
		}
	}
	return Scenario{
		Name: "rolling-restart",
		Doc:  "replicated store: every member crashes and restarts in turn, twice",
		Story: "A three-member store under a rolling restart: each member in turn crashes and comes back 2 s " +
			"later from its durable log, every 8 s, twice round. Leadership moves at least once per round; leases, " +
			"keys and revisions survive in the log; no two holders may believe at once and tokens only grow.",
		Config:     baseConfig(),
		Contenders: 3,
		Lock:       replicatedLoad(),
		Faults:     faults.Schedule{Events: evs},
		Premises: []Premise{
			FaultWhileLeaseLive("a member crashed while a lease was live", []string{history.FaultCrash}),
			LeaderChanged(),
		},
		Duration: 90 * time.Second,
		HealAt:   70 * time.Second,
	}
}

// LeaderChangeUnderLoad moves leadership again and again while six holders
// take turns at short holds.
func LeaderChangeUnderLoad() Scenario {
	var evs []faults.Event
	for i := range 6 {
		at := time.Duration(6+i*9) * time.Second
		evs = append(evs, faults.Event{At: at, Kind: faults.KindPause, Node: member(i%3 + 1),
			Duration: 2500 * time.Millisecond})
	}
	return Scenario{
		Name: "leader-change-load",
		Doc:  "replicated store: leadership moves every 9 s while six holders take short turns",
		Story: "Six holders take turns at the lock, holding it 2 s each and writing every 100 ms, while " +
			"leadership moves every 9 s: the member believed to lead stalls for 2.5 s, longer than twice the election " +
			"timeout and shorter than the TTL, so a new leader takes over with leases live and requests in " +
			"flight (the pauses cycle through the members, so some hit a follower). Grants, creates and " +
			"keepalives must follow the leader; no two holders may believe at once.",
		Config:     baseConfig(),
		Contenders: 6,
		Lock: LockLoad{Stagger: 300 * time.Millisecond, WriteEvery: 100 * time.Millisecond, Hold: 2 * time.Second,
			Idle: 500 * time.Millisecond},
		Faults: faults.Schedule{Events: evs},
		Premises: []Premise{
			ChangedHands(),
			LeaderChanged(),
		},
		Duration: 75 * time.Second,
		HealAt:   60 * time.Second,
	}
}

// MemberDrift drifts the members' clocks the worst way round within rho.
func MemberDrift() Scenario {
	return Scenario{
		Name: "member-drift",
		Doc:  "replicated store: the leader's clock runs fast and the others' slow, within rho",
		Story: "The first member's clock (the leader's) runs rho (5%) fast, so it expires leases early in " +
			"true time; the others' run rho slow, and so do the holders', which believe as long as they may. At " +
			"20 s the leader stalls for 3.5 s and a slow member takes over; the nemesis isolates and pauses " +
			"holders so that leases really expire and move. Within rho no two holders may believe at once.",
		Config:     driftConfig(),
		Contenders: 3,
		Lock:       replicatedLoad(),
		Faults:     faults.Schedule{Events: memberDrift(driftRho)},
		Nemesis: &faults.Nemesis{
			Targets:         []string{"h1", "h2", "h3"},
			Partitionable:   []string{"h1", "h2", "h3"},
			Kinds:           []faults.Kind{faults.KindIsolate, faults.KindPause},
			FaultsPerMinute: 4,
		},
		Premises: []Premise{DriftApplied(false), LeaderChanged()},
		Duration: 80 * time.Second,
		HealAt:   60 * time.Second,
	}
}

// MemberDriftBeyond drifts the members' clocks three times past rho.
func MemberDriftBeyond() Scenario {
	sc := MemberDrift()
	sc.Name = "member-drift-beyond"
	sc.Doc = "replicated store: members' clocks drift 3x beyond rho: exclusivity may fail, fencing must hold"
	sc.Story = "The same story as member-drift, with drift three times past the bound the holders budget " +
		"for. Exclusivity may fail (P1 reports the assumption exceeded); fencing (P2) must hold."
	sc.Faults = faults.Schedule{Events: memberDrift(3 * driftRho)}
	sc.Premises = []Premise{DriftApplied(true), LeaderChanged()}
	return sc
}

// memberDrift is the worst case for a replicated store's expiry: the
// leader fast, the other members and the holders slow, then a leader
// change.
func memberDrift(rho float64) []faults.Event {
	evs := []faults.Event{{At: 0, Kind: faults.KindDrift, Node: GrantorNode, Drift: rho}}
	for _, n := range []string{member(2), member(3), "h1", "h2", "h3"} {
		evs = append(evs, faults.Event{At: 0, Kind: faults.KindDrift, Node: n, Drift: -rho})
	}
	// 3.5 s: slow followers time out after up to 2.1 s of true time, and
	// the pre-vote and vote take a round trip more.
	return append(evs, faults.Event{At: 20 * time.Second, Kind: faults.KindPause, Node: GrantorNode,
		Duration: 3500 * time.Millisecond})
}

// LeaderChurn pauses whoever leads every 4.5 s while a dead holder's lease
// should run out (etcd #17132).
func LeaderChurn() Scenario {
	var evs []faults.Event
	for at := churnStart; at < churnEnd; at += churnEvery {
		evs = append(evs, faults.Event{At: at, Kind: faults.KindPause, Node: faults.RoleLeader, Duration: churnPause})
	}
	evs = append(evs, faults.Event{At: 12 * time.Second, Kind: faults.KindCrash, Node: "h1"})
	return Scenario{
		Name: "leader-churn",
		Doc:  "replicated store: leadership moves every 4.5 s while a crashed holder's lease must run out (etcd #17132)",
		Story: "A three-member store; h1 takes the lock and h2, h3 wait for it. From 5 s on, every 4.5 s the member " +
			"that leads at that instant stalls for 2.5 s, long enough for the others to elect a new leader. At 12 s h1 " +
			"crashes holding the lock. Each new leader restores every lease at the remaining TTL its predecessors " +
			"checkpointed (every TTL/2) plus the election timeout, so with terms shorter than TTL plus the election " +
			"timeout, but longer than a checkpoint interval plus it, the dead holder's lease still shrinks term by term " +
			"and is revoked after a few leader changes, and the lock passes on. A store that stops checkpointing after " +
			"the first leader (etcd PR #13491) restores the full TTL in every term and keeps the dead lease alive as long " +
			"as leadership keeps moving: P3 bounds how long a lease may outlive its last keepalive across leader changes.",
		Config:     baseConfig(),
		Contenders: 3,
		Lock:       replicatedLoad(),
		Faults:     faults.Schedule{Events: evs},
		Premises:   []Premise{LeaderChangesWhileDeadLeaseLive("h1", 2)},
		Duration:   80 * time.Second,
		HealAt:     60 * time.Second,
	}
}

// The leader-churn schedule: pauses of the leader from churnStart until
// churnEnd, one every churnEvery, each churnPause long. churnEvery lies
// between the checkpoint interval plus the election timeout (3.5 s) and
// the TTL plus it (6 s); churnPause outlasts the longest election timeout
// (2 s) a follower may draw.
const (
	churnStart = 5 * time.Second
	churnEnd   = 58 * time.Second
	churnEvery = 4500 * time.Millisecond
	churnPause = 2500 * time.Millisecond
)

// LeaderChangesWhileDeadLeaseLive: holder crashed while it believed it
// held a lease, and at least atLeast new leader terms began after its
// crash and before another holder came to hold the resource (or the run
// ended).
func LeaderChangesWhileDeadLeaseLive(holder string, atLeast int) Premise {
	return Premise{
		Name: fmt.Sprintf("leadership moved %d times while %s's lease outlived it", atLeast, holder),
		Holds: func(h *history.History) (bool, string) {
			var died history.Time = -1
			var resource string
			for _, b := range h.Beliefs {
				if b.Holder == holder && b.Reason == history.EndCrash {
					died, resource = b.End, b.Resource
					break
				}
			}
			if died < 0 {
				return false, holder + " never crashed while it held a lease"
			}
			next := h.End
			for _, b := range h.Beliefs {
				if b.Resource == resource && b.Holder != holder && b.Start > died && b.Start < next {
					next = b.Start
				}
			}
			n := 0
			for _, l := range h.Leaders {
				if l.Start > died && l.Start <= next {
					n++
				}
			}
			detail := fmt.Sprintf("%s crashed holding %s at %v; %d new leaders until %v", holder, resource,
				time.Duration(died), n, time.Duration(next))
			return n >= atLeast, detail
		},
	}
}
