// Package etcd is leasesim's real-time host for real etcd: it judges an etcd
// v3.7 cluster and unchanged clientv3/concurrency lock holders with the same
// scenario API, history, premises, checkers and reports as the simulator.
//
// Run starts 1 or 3 members (cmd/etcdmember, built from this module by
// Build) as child processes on loopback ports in a temporary directory, a
// userspace TCP fault proxy in front of every client-to-member and
// member-to-member connection, the fenced store every goroutine-host story
// uses (gohost.ServeFencedStore, on a real listener), and holder processes
// (cmd/etcdholder) that lock a concurrency.Mutex on a Session with a TTL and
// write to the store under the lock key's create revision. A
// faults.Schedule drives the proxy and the processes (SIGSTOP/SIGCONT,
// SIGKILL, restart; SupportedKinds says which kinds and how). True time is
// CLOCK_MONOTONIC since the run's start, shared by every process. The
// history records beliefs (each ends at its holder's own deadline at the
// latest: the TTL after its answered keepalive request was sent), actions
// at the holder's decision, fenced writes, the holders' lock and lease
// operations and the faults.
//
// Each story is a scenarios.Scenario whose Processes run on an Env
// (scenarios.HostProcess): scenarios.Execute judges it, its premises are
// scenarios.Premise values, and Env.Execute writes its run directory
// through reports.ProcessRun and reports.WriteRunDir, as simrun writes
// every host's, so `simrun check DIR/history.jsonl` gives the same verdicts
// and report. Replay is statistical: Env.Repeat runs a story N times and
// reports how often it reproduced.
//
// Env.Stories has Kleppmann's GC pause (the catalogue's story, with the
// event host's verdicts), etcd #22082 (a retried Unlock deleting a newer
// lock) and the leader partitioned away (the leases' TTLs extended on the
// new leader's promotion), each fenced and unfenced where fencing is the
// point. cmd/etcdstories runs them.
package etcd
