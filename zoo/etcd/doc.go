// Package etcd is leasesim's real-time host for real etcd: it judges an etcd
// v3.7 cluster and unchanged clientv3/concurrency lock holders with the same
// history and checkers as the simulator.
//
// Run starts 1 or 3 members (cmd/etcdmember, built from this module by
// Build) as child processes on loopback ports in a temporary directory, a
// userspace TCP fault proxy in front of every client-to-member and
// member-to-member connection, an in-process fenced store, and holder
// processes (cmd/etcdholder) that lock a concurrency.Mutex on a Session with
// a TTL and write to the store under the lock key's create revision. A
// faults.Schedule drives the proxy and the processes (SIGSTOP/SIGCONT,
// SIGKILL, restart; SupportedKinds says which kinds and how). True time is
// CLOCK_MONOTONIC since the run's start, shared by every process. The history
// records beliefs, fenced writes, the holders' lock and lease operations and
// the faults; Judge runs checker.Check on it and writes the run directory.
// Replay is statistical: Repeat runs a story N times and reports how often
// its outcome reproduced.
//
// Stories has the three stories of issue 12 (a holder paused past its TTL;
// etcd #22082, a retried Unlock deleting a newer lock; the leader
// partitioned away and the leases' TTLs extended on the new leader's
// promotion). cmd/etcdstories runs them.
package etcd
