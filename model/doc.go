// Package model holds the sequential specifications that P3 checks a
// recorded history against, as porcupine models. They are pure functions of
// their arguments: nothing here runs, reads a clock or keeps state between
// calls. Inputs and outputs are plain data defined here (strings, integers,
// durations in nanoseconds), so that any implementation's history can be
// judged, whatever its wire protocol; an implementation declares which
// specification it follows.
//
//   - Lease (LeaseInput, LeaseOutput) is leasesim's lease store: acquire,
//     renew, release, revoke, checkpoint, read_checkpoint and query, with
//     expiry on the grantor's own clock readings carried in its replies and
//     the expiry policy a parameter (HoldRho: TTL×(1+rho), leasesim's;
//     ExactTTL; the restart rule).
//   - ExpiringKey (KeyInput, KeyOutput) is a key with server-side expiry, as
//     a Redis lock uses it: SET NX PX, compare-and-delete,
//     compare-and-PEXPIRE, and INCR for fencing tokens.
//   - CASRecord (RecordInput, RecordOutput) is a record under optimistic
//     concurrency with no server-side expiry: a Kubernetes Lease.
//   - Lessor (LessorInput, LessorOutput) is an etcd-style lessor: leases
//     with a TTL, keepalive, revoke, keys attached to leases, revisions.
//   - ZooKeeperSession and ConsulSession (over history operations only)
//     are a ZooKeeper server's sessions, ephemeral and sequential nodes,
//     and a Consul server's sessions, KV locks and lock-delay. They share
//     one invalidation window per session (session_window.go): a session
//     is valid before its timeout runs out after its last renewal and gone
//     after the invalidation bound the history declares (Lease.HoldPPB),
//     and the instant in between is narrowed by what later operations
//     observe; Consul's lock-delay is Lease.LockDelay. Neither is
//     partitioned: a session spans nodes and keys.
//   - Register (RegisterInput, RegisterOutput) is the fenced resource: a
//     write is accepted only under a token at least as high as every token
//     accepted before.
//   - CASRegister (CASInput, CASOutput) and Mutex (MutexInput, MutexOutput)
//     are the compare-and-set register and the mutex Jepsen's knossos
//     judges, for histories others recorded (package history/jepsen,
//     simrun check --format jepsen-log / jepsen-edn).
//
// The decisions behind the lessor window and its bound (what was relaxed
// or tightened, the history that forced it, the etcd documentation or
// code it follows) are in docs/decisions.
//
// Each is partitioned by what it keeps apart (resource, key, record name)
// where that is valid: a history is linearizable if and only if each
// partition is. Lessor is not partitioned, since a lease spans keys and the
// revision is global. Each has a Spec constructor (LeaseSpec, ...) that adds
// its name and Explain, which says which rule an operation breaks, for
// evidence. Differential tests check every model against plain porcupine
// over whole histories and against a brute-force search.
//
// The specifications also read a recorded history directly
// (operations.go): LeaseStore and FencedRegister (and their Specs) take
// *history.Operation inputs and *history.Payload outputs, and the
// expiring key and the compare-and-swap record accept them beside their
// own types. SpecFor gives the specification a history's header names,
// for its lease configuration. The package imports nothing of leasesim
// but package history: no kernel, host or protocol.
package model
