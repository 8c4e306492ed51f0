package etcdraft

import (
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/leasesim/leasesim/lease"
)

// request handles a holder's request: changes are proposed through the
// log, keepalives and reads wait for a ReadIndex round (or raft's lease,
// with lease-based reads); a member that is not the leader redirects.
func (m *member) request(req Request) {
	if req.Op == OpKeepAlive && !m.leader && m.o.bugs.followerKeepalive {
		m.keepAliveStale(req)
		return
	}
	if !m.leader {
		m.notLeader(req)
		return
	}
	switch req.Op {
	case OpGrant, OpRevoke, OpCreate, OpCheckpoint:
		c := command{client: req.Client, id: req.ID, proposer: m.id, key: req.Key, value: req.Value, lease: req.Lease,
			ttl: req.TTL}
		c.kind = map[Op]cmdKind{OpGrant: cmdGrant, OpRevoke: cmdRevoke, OpCreate: cmdCreate, OpCheckpoint: cmdCheckpointTxn}[req.Op]
		if req.Op == OpCheckpoint {
			c.guard, c.token = req.Guard, req.Token
		}
		if err := m.propose(&c); err != nil {
			m.notLeader(req)
			return
		}
		if len(m.pending) >= maxPending { // proposals that never committed, long timed out at their clients
			m.pending = append(m.pending[:0], m.pending[len(m.pending)-maxPending/2:]...)
		}
		m.pending = append(m.pending, req)
	case OpKeepAlive, OpGet:
		m.readSeq++
		m.reads = append(m.reads, readWait{index: m.readSeq, req: req, at: m.env.Clock.Now()})
		ctx := readCtx(m.readSeq)
		m.rn.ReadIndex(ctx)
	default:
		m.reply(Reply{Op: req.Op, Client: req.Client, ID: req.ID, Err: ErrBadRequest})
	}
}

// propose proposes c through the log.
func (m *member) propose(c *command) error {
	return m.rn.Propose(c.encode(nil))
}

// readReady takes a read state: the read is served once its index is
// applied.
func (m *member) readReady(rs raft.ReadState) {
	if len(rs.RequestCtx) != 8 {
		return
	}
	seq := binary.BigEndian.Uint64(rs.RequestCtx)
	for i, w := range m.reads {
		if w.index == seq {
			m.reads = append(m.reads[:i], m.reads[i+1:]...)
			m.waiting = append(m.waiting, readWait{index: rs.Index, req: w.req, at: w.at})
			return
		}
	}
}

// serveReads serves the reads whose index is applied, in order.
func (m *member) serveReads() {
	n := 0
	for _, w := range m.waiting {
		if w.index > m.applied {
			m.waiting[n] = w
			n++
			continue
		}
		switch w.req.Op {
		case OpKeepAlive:
			m.keepAlive(w.req, w.at)
		case OpGet:
			m.get(w.req)
		}
	}
	m.waiting = m.waiting[:n]
}

// keepAlive renews a lease at the primary, as etcd's Lessor.Renew: a
// lease whose deadline has passed is not found (its revoke is on its way);
// with checkpointing, a checkpointed remaining TTL is reset to the full
// TTL through the log. asked is the member's clock when the keepalive's
// ReadIndex round started: a round that ended later than keepAliveFresh
// after it proves nothing about now, and the keepalive is refused.
func (m *member) keepAlive(req Request, asked time.Duration) {
	now := m.env.Clock.Now()
	if !m.leader || !m.primary || now-asked >= m.keepAliveFresh() {
		m.notLeader(req)
		return
	}
	l := m.st.lease(req.Lease)
	if l == nil {
		m.reply(Reply{Op: req.Op, Client: req.Client, ID: req.ID, Err: ErrLeaseNotFound})
		return
	}
	if m.expiry[l.id] <= now {
		// Expired, its keys not yet gone: answer once its revoke applies,
		// as etcd's Renew waits on the lease's revocation.
		m.revokeWait = append(m.revokeWait, req)
		return
	}
	m.expiry[l.id] = now + l.ttl
	// etcd's Renew clears a checkpointed remaining TTL whether or not
	// checkpoints are still scheduled (also with checkpointFirstLeaderOnly).
	if m.o.checkpoints && (l.remaining > 0 || m.cpInFlight(l.id)) {
		_ = m.propose(&command{kind: cmdCheckpoint, checkpoints: []checkpoint{{lease: l.id}}})
	}
	m.reply(Reply{Op: req.Op, Client: req.Client, ID: req.ID, TTL: l.ttl})
}

// keepAliveFresh bounds how long after starting a keepalive's ReadIndex
// round the leader may still renew. The followers' acknowledgements prove
// it led when they were sent, after the round started; each follower then
// refuses votes for an election timeout on its own clock (CheckQuorum's
// lease, less a tick). A leader paused between the acknowledgements and
// its answer (leader-change-load seeds 352, 541: the acknowledgements queue
// while it is paused and are stepped first when it resumes) may have been
// deposed meanwhile and its lease revoked by the new leader; renewing then
// would answer a renewal after the revoke committed. Half the election
// timeout leaves room for the tick and for drift.
func (m *member) keepAliveFresh() time.Duration { return m.o.electionTimeout() / 2 }

// keepAliveStale is the follower-keepalive bug: a follower answers from
// its own applied state, which may lag the leader's.
func (m *member) keepAliveStale(req Request) {
	l := m.st.lease(req.Lease)
	if l == nil {
		m.reply(Reply{Op: req.Op, Client: req.Client, ID: req.ID, Err: ErrLeaseNotFound})
		return
	}
	m.reply(Reply{Op: req.Op, Client: req.Client, ID: req.ID, TTL: l.ttl})
}

// get answers a read of a key.
func (m *member) get(req Request) {
	r := Reply{Op: req.Op, Client: req.Client, ID: req.ID, Revision: m.st.rev}
	if i, ok := m.st.keyIndex(req.Key); ok {
		k := m.st.keys[i]
		r.OK, r.Value, r.CreateRevision, r.ModRevision, r.KeyLease = true, k.value, k.create, k.mod, k.lease
	}
	m.reply(r)
}

// apply applies committed entries to the lessor and answers the requests
// this member proposed.
func (m *member) apply(ents []raftpb.Entry) {
	for i := range ents {
		e := &ents[i]
		if e.Index <= m.applied {
			continue
		}
		m.applied = e.Index
		if m.primary && !m.leader && e.Term > m.primaryTerm { // lazyDemote: the apply loop sees the new leader
			m.demote()
		}
		if e.Type != raftpb.EntryNormal || len(e.Data) == 0 {
			continue
		}
		c, err := decodeCommand(e.Data)
		if err != nil {
			panic("etcdraft: invariant command-format: " + err.Error())
		}
		res := m.st.apply(e.Index, c)
		switch c.kind {
		case cmdGrant:
			if m.primary && res.err == ErrNone {
				m.expiry[res.lease] = m.env.Clock.Now() + res.ttl
			}
		case cmdRevoke:
			delete(m.expiry, c.lease)
			delete(m.revoking, c.lease)
			m.revoked(c.lease)
		case cmdCheckpoint:
			m.checkpointApplied(c)
		}
		m.answer(c, res)
	}
}

// answer replies to the request c came from, if this member proposed it.
func (m *member) answer(c command, res result) {
	if c.client == "" || c.proposer != m.id {
		return
	}
	for i, req := range m.pending {
		if req.Client != c.client || req.ID != c.id {
			continue
		}
		m.pending = append(m.pending[:i], m.pending[i+1:]...)
		r := Reply{Op: req.Op, Client: req.Client, ID: req.ID, Err: res.err, OK: res.ok, Lease: res.lease,
			TTL: res.ttl, Revision: m.st.rev}
		if req.Op == OpCreate && res.err == ErrNone {
			r.Value, r.CreateRevision, r.ModRevision, r.KeyLease = res.key.value, res.key.create, res.key.mod, res.key.lease
		}
		m.reply(r)
		return
	}
}

// primaryDuties revokes expired leases and checkpoints remaining TTLs, on
// the primary only. A revoke is proposed only while raft itself says this
// member leads (etcd PR #12531), unless the lessor was left primary by a
// stall (lazyDemote), in which case raft forwards it to the new leader.
func (m *member) primaryDuties() {
	if !m.primary || (!m.leader && !m.o.bugs.lazyDemote) {
		return
	}
	now := m.env.Clock.Now()
	for _, l := range m.st.leases {
		if at, ok := m.expiry[l.id]; ok && at <= now {
			if again, proposed := m.revoking[l.id]; proposed && now < again && m.leader {
				continue // a follower's proposal was forwarded or dropped: lazyDemote proposes again
			}
			m.revoking[l.id] = now + revokeRetry
			_ = m.propose(&command{kind: cmdRevoke, lease: l.id})
		}
	}
	if !m.leader || !m.o.checkpoints || !m.checkpointing() || now < m.nextCheckpoint {
		return
	}
	m.nextCheckpoint = now + m.o.checkpointInterval
	var cps []checkpoint
	for _, l := range m.st.leases {
		if at, ok := m.expiry[l.id]; ok && at > now {
			cps = append(cps, checkpoint{lease: l.id, remaining: at - now})
		}
	}
	if len(cps) > 0 {
		for _, cp := range cps {
			m.cpProposed[cp.lease] = now
		}
		_ = m.propose(&command{kind: cmdCheckpoint, checkpoints: cps})
	}
}

// cpInFlight reports whether a checkpoint of lease id this primary
// proposed has not applied yet: a keepalive must then reset it too, or
// the stale remaining TTL would land after the renewal.
func (m *member) cpInFlight(id int64) bool {
	_, ok := m.cpProposed[id]
	return ok
}

// checkpointApplied forgets the primary's checkpoints in flight that c
// carried.
func (m *member) checkpointApplied(c command) {
	for _, cp := range c.checkpoints {
		if cp.remaining > 0 {
			delete(m.cpProposed, cp.lease)
		}
	}
}

// revoked answers the keepalives that waited for lease id's revoke.
func (m *member) revoked(id int64) {
	n := 0
	for _, req := range m.revokeWait {
		if req.Lease == id {
			m.reply(Reply{Op: req.Op, Client: req.Client, ID: req.ID, Err: ErrLeaseNotFound})
			continue
		}
		m.revokeWait[n] = req
		n++
	}
	m.revokeWait = m.revokeWait[:n]
}

// maxPending bounds the proposals a member awaits to apply: a proposal
// that never commits (its leader was deposed) is never answered, so the
// oldest half is dropped when the bound is reached.
const maxPending = 1024

// revokeRetry is how long the primary waits for an expired lease's revoke
// to apply before it proposes it again (etcd's expiredLeaseRetryInterval).
const revokeRetry = 3 * time.Second

// firstLeaderTerm is the term of the cluster's first leader: the
// bootstrap snapshot is at term 1 and member 1's first campaign wins term
// 2 (a pre-vote does not raise the term).
const firstLeaderTerm = 2

// checkpointing says whether this primary checkpoints remaining TTLs:
// always, but with checkpointFirstLeaderOnly only in the first leader's
// term (etcd before PR #13491: scheduling stopped after the first leader
// change).
func (m *member) checkpointing() bool {
	return !m.o.bugs.checkpointFirstLeaderOnly || m.primaryTerm <= firstLeaderTerm
}

// maybeCompact snapshots the lessor and compacts the log every
// snapshotEvery applied entries.
func (m *member) maybeCompact() {
	if m.applied < m.snapIndex+m.o.snapshotEvery {
		return
	}
	if err := m.disk.compact(m.applied, m.cs, m.st.marshal(), m.o.keepEntries); err != nil {
		panic(fmt.Sprintf("etcdraft: invariant compact: %s: %v", m.env.Self, err))
	}
	m.snapIndex = m.applied
}

// notLeader redirects a request to the leader this member knows.
func (m *member) notLeader(req Request) {
	r := Reply{Op: req.Op, Client: req.Client, ID: req.ID, Err: ErrNotLeader}
	if m.lead != 0 && m.lead != m.id && int(m.lead) <= len(m.peers) {
		r.Leader = string(m.peers[m.lead-1])
	}
	m.reply(r)
}

// reply sends r to its client, stamped with this member's clock.
func (m *member) reply(r Reply) {
	r.ServerTime = m.env.Clock.Now()
	m.net.SendAny(lease.Addr(r.Client), r)
}
