package hraft

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// LeaderResource is the resource a member believes it holds while raft
// tells it that it leads: leadership as a lease, judged by P1.
const LeaderResource = "leader"

// The failpoints of a member.
const (
	// FailpointBeforeRead is between a member's check that raft says it
	// leads and its read of the register for a client (a pause there is
	// a process pause while serving, Kleppmann's story).
	FailpointBeforeRead = "before-read"
	// FailpointDiskStall is in the log store, before raft's main
	// goroutine writes log entries: a pause there stalls the main loop
	// (and the node's I/O) as a stalled fsync or a stop-the-world pause
	// would, so raft's step-down timer cannot run.
	FailpointDiskStall = "disk-stall"
)

// Reads is how a member serves a client's read.
type Reads uint8

const (
	// FSMReads: the member the client takes for the leader answers from
	// its FSM without asking raft: the stale-read bug of an application
	// that trusts its clients' view of the leader, so a deposed leader
	// (or any member a client still takes for the leader) keeps serving
	// (consul#54, hashicorp/raft#359).
	FSMReads Reads = iota
	// VerifiedReads: Barrier, read the FSM, then VerifyLeader, and answer
	// only if it succeeded (the order hashicorp/raft#603 recommends).
	VerifiedReads
)

// String names the mode as scenario names use it.
func (r Reads) String() string { return [...]string{"fsm-reads", "verified-reads"}[r] }

// Timing is raft's timing (raft.Config), the settings the stories vary.
type Timing struct {
	Heartbeat, Election, LeaderLease, Commit time.Duration
}

// DefaultTiming is raft.DefaultConfig's: heartbeat and election timeout
// 1 s, leader lease 500 ms, commit timeout 50 ms.
var DefaultTiming = Timing{Heartbeat: time.Second, Election: time.Second, LeaderLease: 500 * time.Millisecond,
	Commit: 50 * time.Millisecond}

// ClusterConfig is one cluster's settings, shared by its members.
type ClusterConfig struct {
	// Members is the number of members (3 or 5).
	Members int
	Reads   Reads
	Timing  Timing
	// ApplyTimeout bounds a write's Apply and a read's Barrier.
	ApplyTimeout time.Duration
	// TransportTimeout is NetworkTransport's I/O timeout.
	TransportTimeout time.Duration
	// SnapshotThreshold and SnapshotInterval are raft's; TrailingLogs
	// what a snapshot keeps of the log.
	SnapshotThreshold uint64
	SnapshotInterval  time.Duration
	TrailingLogs      uint64
}

// DefaultCluster is three members with raft's default timing, snapshots
// every 64 entries (checked every 5–10 s) so that restarts restore one.
var DefaultCluster = ClusterConfig{Members: 3, Reads: FSMReads, Timing: DefaultTiming, ApplyTimeout: time.Second,
	TransportTimeout: time.Second, SnapshotThreshold: 64, SnapshotInterval: 5 * time.Second, TrailingLogs: 32}

// MemberName is the i-th member's node name (from 0): "raft", "raft2", …,
// the names leasesim's checkers read as one replicated store's members.
func MemberName(i int) string {
	if i == 0 {
		return "raft"
	}
	return fmt.Sprintf("raft%d", i+1)
}

// memberNames returns the cluster's member names.
func (c ClusterConfig) memberNames() []string {
	out := make([]string, c.Members)
	for i := range out {
		out[i] = MemberName(i)
	}
	return out
}

// raftConfig is raft's configuration for the member id.
func (c ClusterConfig) raftConfig(id string, notify chan bool) *raft.Config {
	conf := raft.DefaultConfig()
	conf.LocalID = raft.ServerID(id)
	conf.Logger = hclog.NewNullLogger()
	conf.NotifyCh = notify
	conf.HeartbeatTimeout, conf.ElectionTimeout = c.Timing.Heartbeat, c.Timing.Election
	conf.LeaderLeaseTimeout, conf.CommitTimeout = c.Timing.LeaderLease, c.Timing.Commit
	conf.SnapshotThreshold, conf.SnapshotInterval, conf.TrailingLogs = c.SnapshotThreshold, c.SnapshotInterval, c.TrailingLogs
	return conf
}

// Member returns the node function of the member i: hashicorp/raft,
// unchanged, over a NetworkTransport on the simulated network, with the
// durable log, stable and snapshot stores over the node's storage, the
// register FSM, and the application's server for clients (AppPort).
//
// The first member ("raft"), when it has no state, bootstraps a cluster
// of itself; whichever member leads adds the members missing from the
// configuration as voters (how Nomad and Vault clusters form: one
// bootstraps, the others join), so the first leader is "raft" and a
// schedule can aim at it.
func Member(c ClusterConfig, i int) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error { return runMember(ctx, n, c, i) }
}

// runMember is Member's body.
func runMember(ctx context.Context, n *gohost.Node, c ClusterConfig, i int) error {
	disk, err := OpenDiskStore(ctx, n.Storage(), func() { n.Failpoint(FailpointDiskStall) })
	if err != nil {
		return err
	}
	snaps := NewSnapshotStore(ctx, n.Storage())
	stream, err := newStreamLayer(n)
	if err != nil {
		return err
	}
	trans := raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{Stream: stream, MaxPool: 3,
		Timeout: c.TransportTimeout, Logger: hclog.NewNullLogger()})
	notify := make(chan bool, 1)
	conf := c.raftConfig(n.Name(), notify)
	if i == 0 {
		has, err := raft.HasExistingState(disk, disk, snaps)
		if err != nil {
			return err
		}
		if !has {
			boot := raft.Configuration{Servers: []raft.Server{{Suffrage: raft.Voter, ID: conf.LocalID, Address: trans.LocalAddr()}}}
			if err := raft.BootstrapCluster(conf, disk, disk, snaps, trans, boot); err != nil {
				return fmt.Errorf("hraft: bootstrap: %w", err)
			}
		}
	}
	// The members start 1 ms apart, so that their first draws from the
	// global math/rand source (raft's timer jitter) come in one order.
	if !sleep(ctx, time.Duration(i)*startStagger) {
		_ = trans.Close()
		return nil
	}
	fsm := newRegister(n)
	r, err := raft.NewRaft(conf, fsm, disk, disk, snaps, trans)
	if err != nil {
		_ = trans.Close()
		return fmt.Errorf("hraft: %w", err)
	}
	m := &member{n: n, c: c, r: r, fsm: fsm}
	app, err := n.Listen("tcp", AppPort)
	if err != nil {
		_ = r.Shutdown().Error()
		_ = trans.Close()
		return err
	}
	var wg sync.WaitGroup
	wg.Go(func() { m.watch(ctx, notify) })
	wg.Go(func() { m.join(ctx) })
	wg.Go(func() { m.serve(ctx, app) })
	<-ctx.Done()
	_ = app.Close()
	_ = r.Shutdown().Error()
	_ = trans.Close()
	wg.Wait()
	return nil
}

// member is one life of a member.
type member struct {
	n   *gohost.Node
	c   ClusterConfig
	r   *raft.Raft
	fsm *Register
	// term is the term of the leadership the member believes in, 0 when
	// it does not lead.
	term atomic.Uint64
}

// startStagger is how far apart the members start raft.
const startStagger = time.Millisecond

// beliefHorizon is the deadline of a leadership belief: raft gives a
// leader no deadline, so the belief lasts until raft says it lost it (or
// the life ends).
const beliefHorizon = 24 * time.Hour

// watch records the member's belief that it leads, from raft's notify
// channel: true starts a belief under the current term, false ends it.
func (m *member) watch(ctx context.Context, notify <-chan bool) {
	for {
		select {
		case <-ctx.Done():
			return
		case lead := <-notify:
			if lead {
				t := m.r.CurrentTerm()
				m.term.Store(t)
				m.n.Believe(LeaderResource, t, m.n.Now().Add(beliefHorizon))
			} else if t := m.term.Swap(0); t != 0 {
				m.n.EndBelief(LeaderResource, t, history.EndLost)
			}
		}
	}
}

// joinEvery is how often a leader looks for members missing from the
// configuration.
const joinEvery = 200 * time.Millisecond

// join adds, while this member leads, every member missing from raft's
// configuration as a voter.
func (m *member) join(ctx context.Context) {
	t := time.NewTicker(joinEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if m.r.State() != raft.Leader {
			continue
		}
		f := m.r.GetConfiguration()
		if f.Error() != nil {
			continue
		}
		have := map[raft.ServerID]bool{}
		for _, s := range f.Configuration().Servers {
			have[s.ID] = true
		}
		for _, name := range m.c.memberNames() {
			if !have[raft.ServerID(name)] && ctx.Err() == nil {
				_ = m.r.AddVoter(raft.ServerID(name), raft.ServerAddress(name+RaftPort), 0, m.c.ApplyTimeout).Error()
			}
		}
	}
}
