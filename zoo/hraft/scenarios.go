package hraft

import (
	"fmt"
	"slices"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/scenarios"
)

// The client nodes of every story: a writer and two readers.
const (
	WriterNode = "c1"
	ReaderNode = "c2"
	Reader2    = "c3"
)

// Setup is one run's cast: the cluster, its clients, the duration and the
// explicit faults.
type Setup struct {
	Cluster  ClusterConfig
	Duration time.Duration
	Schedule faults.Schedule
}

// Config is the gohost run of the setup. The members are the lease store
// of the history (Grantor "raft", and "raft2", … as its further members,
// all named in Members, so that failover knows which side keeps a quorum),
// the register operations are judged by P3 against the register
// specification (model.RegisterSpec, written with token 0, so every write
// is accepted: a plain register), and the leader's belief is judged by P1
// with the lease configuration raft declares (see doc.go).
func (s Setup) Config() gohost.Config {
	c := s.Cluster
	members := c.memberNames()
	cfg := gohost.Config{Duration: s.Duration, Schedule: s.Schedule, SeedMathRand: true,
		History: gohost.HistoryConfig{Spec: model.RegisterSpec().Name, Grantor: members[0], Members: members, Lease: c.lease(),
			Contended: []string{LeaderResource}}}
	for i, name := range members {
		cfg.Nodes = append(cfg.Nodes, gohost.NodeSpec{Name: name, Run: Member(c, i)})
	}
	cfg.Nodes = append(cfg.Nodes,
		gohost.NodeSpec{Name: WriterNode, Run: Client(members, DefaultWriter)},
		gohost.NodeSpec{Name: ReaderNode, Run: Client(members, DefaultReader)},
		gohost.NodeSpec{Name: Reader2, Run: Client(members, DefaultReader)})
	return cfg
}

// lease is what raft declares about leadership as a lease: a leader that
// has not heard from a quorum for LeaderLeaseTimeout steps down (TTL), it
// hears from them every heartbeat (HeartbeatTimeout/10, RenewInterval), and
// a follower waits up to twice the heartbeat timeout before it campaigns,
// then up to twice the election timeout per round (BackoffMax, which P4's
// bound reads). raft's timers run on time.Now, the bubble's one clock,
// which no fault drifts: rho is 0.
func (c ClusterConfig) lease() history.Lease {
	t := c.Timing
	return history.Lease{TTL: t.LeaderLease, RenewInterval: t.Heartbeat / 10, RequestTimeout: c.TransportTimeout,
		BackoffMax: 2*t.Heartbeat + 2*t.Election}
}

// cluster returns the default cluster of n members serving reads so, on
// timing t.
func cluster(t Timing, n int, reads Reads) ClusterConfig {
	c := DefaultCluster
	c.Members, c.Reads, c.Timing = n, reads, t
	return c
}

// configName names a configuration: "3-fsm-reads".
func configName(n int, reads Reads) string { return fmt.Sprintf("%d-%s", n, reads) }

// Scenarios returns every story of the module in its configurations.
func Scenarios() []scenarios.Scenario { return stories(DefaultTiming) }

// stories returns every story on timing t.
func stories(t Timing) []scenarios.Scenario {
	var out []scenarios.Scenario
	for _, n := range []int{3, 5} {
		for _, r := range []Reads{FSMReads, VerifiedReads} {
			out = append(out, partition(t, n, r), crashRestart(t, n, r))
		}
	}
	for _, r := range []Reads{FSMReads, VerifiedReads} {
		out = append(out, readPause(t, r), ioPause(t, r), diskStall(t, r), churn(t, r))
	}
	return out
}

// schedule is a schedule with events and the heal at heal.
func schedule(heal time.Duration, evs ...faults.Event) faults.Schedule {
	return faults.Schedule{Version: faults.Version, HealAt: heal, Events: evs}
}

// leaderFaulted is the premise that the first leader was hit while it led.
func leaderFaulted(what string, kinds ...string) scenarios.Premise {
	return scenarios.FaultWhileHolding(what, 0, []string{MemberName(0)}, kinds...)
}

// Partition cuts the leader and a reader off from the majority: the
// leader keeps believing until its leader lease runs out without a
// quorum (LeaderLeaseTimeout, 500 ms), and the majority elects a new
// leader no sooner than a heartbeat timeout (1 s) after it last heard
// from it, so the beliefs should not overlap. The reader on the
// minority side keeps asking the old leader.
func Partition(n int, reads Reads) scenarios.Scenario { return partition(DefaultTiming, n, reads) }

func partition(t Timing, n int, reads Reads) scenarios.Scenario {
	members := cluster(t, n, reads).memberNames()
	return scenarios.Scenario{
		Name:  "hraft-partition/" + configName(n, reads),
		Doc:   fmt.Sprintf("the leader and a reader are cut off from the majority (%d members, %s)", n, reads),
		Story: "raft leads; at 8 s raft and c2 are cut off from the other members and c1, c3 until 20 s.",
		Goroutines: func(uint64) gohost.Config {
			minority := []string{members[0], ReaderNode}
			majority := append(append([]string{}, members[1:]...), WriterNode, Reader2)
			return Setup{Cluster: cluster(t, n, reads), Duration: 30 * time.Second, Schedule: schedule(20*time.Second,
				faults.Event{At: 8 * time.Second, Kind: faults.KindPartition, Groups: [][]string{minority, majority}})}.Config()
		},
		Premises: []scenarios.Premise{leaderFaulted("the leader was cut off while it led", history.FaultPartition),
			scenarios.ChangedHands()},
	}
}

// CrashRestart crashes the leader and restarts it 4 s later with its
// durable log, stable store and snapshot: the others elect a leader, and
// the restarted member rejoins as a follower of a later term. With FSM
// reads, the members the readers fall back to after the crash answer
// stale when they had not yet learned the old leader's last commits.
func CrashRestart(n int, reads Reads) scenarios.Scenario {
	return crashRestart(DefaultTiming, n, reads)
}

func crashRestart(t Timing, n int, reads Reads) scenarios.Scenario {
	return scenarios.Scenario{
		Name:  "hraft-crash-restart/" + configName(n, reads),
		Doc:   fmt.Sprintf("the leader crashes and restarts with its durable log (%d members, %s)", n, reads),
		Story: "raft leads; it crashes at 8 s and restarts at 12 s from its log, stable store and snapshot.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Cluster: cluster(t, n, reads), Duration: 30 * time.Second, Schedule: schedule(20*time.Second,
				faults.Event{At: 8 * time.Second, Kind: faults.KindCrash, Node: MemberName(0)},
				faults.Event{At: 12 * time.Second, Kind: faults.KindRestart, Node: MemberName(0)})}.Config()
		},
		Premises: []scenarios.Premise{CrashedWhileLeading(MemberName(0)), scenarios.ChangedHands()},
	}
}

// ReadPause is Kleppmann's pause at the leader, between its check that
// raft says it leads and its read: raft steps down on time (its timers
// run), a new leader is elected and takes writes, and the paused read is
// answered at the resume. With FSM reads the member answers from its
// stale FSM as if it still led (a stale read: P3; its action counted at
// the check, so P1 holds);
// with verified reads VerifyLeader fails and nothing is answered.
func ReadPause(reads Reads) scenarios.Scenario { return readPause(DefaultTiming, reads) }

func readPause(t Timing, reads Reads) scenarios.Scenario {
	return scenarios.Scenario{
		Name:  "hraft-gc-pause/" + configName(3, reads),
		Doc:   "the leader pauses for 5 s between its leadership check and a read (" + reads.String() + ")",
		Story: "raft leads; at 8 s a read reaches its before-read failpoint and pauses there 5 s with its I/O frozen.",
		Goroutines: leaderFault(t, reads, faults.Event{At: 8 * time.Second, Kind: faults.KindFailpoint, Node: MemberName(0),
			Failpoint: FailpointBeforeRead, Action: faults.ActionPause, Duration: 5 * time.Second}),
		Premises: []scenarios.Premise{scenarios.FailpointHit(MemberName(0), FailpointBeforeRead),
			leaderFaulted("the leader paused while it led", history.FaultFailpointHit), scenarios.ChangedHands()},
	}
}

// IOPause freezes the leader's I/O for 5 s (the host's pause: the code
// runs, its timers fire): raft's leader-lease check steps it down after
// LeaderLeaseTimeout without a quorum, before the others can elect.
func IOPause(reads Reads) scenarios.Scenario { return ioPause(DefaultTiming, reads) }

func ioPause(t Timing, reads Reads) scenarios.Scenario {
	return scenarios.Scenario{
		Name:       "hraft-io-pause/" + configName(3, reads),
		Doc:        "the leader's I/O freezes for 5 s (" + reads.String() + ")",
		Story:      "raft leads; at 8 s its network I/O freezes for 5 s while its code and timers run.",
		Goroutines: leaderFault(t, reads, faults.Event{At: 8 * time.Second, Kind: faults.KindPause, Node: MemberName(0), Duration: 5 * time.Second}),
		Premises:   []scenarios.Premise{leaderFaulted("the leader paused while it led", history.FaultPause), scenarios.ChangedHands()},
	}
}

// DiskStall stalls the leader's log store for 5 s: raft's main goroutine
// blocks in StoreLogs (and the node's I/O freezes), so its leader-lease
// check cannot run. The others elect a leader after a heartbeat timeout
// while the stalled one still believes it leads: raft's step-down bound
// assumes its main loop runs.
func DiskStall(reads Reads) scenarios.Scenario { return diskStall(DefaultTiming, reads) }

func diskStall(t Timing, reads Reads) scenarios.Scenario {
	return scenarios.Scenario{
		Name:  "hraft-disk-stall/" + configName(3, reads),
		Doc:   "the leader's log store stalls for 5 s under raft's main loop (" + reads.String() + ")",
		Story: "raft leads; at 8 s its next write of log entries stalls 5 s, its I/O frozen.",
		Goroutines: leaderFault(t, reads, faults.Event{At: 8 * time.Second, Kind: faults.KindFailpoint, Node: MemberName(0),
			Failpoint: FailpointDiskStall, Action: faults.ActionPause, Duration: 5 * time.Second}),
		Premises: []scenarios.Premise{scenarios.FailpointHit(MemberName(0), FailpointDiskStall),
			leaderFaulted("the leader's disk stalled while it led", history.FaultFailpointHit), scenarios.ChangedHands()},
	}
}

// leaderFault is the setup of the three-member stories about one fault at
// the leader (member 0, which campaigns first): 30 s, healed at 20 s.
func leaderFault(t Timing, reads Reads, ev faults.Event) func(uint64) gohost.Config {
	return func(uint64) gohost.Config {
		return Setup{Cluster: cluster(t, 3, reads), Duration: 30 * time.Second, Schedule: schedule(20*time.Second, ev)}.Config()
	}
}

// Churn is five members under a nemesis for 45 s: partitions, isolation,
// I/O pauses and crash/restart of any member (restarted from its durable
// stores), then a heal phase in which a leader must be elected again
// (P4).
func Churn(reads Reads) scenarios.Scenario { return churn(DefaultTiming, reads) }

func churn(t Timing, reads Reads) scenarios.Scenario {
	members := cluster(t, 5, reads).memberNames()
	all := append(append([]string{}, members...), WriterNode, ReaderNode, Reader2)
	return scenarios.Scenario{
		Name:  "hraft-churn/" + configName(5, reads),
		Doc:   "five members under partitions, pauses and crashes (" + reads.String() + ")",
		Story: "raft, raft2 … raft5 and three clients; a nemesis cuts, freezes and crashes members for 45 s.",
		Goroutines: func(uint64) gohost.Config {
			return Setup{Cluster: cluster(t, 5, reads), Duration: time.Minute}.Config()
		},
		Nemesis: &faults.Nemesis{Targets: members, Partitionable: all,
			Kinds:           []faults.Kind{faults.KindPartition, faults.KindIsolate, faults.KindPause, faults.KindCrash},
			FaultsPerMinute: 10, Phase: 45 * time.Second, PauseMax: 5 * time.Second, WindowMax: 10 * time.Second,
			Boundaries: []time.Duration{t.LeaderLease, t.Heartbeat, 2 * t.Heartbeat}},
		Premises: []scenarios.Premise{scenarios.ChangedHands()},
	}
}

// CrashedWhileLeading holds when node crashed while it believed it led
// (the crash ends the belief at its instant, so the belief reaches it).
func CrashedWhileLeading(node string) scenarios.Premise {
	return scenarios.Premise{Name: node + " crashed while it led", Holds: func(h *history.History) (bool, string) {
		for _, w := range h.Faults {
			if w.Kind != history.FaultCrash || !slices.Contains(w.Nodes, node) {
				continue
			}
			for _, b := range h.Beliefs {
				if b.Holder == node && b.Resource == LeaderResource && b.Start < w.Start && w.Start <= b.End {
					return true, fmt.Sprintf("crash at %v while %s led (term %d)", w.Start, node, b.Token)
				}
			}
		}
		return false, node + " never crashed while it believed it led"
	}}
}
