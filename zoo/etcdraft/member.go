package etcdraft

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/leasesim/leasesim/lease"
)

// member is one node of the replicated lease store: a raft.RawNode over
// the member's durable log, with the lessor applied from it. It is the
// Impl's grantor (every member is built by NewGrantor).
type member struct {
	env   lease.Env
	net   lease.AnyTransport
	o     settings
	id    uint64 // raft id: 1 for the first member
	peers []lease.Addr
	rn    *raft.RawNode
	disk  *disk
	rnd   *seededReader
	slot  *slot // the slot of the goroutine that runs this member's run (randsource.go)
	st    *lessor
	cs    raftpb.ConfState

	applied, snapIndex uint64
	leader             bool   // raft's own state is Leader
	lead               uint64 // the leader raft knows, 0 if none

	// The primary lessor (etcd's): the leader's, which alone keeps
	// expiry deadlines on its own clock, revokes and checkpoints.
	primary        bool
	primaryTerm    uint64
	expiry         map[int64]time.Duration // by lease; looked up, never iterated
	revoking       map[int64]time.Duration // revokes proposed, not yet applied: when to propose again; looked up, never iterated
	nextCheckpoint time.Duration
	cpProposed     map[int64]time.Duration // checkpoints proposed by this primary, not yet applied; looked up, never iterated
	revokeWait     []Request               // keepalives of expired leases awaiting their revoke, oldest first

	// onLeadership, when a host registered it (OnLeadership), is told of
	// each promotion and demotion of the lessor.
	onLeadership func(term uint64, leading bool)

	pending []Request  // proposals this member awaits to apply, oldest first
	reads   []readWait // ReadIndex requests awaiting their read state, by context (index), oldest first
	waiting []readWait // reads whose index is not applied yet, in order
	readSeq uint64
}

// readWait is a read awaiting its read state (index is then the
// context's sequence number) or its index's application.
type readWait struct {
	index uint64
	req   Request
	at    time.Duration // the member's clock when it started the ReadIndex round
}

var (
	_ lease.Grantor = (*member)(nil)
	_ lease.AnyNode = (*member)(nil)
)

// newMember boots the member at env.Self: it loads its log, starts its
// RawNode and its tick timer. Member 1 campaigns on its first boot, so
// the cluster starts with it as leader.
func newMember(env lease.Env, cfg lease.Config, o settings) (*member, error) {
	net, ok := env.Net.(lease.AnyTransport)
	if !ok {
		return nil, fmt.Errorf("new etcdraft member: env.Net is a %T, not a lease.AnyTransport: %w", env.Net, lease.ErrInvalidConfig)
	}
	base, idx, ok := lease.ParseMember(env.Self, o.members)
	if !ok {
		return nil, fmt.Errorf("new etcdraft member: %s is not a member of a %d-member store: %w", env.Self, o.members,
			lease.ErrInvalidConfig)
	}
	installReader()
	m := &member{env: env, net: net, o: o, id: uint64(idx + 1), peers: lease.MemberAddrs(base, o.members),
		rnd: newSeededReader(env.Rand), slot: goroutineSlot(), expiry: make(map[int64]time.Duration), revoking: make(map[int64]time.Duration),
		cpProposed: make(map[int64]time.Duration),
	}
	d, snap, fresh, err := openDisk(env.Store, o.members)
	if err != nil {
		return nil, fmt.Errorf("new etcdraft member %s: %w", env.Self, err)
	}
	m.disk, m.cs = d, snap.Metadata.ConfState
	if m.st, err = unmarshalLessor(snap.Data); err != nil {
		return nil, fmt.Errorf("new etcdraft member %s: %w", env.Self, err)
	}
	m.applied, m.snapIndex = snap.Metadata.Index, snap.Metadata.Index
	rc := &raft.Config{ID: m.id, ElectionTick: o.electionTicks, HeartbeatTick: o.heartbeatTicks, Storage: d.ms,
		Applied: m.applied, MaxSizePerMsg: 1 << 20, MaxInflightMsgs: 256, CheckQuorum: true, PreVote: true,
		Logger: quietLogger{}}
	if o.leaseBasedReads {
		rc.ReadOnlyOption = raft.ReadOnlyLeaseBased
	}
	withRaft(m.slot, m.rnd, func() {
		if m.rn, err = raft.NewRawNode(rc); err != nil {
			return
		}
		if fresh && m.id == 1 {
			err = m.rn.Campaign()
		}
		m.ready()
	})
	if err != nil {
		return nil, fmt.Errorf("new etcdraft member %s: %w", env.Self, err)
	}
	m.env.Clock.AfterFunc(o.tick, m.tick)
	return m, nil
}

// DeliverAny takes raft messages from the other members and requests
// from holders.
func (m *member) DeliverAny(from lease.Addr, msg any) {
	withRaft(m.slot, m.rnd, func() { m.deliver(msg) })
}

// deliver handles a message inside a RawNode call (withRaft).
func (m *member) deliver(msg any) {
	switch x := msg.(type) {
	case raftMsg:
		var err error
		err = m.rn.Step(*x.m)
		if err != nil && !errors.Is(err, raft.ErrStepLocalMsg) && !errors.Is(err, raft.ErrStepPeerNotFound) &&
			!errors.Is(err, raft.ErrProposalDropped) { // a forwarded proposal reaching a member that no longer leads
			panic(fmt.Sprintf("etcdraft: invariant step: %s stepping %v: %v", m.env.Self, x.m.Type, err))
		}
		m.ready()
	case Request:
		m.request(x)
		m.ready()
	}
	if m.o.bugs.lazyDemote && m.primary && !m.leader {
		// etcd's revoke loop runs beside the raft loop: a lessor left
		// primary proposes as soon as anything wakes the member.
		m.primaryDuties()
		m.ready()
	}
}

// tick advances raft's logical clock and runs the primary's duties, every
// tick of the member's own clock.
func (m *member) tick() {
	withRaft(m.slot, m.rnd, func() {
		m.rn.Tick()
		m.ready()
		m.primaryDuties()
		m.ready()
	})
	m.env.Clock.AfterFunc(m.o.tick, m.tick)
}

// ready honours the Ready contract until raft has nothing more: persist
// and sync, then send, then apply, then advance.
func (m *member) ready() {
	for {
		if !m.rn.HasReady() {
			return
		}
		rd := m.rn.Ready()
		if rd.SoftState != nil {
			m.leader, m.lead = rd.SoftState.RaftState == raft.StateLeader, rd.SoftState.Lead
		}
		if err := m.disk.save(&rd); err != nil {
			panic(fmt.Sprintf("etcdraft: invariant durable-log: %s: %v", m.env.Self, err))
		}
		if !raft.IsEmptySnap(rd.Snapshot) {
			m.restore(rd.Snapshot)
		}
		for i := range rd.Messages {
			msg := &rd.Messages[i]
			m.net.SendAny(m.peers[msg.To-1], raftMsg{m: msg})
			if msg.Type == raftpb.MsgSnap {
				m.rn.ReportSnapshot(msg.To, raft.SnapshotFinish)
			}
		}
		m.leadership(rd.HardState.Term)
		m.apply(rd.CommittedEntries)
		for _, rs := range rd.ReadStates {
			m.readReady(rs)
		}
		m.rn.Advance(rd)
		m.serveReads()
		m.maybeCompact()
	}
}

// restore replaces the lessor with a snapshot's, received from the
// leader.
func (m *member) restore(snap raftpb.Snapshot) {
	st, err := unmarshalLessor(snap.Data)
	if err != nil {
		panic(fmt.Sprintf("etcdraft: invariant snapshot-format: %s: %v", m.env.Self, err))
	}
	m.st, m.cs = st, snap.Metadata.ConfState
	m.applied, m.snapIndex = snap.Metadata.Index, snap.Metadata.Index
}

// leadership promotes or demotes the lessor when raft's state changed.
func (m *member) leadership(term uint64) {
	switch {
	case m.leader && !m.primary:
		m.promote(max(term, m.rn.BasicStatus().Term))
	case !m.leader && m.primary && !m.o.bugs.lazyDemote:
		m.demote()
	}
}

// promote makes the lessor primary, as etcd's Lessor.Promote: every
// lease's deadline is now + its remaining TTL (the checkpointed one, or
// the full TTL) + the election timeout, since the old leader may have
// kept a lease alive until it stepped down.
func (m *member) promote(term uint64) {
	now := m.env.Clock.Now()
	m.primary, m.primaryTerm = true, term
	extend := m.o.electionTimeout()
	if m.o.bugs.noPromoteExtension {
		extend = 0
	}
	for _, l := range m.st.leases {
		rem := l.ttl
		if l.remaining > 0 {
			rem = l.remaining
		}
		m.expiry[l.id] = now + rem + extend
	}
	m.nextCheckpoint = now + m.o.checkpointInterval
	if m.onLeadership != nil {
		m.onLeadership(term, true)
	}
}

// demote ends the lessor's primacy: deadlines are forgotten, and reads in
// flight are answered "not leader". Proposals stay pending: as etcd's
// server does, the member answers one when it applies it, leader or not
// (one that never commits is never answered; the client times out), so a
// change that committed is not reported as refused.
func (m *member) demote() {
	m.primary = false
	if m.onLeadership != nil {
		m.onLeadership(m.primaryTerm, false)
	}
	clear(m.expiry)
	clear(m.revoking)
	clear(m.cpProposed)
	m.nextCheckpoint = 0
	for _, w := range m.reads {
		m.notLeader(w.req)
	}
	for _, w := range m.waiting {
		m.notLeader(w.req)
	}
	for _, req := range m.revokeWait {
		m.notLeader(req)
	}
	m.reads, m.waiting, m.revokeWait = m.reads[:0], m.waiting[:0], m.revokeWait[:0]
}

// Leading reports whether the member leads now (raft's leader, its lessor
// primary) and in which term: a host resolves faults.RoleLeader with it.
func (m *member) Leading() (term uint64, leading bool) {
	return m.primaryTerm, m.leader && m.primary
}

// OnLeadership registers f, called (on the simulated path) each time the
// member's lessor is promoted (leading) or demoted: a host records the
// history's leader terms from it.
func (m *member) OnLeadership(f func(term uint64, leading bool)) { m.onLeadership = f }

// LeaderDeclaration is what the store declares about how its leader times
// leases, for the history's leader terms: its members, the extension a new
// leader adds to every lease (the configured election timeout), how often
// the leader checkpoints remaining TTLs (0 without checkpoints) and how
// often it looks for expired leases (a tick), each on its own clock. A
// mutant declares its configuration, not its bug.
func (m *member) LeaderDeclaration() (members []string, extension, checkpointInterval, checkPeriod time.Duration) {
	members = make([]string, len(m.peers))
	for i, p := range m.peers {
		members[i] = string(p)
	}
	if m.o.checkpoints {
		checkpointInterval = m.o.checkpointInterval
	}
	return members, m.o.electionTimeout(), checkpointInterval, m.o.tick
}

// quietLogger discards raft's logging but keeps its panics.
type quietLogger struct{}

func (quietLogger) Debug(...any)              {}
func (quietLogger) Debugf(string, ...any)     {}
func (quietLogger) Error(...any)              {}
func (quietLogger) Errorf(string, ...any)     {}
func (quietLogger) Info(...any)               {}
func (quietLogger) Infof(string, ...any)      {}
func (quietLogger) Warning(...any)            {}
func (quietLogger) Warningf(string, ...any)   {}
func (quietLogger) Fatal(v ...any)            { panic(fmt.Sprint(v...)) }
func (quietLogger) Fatalf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
func (quietLogger) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (quietLogger) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }

// readCtx is a ReadIndex context: the member's read sequence number.
func readCtx(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }
