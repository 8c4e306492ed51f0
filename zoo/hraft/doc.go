// Package hraft runs github.com/hashicorp/raft (v1.8.0), unchanged, as
// three or five members inside leasesim's goroutine host (package gohost),
// and judges its leadership as a lease (P1) and the reads an application
// serves from it (P3).
//
// # What runs
//
//   - Members (member.go) "raft", "raft2", … each run raft.NewRaft with
//     raft.DefaultConfig's timing (heartbeat and election timeout 1 s,
//     LeaderLeaseTimeout 500 ms, commit timeout 50 ms), its logger
//     silenced (hclog.NewNullLogger), snapshots every 64 entries (checked
//     every 5–10 s) keeping 32 trailing entries.
//   - The transport (stream.go) is raft.NewNetworkTransportWithConfig
//     over a StreamLayer (net_transport.go's interface: a net.Listener
//     and Dial(address, timeout)) on the host's simulated TCP: Node.Listen
//     on :7000 and Node.Dial. The layer closes the connections it accepted
//     when raft closes it, so no handleConn goroutine outlives its life.
//   - Durable stores (logstore.go, snapshots.go): raft's LogStore and
//     StableStore over gohost.Storage, one key per entry and per stable
//     value, each durable when the call returns (a log store that fsyncs
//     every write, as raft-boltdb does by default); a SnapshotStore that
//     keeps the latest snapshot (FileSnapshotStore with retain 1), data
//     before metadata. Nothing of raft's state is held only in memory: a
//     crash loses exactly what a process loses, and the restarted life
//     reopens the stores, restores the snapshot and replays the log.
//     Once a life has ended its stores refuse every call, so a crashed
//     life cannot write to its successor's disk.
//   - How the cluster forms: "raft" bootstraps a cluster of itself when
//     it has no state; whichever member leads adds the missing members as
//     voters (AddVoter), as Nomad and Vault clusters form. So the first
//     leader is "raft", and a schedule can aim at it. The members start
//     raft 1 ms apart.
//   - The FSM (fsm.go) is one register. A write is a log entry carrying
//     the value and the client's request ref; the member that applies it
//     first records the operation as processed (Node.Processed), since a
//     write takes effect when it commits, wherever it is applied.
//   - The application server (server.go) on :7100 answers one JSON line
//     per connection. A write goes to raft.Apply on a member that raft
//     says leads (else a redirect to the leader raft names). A read is
//     served as the configuration says (Reads):
//     FSMReads answers from the member's FSM with no check: the member
//     the client takes for the leader serves, so a deposed leader, or a
//     member a client still takes for the leader, keeps serving (the
//     stale-read bug, consul#54, hashicorp/raft#359); VerifiedReads
//     refuses unless raft says it leads, then runs Barrier, reads the FSM
//     and answers only if VerifyLeader then succeeds (read before verify,
//     the order hashicorp/raft#603 says is the correct one).
//   - Clients (client.go): a writer c1 (unique values every 100–150 ms)
//     and two readers c2, c3 (every 20–30 ms). Each sends to the member
//     it believes leads ("raft" at first), follows redirects, moves to the
//     next member after a failure, and records its requests as operations
//     (Node.Call, and Node.Return for an ok reply only: a failed write may
//     still commit, so its outcome stays open).
//
// # Leadership as a lease (P1)
//
// Each member records a belief "leader" (token: the term) from raft's
// NotifyCh true to NotifyCh false, or its crash (Node.Believe,
// Node.EndBelief). A read the member decides to answer as leader is an
// action under that belief (Node.Act), counted at the decision (for FSM
// reads the check before the read, for verified reads VerifyLeader's
// answer), as a lock holder's write is on every host. P1 judges, strictly, that no two
// members believe at one true instant. The lease configuration raft
// declares (history.Lease): TTL = LeaderLeaseTimeout (a leader that has
// not heard from a quorum for it steps down), RenewInterval = the
// heartbeat (HeartbeatTimeout/10), BackoffMax = 2×HeartbeatTimeout +
// 2×ElectionTimeout (a follower campaigns within 2×HeartbeatTimeout of its
// last contact, a round lasts up to 2×ElectionTimeout), RequestTimeout =
// the transport's, rho = 0: raft's timers run on time.Now, the bubble's one
// clock, which the host never drifts. raft requires LeaderLeaseTimeout ≤
// HeartbeatTimeout, and a follower with a known leader refuses to vote, so
// a leader cut off from the majority steps down within about
// LeaderLeaseTimeout of its last quorum contact, before any follower can
// campaign: the documented step-down bound leaves no overlap at all, which
// is what P1 checks. That bound assumes the leader's main goroutine runs:
// its lease check is a timer case of the main loop. When the main loop is
// stalled (the disk-stall story) or the application acts on a check made
// before a pause (the gc-pause story with FSM reads), two members believe
// at once; raft's leadership is not a lease in the strict sense
// (hashicorp/raft#108, #568: two nodes believing they lead).
//
// # Reads (P3)
//
// The register's operations (read and write of key "x" of resource
// "register", token 0) are judged by P3 against the register
// specification (model.RegisterSpec, "fenced-register": with token 0 every
// write is accepted, a plain register). The members are the history's
// replicated store (Grantor "raft", further members "raft2", …).
//
// # Stories
//
// hraft-STORY/CONFIG, CONFIG the member count and the read mode:
// partition (the leader and c2 cut off from the majority, 3 and 5
// members), crash-restart (the leader crashes at 8 s and restarts at 12 s
// from its durable stores, 3 and 5), gc-pause (a 5 s pause at the
// leader's before-read failpoint), io-pause (the host's pause of the
// leader's I/O: its code and timers run), disk-stall (a 5 s pause at the
// log store's disk-stall failpoint, under raft's main loop) and churn (5
// members, a nemesis of partitions, isolation, pauses and crashes for
// 45 s). P4 requires a leader again after the heal.
//
// Not told: clock drift on the leader. raft reads time.Now and takes no
// clock, and the host's drift applies only to code that uses Node.Clock,
// so a drift story would run without the drift (Result.NotApplied says
// so); it is left out rather than shown as a pass.
//
// # Determinism
//
// raft's timer jitter (randomTimeout) draws from the global math/rand
// source: every run sets gohost.Config.SeedMathRand (randseed_test.go
// carries the //go:debug randseednop=0 line it needs), so the tests are
// not parallel. raft reads crypto/rand only for its in-memory transport's
// addresses, which are not used here. That is not enough for exact runs: raft draws from the shared
// source in several goroutines at the same instant (one replication
// goroutine per follower, woken by the same new entry), its main loop's
// select picks at random among ready cases, and its heartbeat and
// replication goroutines dial the same follower at the same instant, so
// which goroutine gets which draw or connection depends on the scheduler.
// Every run is verified by repetition (Config.Verify); most diverge, and
// RESULTS.md reports each seed's level. A replay reruns the seed and says
// whether its hash matched.
//
// # In simrun
//
// leasesim.json declares --impl hraft, run by TestLeasesimWorker:
//
//	bin/simrun list --impl hraft
//	bin/simrun run --impl hraft --scenario hraft-partition/3-fsm-reads --seed 1
package hraft
