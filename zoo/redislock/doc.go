// Package redislock is a Redis-style lock, written from scratch as a
// leasesim implementation that keeps its own protocol: the single-instance
// lock of https://redis.io/docs/latest/develop/use/patterns/distributed-locks/
// with a fencing token, as go-redsync and most Redis-lock libraries build it.
// It borrows nothing from package lease but its types and interfaces, and
// the harness's fenced store (lease.NewResource).
//
// # The model
//
// The Impl's grantor is one Redis-like server (server.go): an in-memory key
// space whose keys expire on the server's own monotonic clock, as PX does (a
// key set with TTL d at reading t is present through t+d and gone after),
// running one command at a time. Its commands (messages.go) are SET key
// value NX PX ttl, GET, the unlock script (if GET == value then DEL), the
// touch script go-redsync uses to extend (if GET == value then PEXPIRE) and
// INCR. Every Command and Reply describes itself in the expiring-key
// specification's terms (history.Described) and digests its contents.
//
// Persistence is a deployment choice (Options.Persistence, persistence.go).
// The default, AppendFsyncAlways, syncs every change to env.Store before
// replying and reloads the key space on restart; a stored expiry is a
// reading of the same monotonic clock, which keeps running across a process
// restart on one host, so a lock outlives a server crash exactly as long as
// it would have without it, and the fencing counter continues. Real Redis
// stores expiries as wall-clock times; this server uses the monotonic clock,
// as the harness's clock-step scenario demands. AppendFsyncEverySec (Redis's
// default AOF setting) and NoPersistence (no AOF, no RDB) are offered as
// ImplWith variants: they lose acknowledged SETs and INCRs in a crash, the
// classic Redis-lock bug, and RESULTS.md measures what that costs.
//
// The holder (holder.go, session.go) locks resource R with:
//
//  1. INCR fence:R, whose reply N is the fencing token;
//  2. SET lock:R "<holder>/<N>" NX PX TTL. On OK it believes until the
//     reading at which it sent the SET plus TTL×(1−2rho) − Margin. The
//     server expires the key at exactly TTL on its own clock, so the holder
//     budgets both clocks' drift (Impl.DriftSplit = lease.SplitHolderBudgets):
//     L on its clock is at most L/(1−rho) of true time, and the key lives at
//     least TTL/(1+rho), and (1−2rho)(1+rho) ≤ 1−rho. Anyone else holding
//     the key means a jittered exponential backoff (env.Rand) and a new
//     attempt with a new token.
//  3. Every RenewInterval after the last successful SET or touch was sent,
//     the touch script with the same value and TTL; success extends belief
//     to that request's send time plus the validity; a refusal (the key is
//     gone or someone else's) ends belief (EventLost, OnLost) and locking
//     starts over. A request unanswered after RequestTimeout is given up (a
//     touch is sent again at once, an attempt backs off), so a lost reply
//     never wedges the holder.
//  4. Release: belief ends at once (EventRelease) and the unlock script
//     deletes the key if it is still ours (fire and forget).
//
// Belief also ends at the holder's own deadline (EventLost), but the
// session keeps touching the key: since every value is used once, a touch
// that succeeds proves the key was ours all along, and the holder believes
// again under the same token. The same rule recovers a SET whose reply was
// lost: the session asks with the touch script instead of guessing. The
// cost is liveness, not safety: a holder whose replies are lost keeps its
// key alive without believing (asymmetric-partition: nobody holds the lock
// until the partition heals).
//
// Writes go to the harness's fenced store as lease.Message writes carrying
// the token, after the before-write failpoint; a write refused as stale ends
// belief (EventFenced, OnLost) and locking starts over. Request ids carry a
// durable boot count in their high 32 bits, so a reply to a previous
// incarnation is never mistaken for one to this.
//
// # Capabilities
//
// Declared: side effects (fire-and-forget to the store) and the
// before-write failpoint. Not declared: checkpoints (a Redis lock stores no
// state with the lock) and registrations. worker-crash-handoff and
// service-registry therefore are skipped, with the reason; grantor-restart,
// message-chaos and swarm, whose workers are optional, run without them
// (scenarios.Adaptations), so the restart and chaos stories are still told.
//
// # What should hold
//
// Exclusivity (P1) holds whenever clocks drift within rho, under pauses,
// partitions, restarts of holders and, with AppendFsyncAlways, of the
// server: a holder believes no longer than the key can live. It may fail
// only when drift exceeds rho (clock-drift-beyond). Fencing (P2) holds as
// long as the fencing counter is durable; without persistence, tokens are
// issued again from 1 after a server restart and two holders write under
// one token. The server is linearizable against the expiring-key
// specification (P3), except, by design, across a restart that loses keys.
//
// Mutant is a real go-redsync bug (a refused extend read as success);
// RESULTS.md has the measurements over seeds 1-200.
package redislock
