// Package consul runs github.com/hashicorp/consul/api (v1.34.5, pinned in
// go.mod), unchanged, inside leasesim's goroutine host (package gohost):
// api.Lock and api.Semaphore, with their session renewal and lock
// monitoring goroutines, talk HTTP over the host's simulated network
// (http.Transport.DialContext = Node.Dial) to a simulated Consul agent and
// server written here. The Consul server is not embeddable Go (its licence
// is BUSL), so, as zoo/redsync does for Redis, this package simulates it
// from Consul's documentation; no upstream code is copied.
//
// # The simulated server and the documentation each rule follows
//
// One node (ServerNode) is the agent and a one-server cluster (server.go,
// handlers.go, state.go). It serves what api.Lock and api.Semaphore call:
// PUT /v1/session/create, renew/:id, destroy/:id, GET info/:id; GET
// /v1/kv/:key (with ?recurse and blocking ?index= &wait=), PUT (with
// ?acquire=, ?release=, ?cas=, ?flags=) and DELETE (with ?cas=, ?recurse).
// Every answer carries X-Consul-Index, X-Consul-KnownLeader and
// X-Consul-LastContact, which the client parses.
//
//   - Sessions ("Sessions and distributed locks overview",
//     developer.hashicorp.com/consul/docs/automate/session, and the
//     /v1/session HTTP API reference): a session is invalidated when it is
//     destroyed or its TTL expires; the Behavior release (the default)
//     clears the Session of every key it holds, delete deletes them. A TTL
//     must lie between 10 s and 24 h; LockDelay defaults to 15 s and is
//     capped at 60 s (the endpoint reads a bare number below 1000 as
//     seconds). A renewal of an invalidated session is 404. Health checks
//     are not simulated: a create naming Checks or NodeChecks is refused,
//     and api.Lock names none (Consul would bind the agent's serfHealth
//     check, which never fails here: the agent is the server's own node).
//   - The TTL is a lower bound. Consul's pull request #524 (which added
//     session TTLs, after Chubby) says "Consul promises not to terminate a
//     session before the TTL has expired, but is allowed to extend the
//     expiration past it", and the session API reference (its TTL field)
//     warns that a session may be reaped as late as twice its TTL after
//     its last renewal. The server invalidates a session
//     TTL×ServerOptions.TTLMultiplier after its last renewal on its own
//     clock (gohost.Node.Clock): 2 by default, the
//     SessionTTLMultiplier Consul's leader applies (agent/consul/
//     session_ttl.go). The timers are not durable, as Consul's leader keeps
//     them in memory.
//   - Lock-delay (the sessions overview, "lock-delay"): after a session is
//     invalidated, every key it held refuses ?acquire= for the session's
//     LockDelay; a release by the holder sets none. Lock-delays live in
//     memory, not in the Raft log, so a restart forgets them.
//   - KV acquire and release (the /v1/kv HTTP API reference): ?acquire=ID
//     succeeds when the key is free, the session valid and no lock-delay in
//     force; it sets Session, increments LockIndex (not when the holder
//     acquires again) and writes the value; a key need not exist. An
//     unknown session is an error (500). ?release=ID only by the holder.
//     ?cas=0 writes only a missing key, ?cas=N only at ModifyIndex N.
//   - Blocking queries (the HTTP API's "Blocking queries" page): a read
//     with ?index=N answers once the result's index exceeds N, or after
//     ?wait (5 min by default, at most 10) plus a jitter of up to wait/16
//     drawn from the node's seeded source. The index of a key read is its
//     ModifyIndex, of a list the highest ModifyIndex in it, and the KV
//     table's index (which deletes raise too) when nothing is found.
//   - Durability and failover: every write is in the node's durable
//     Storage before its reply (Raft commits it). A crash and restart of
//     the node is a leader failover of a one-server cluster: the new
//     leader answers 500 "No cluster leader" for ServerOptions.Election
//     (1 s in DefaultServer), then, as initializeSessionTimers does,
//     restarts every session's TTL timer from its own clock: a failover
//     renews every session.
//   - Not simulated: more than one server (stale reads, ?consistent is
//     accepted and means nothing here), ACLs, namespaces, transactions,
//     health checks, and X-Consul-LastContact is always 0.
//
// Variants, not Consul, for the stories to catch (ServerOptions):
// IgnoreLockDelay (never refuses for a lock-delay) and a TTLMultiplier
// below 1 (invalidates before the documented lower bound).
//
// # Holders
//
// Holder runs api.Lock (or api.Semaphore with limit 1) as the `consul
// lock` command does (developer.hashicorp.com/consul/commands/lock: the
// child runs while the lock is held and is terminated if it is lost):
// it believes from Lock's return (gohost.Node.Believe) until Lock's lost
// channel closes (history.EndLost), a write is fenced, or it unlocks
// (Release). It checks the lost channel before each write, records its
// decision to write (Node.Act: an action counts at the decision, before any
// point where the code may stall, the rule on every host), reaches the
// before-write failpoint and writes to the shared gohost.FencedStore.
// api.Lock hands out no token: NoToken writes under 0 to a store that
// accepts everything; ModifyIndex and LockIndex read the
// lock's key right after Lock (the belief then starts at that read) and
// write under its ModifyIndex or LockIndex to the fenced store.
//
// HolderConfig.Budget is a holder-side fix for hashicorp/consul#18271 (as
// hashicorp/terraform#15557 manages the session in Terraform's Consul
// backend; budget.go): the holder creates its session, hands it to
// api.Lock (LockOptions.Session), renews it itself with each renewal
// bounded by half the TTL, and believes only until a TTL after it sent its
// last successful renewal, before the server may invalidate the session.
//
// # Properties
//
// P1 (exclusivity) is what the stories are about. api.Lock's session
// renewal runs in a goroutine whose error is discarded, and only the
// monitor's blocking query can close the lost channel
// (hashicorp/consul#18271), so a holder cut off from the server past its
// TTL keeps believing until the cut heals while another client locks: P1
// is violated in the correct configurations of the cut-off and GC-pause
// stories, for that reason (and holds in the cut-off story with Budget). P2 (fencing) fails without a token wherever
// the lock changes hands; with the ModifyIndex or LockIndex token and the
// fenced store it holds. P4 judges the lock (HistoryConfig.Contended)
// with B = TTL×multiplier (HoldPPB) + the lock-delay (LockDelay) +
// api.Lock's 5 s retry and the holder's idle (BackoffMax) + 1 s.
//
// P3 judges the fenced store's writes and the server's own requests: the
// server records every session and KV request it serves (ops.go) and a
// new leader's failover with the sessions it renewed, as operations of the
// consul-session specification (model.ConsulSessionSpec), with the holds
// the history declares: a session is invalidated no earlier than its TTL
// and no later than TTL×multiplier after its last renewal (HoldPPB), and
// a key its invalidation released refuses every acquire for the
// lock-delay (LockDelay). The IgnoreLockDelay and early-invalidation
// variants are P3 violations; the correct server is linearizable. The
// operations are recorded at the server as it serves them (call,
// processing and return at one instant): P3 judges the server's
// processing order, the beliefs judge what reached the clients.
//
// # Determinism
//
// The server's session IDs and query jitter come from its Node.Rand; the
// API client draws no randomness. Three choices keep the client's
// goroutines off one another (see NewClient, dialQueue and settle): a
// connection per request (net/http's idle pool hands a connection back
// from another goroutine at the instant of the next request), dials let
// through one at a time in the order they were asked for (a paused node's
// held-back dials all proceed at its resume), and a 1 ms pause after Lock
// returns before the holder's own requests (Lock's monitor sends its first
// query at that instant). lifeTransport answers every request of a
// crashed or finished life at once with a non-retryable status, so that
// RenewPeriodic and monitorLock, which retry network errors on their own
// timers, end with the life instead of outliving it as leaks.
//
// # In simrun
//
// leasesim.json declares --impl consul, run by TestLeasesimWorker:
//
//	bin/simrun list --impl consul
//	bin/simrun run --impl consul --scenario consul-cutoff/modify-index --seed 1
//
// The module's go directive is 1.26.7, not the other zoo modules' 1.26.0:
// github.com/hashicorp/consul/api v1.34.5 requires go 1.26.7.
package consul
