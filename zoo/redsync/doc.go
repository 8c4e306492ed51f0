// Package redsync runs github.com/go-redsync/redsync/v4 (v4.18.1),
// unchanged, over the redigo client (github.com/gomodule/redigo v1.9.3,
// through redsync's redis/redigo pool), unchanged, inside leasesim's
// goroutine host (package gohost), against a small simulated Redis that
// speaks RESP2 over the host's simulated network.
//
// # What it models
//
//   - The simulated Redis (Server, server.go, commands.go, keyspace.go):
//     one database served one command at a time, SET with NX/XX/PX/EX,
//     GET, DEL, PTTL, PEXPIRE, INCR, PING, SELECT 0, CLIENT SETNAME, and
//     EVAL/EVALSHA/SCRIPT LOAD of the three Lua scripts redsync sends,
//     recognised by their SHA1 (scripts.go) and run natively: there is no
//     Lua interpreter, and any other script is refused with a RESP error.
//     EVALSHA of a script not yet in the (per-life) script cache is
//     NOSCRIPT, so redigo's fallback EVAL of redsync's own body runs too.
//     PX expiry is on the server's clock (gohost.Node.Clock, so the
//     schedule's drift and steps apply to it); a key is there at its
//     expiry instant and gone after it, as in Redis. Persistence is a choice (ServerOptions): off
//     by default, a crash loses every key (and the INCR counter); with
//     AppendOnly every change is durable before its reply (appendonly yes,
//     appendfsync always), with its absolute expiry.
//   - Holders (Holder, holder.go): redsync's Mutex with its defaults
//     (expiry 8 s, 32 tries, drift factor 0.01) and a retry delay drawn
//     from the node's seeded source. A holder believes from Lock's return
//     until the mutex's Until(), moved by each successful Extend and ended
//     by a failed one, checks Until() before each write, and writes to the
//     shared fenced store (gohost.FencedStore). redsync has no fencing
//     token, so the configurations (Fencing) are: no token (token 0,
//     store accepts everything), a token from INCR lock:token after each
//     Lock with a store that does not enforce it, and the INCR token with
//     the fenced store (the standard fix).
//   - Recording: beliefs through Node.Believe/EndBelief/Release, and
//     Node.Act as a holder sends a write (which stretches the belief to
//     the write); the fenced store records its writes (P2); the Redis
//     operations P3 judges under the expiring-key specification (only
//     those the server processed are operations) are recorded from both
//     sides: the client's recording connection (client.go) calls
//     Node.Call before sending and Node.Return when the reply arrives,
//     and names the
//     request in band with a CLIENT SETNAME <ref> pipelined in the same
//     write; the server calls Node.Processed with the reply and its clock
//     reading (ops.go has the payload mapping).
//
// # Properties
//
// P1 (exclusivity) holds for redsync as long as a holder's code checks
// Until() between its check and its act without being stopped there, the
// clocks do not drift beyond 1 % and Redis keeps its keys; it fails under
// a pause between the check and the write that outlasts the lock
// (Kleppmann's story: Node.Act stretches the holder's belief to the write
// it sends on a stale check, the rule leasesim's event host applies), and
// when a volatile Redis restarts and forgets the key. Beyond the drift
// factor (Redis's clock 3 % fast) P1 is unknown, assumption exceeded.
// P2 (fencing) cannot hold without a token (every holder writes under token 0); with the INCR
// token and the fenced store it holds, unless a volatile Redis restart
// resets the counter and reissues a token. P3 holds for the simulated
// Redis except across a volatile restart (a key set for 8 s is gone
// early, which the specification rightly rejects). P4 judges the lock
// (HistoryConfig.Contended): the holders keep contending for it, so it
// must be held again within P4's bound after the heal.
//
// # In simrun
//
// leasesim.json declares --impl redsync, run by TestLeasesimWorker:
//
//	bin/simrun list --impl redsync
//	bin/simrun sweep --impl redsync --seeds 1-50 --parallel 2
//
// # Determinism
//
// redsync's lock values come from crypto/rand: every run sets
// gohost.Config.SeedCryptoRand (so the tests are not parallel). redsync's
// default retry delay uses the global math/rand, which Go 1.24+ cannot
// seed: the holders pass redsync.WithRetryDelayFunc with the same
// 50–250 ms range from Node.Rand. redigo was chosen over go-redis v9
// because on this path it draws no randomness (go-redis jitters its pool
// and retry backoff with math/rand), starts no goroutine (go-redis's pool
// dials in the background), sends no handshake (go-redis sends HELLO 3,
// CLIENT SETINFO and CLIENT MAINT_NOTIFICATIONS), and never retries a
// command on its own (go-redis retries up to 3 times, which would re-send
// a request whose reply was lost). Its commands are bounded by its
// dial-time read/write timeouts, since redsync's redigo adapter calls Do
// without a context.
package redsync
