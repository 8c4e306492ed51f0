// Package etcdraft is a replicated lease store written for leasesim: N
// members (3 by default, 5 as a variant), each a kernel node running
// go.etcd.io/raft/v3's RawNode unchanged (v3.6.0), with etcd's lessor on
// top, and holders that lock the way etcd's concurrency package does.
//
// How it maps onto leasesim. Every member is the Impl's grantor (NewGrantor
// runs on each; lease.Impl.Members = 3 makes the harness add grantor2 and
// grantor3). Member 1 ("grantor") campaigns on its first boot, so faults
// aimed at "grantor" hit the first leader. A member ticks raft every 100 ms
// of its own drifting clock (election timeout 1 s, heartbeat 100 ms,
// CheckQuorum and PreVote on; the store declares
// lease.Capabilities.ElectionTick, so a run's
// lease.Config.ElectionTimeout, a whole number of ticks, replaces the 1 s:
// `simrun tune --election-timeout 500ms,1s,2s`), persists each Ready's snapshot, entries and
// hard state to its durable storage and syncs before sending, and compacts
// its log behind a snapshot every 200 applied entries. Raft's election
// timeouts, drawn from crypto/rand, come from the member's seeded stream
// (randsource.go).
//
// The lessor (etcd's semantics): grant, revoke and the create of a key
// attached to a lease go through the log (a lease's id is its grant
// entry's index; revisions count key changes). Only the leader's lessor,
// the primary, keeps expiry deadlines, on its own clock; it proposes the
// revoke of a lease whose deadline passed (again after 3 s if it did not
// apply) and only while raft itself says it leads (etcd PR #12531). On
// promotion every lease gets now + its remaining TTL + the election
// timeout (etcd's Promote). Remaining TTLs are checkpointed through the
// log every TTL/2 and reset by a keepalive (etcd's LeaseCheckpoint).
// Keepalives and reads are answered by the leader after a ReadIndex round
// (raft's ReadOnlySafe), so a deposed leader cannot renew; a keepalive
// whose round ended more than half an election timeout after it started
// (the leader was paused in between) is refused, since its proof of
// leadership is stale. A member that does not lead redirects to the
// leader it knows.
//
// The holder: per resource it grants a lease of the configured TTL,
// creates the resource's key attached to it if absent (the fencing token
// is the key's create revision, which only grows), and keeps the lease
// alive every renew interval. While another lease holds the key it tries
// the create again after a jittered exponential backoff (an etcd election
// would watch the key; polling with reads multiplies the operations P3
// must linearize). It believes until the send time of the last
// answered grant or keepalive plus TTL×(1−2rho) − Margin
// (lease.SplitHolderBudgets: the primary expires at exactly the TTL on its
// clock, and a new primary only later). Requests follow redirects and move
// to the next member on a timeout.
//
// Task checkpoints (checkpoint.go): a checkpoint is a transaction through
// the log, If(CreateRevision(resource) == token) Then Put(resource +
// "/checkpoint", value) attached to no lease, refused as fenced otherwise;
// the value is the token and the request id in fixed-width hex before the
// state, and the put happens only over a smaller value, so a holder's
// late older checkpoint cannot overwrite a newer one. Once the key is
// ours, and again when belief lapsed and a keepalive regains it, the
// holder reads the checkpoint key (a ReadIndex get) before it believes,
// so lease.Grant carries the latest State and CheckpointToken. A
// checkpoint of ours read back without an answer (its proposer crashed)
// is sent again and acknowledged as stored. A member answers a proposal
// when it applies it, leader or not, as etcd's server does.
//
// Properties expected: P1 (a lease outlives every belief in it: a renewal
// needs a quorum heartbeat after it arrived, and a new leader's deadline is
// at least its promotion plus the TTL), P2 (tokens are create revisions,
// and the fenced store refuses older ones), P4 (a lease whose holder died
// expires within TTL plus the election timeout plus a failover, then
// another holder creates the key), P6 (a worker re-executes no more than
// the work since the last accepted checkpoint; P5 does not apply: it reads
// acquire replies, and P3 judges the checkpoints), and P3 against the lessor
// specification (model.LessorWindowSpec): every member's answers must be
// linearizable, a lease must stay live until TTL×(1−rho) of true time
// after its last keepalive, and it may outlive that after a leader change
// only as far as model.LessorBound allows, from the leader terms the
// members report (model.Bounded; P4 also sees that it goes).
//
// Mutants (Mutants) reproduce etcd's lease bugs; RESULTS.md says which
// scenario catches each and how often.
package etcdraft
