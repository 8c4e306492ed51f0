// Package k8s runs Kubernetes client-go's leader election, unchanged, in
// leasesim's goroutine host (package gohost): k8s.io/client-go v0.37.2's
// tools/leaderelection with the real resourcelock.LeaseLock over the typed
// coordination/v1 client, reaching a small simulated API server over the
// simulated network with net/http. It is its own Go module, so the core
// module never depends on client-go.
//
// # What runs
//
//   - APIServer: coordination.k8s.io/v1 Leases over net/http on
//     "apiserver:6443": GET, POST (create) and PUT (update with
//     resourceVersion preconditions), in protobuf (what the typed client
//     sends by default) or JSON; NotFound (404), AlreadyExists and Conflict
//     (409) and Invalid (422, an update without a resourceVersion) as the
//     real apiserver sends them, metav1.Status objects that apierrors
//     classifies. Leases and the resourceVersion counter live in the
//     node's durable storage (etcd's role), so a restart keeps them.
//     SecureAPIServer serves the same over TLS on the same port, HTTP/2
//     or HTTP/1.1 by ALPN, with a self-signed Ed25519 certificate made
//     from a fixed seed (TLSClientConfig trusts it; the handshakes need
//     gohost.Config.SeedCryptoRand). The node heartbeats of package
//     nodelease use it; leader election uses plain HTTP/1.1.
//   - ReproducibleHTTP2 wraps a client's transport so that HTTP/2 repeats
//     run to run on the goroutine host: its request headers travel folded
//     into one sorted header (golang.org/x/net/http2 encodes them in Go's
//     map order), which the server unfolds; a failed request returns
//     1 ms late (x/net resets the timed-out stream from another goroutine
//     at the instant the caller retries); and a request body closes 1 µs
//     late (when the health check closes a connection, each aborted
//     stream resets itself once its body has closed).
//   - Candidate: a rest.Config{Host: "http://apiserver:6443", Dial:
//     n.Dial, WrapTransport: …}, coordinationv1client.NewForConfig, a
//     LeaseLock whose identity is "node_incarnation" (a pod's hostname_uuid:
//     new each life), and leaderelection.NewLeaderElector(…).Run. When a
//     run ends (the lead lost) the candidate joins again, as a controller
//     restarted by its kubelet would. The leader's work writes to the
//     shared fenced store (gohost.FencedStore) every second under its
//     token, until OnStartedLeading's context is cancelled (or, with
//     SlowShutdown, until its hanging OnStoppedLeading returns).
//
// # What the history records
//
// Beliefs (P1): from OnStartedLeading to the cancellation of its
// context, which is when client-go tells the application it no longer
// leads. The deadline is renewTime + LeaseDuration, renewTime being the
// candidate's own clock reading in the Lease it last wrote successfully
// as holder (read from the server's reply by a transport wrapper), moved
// at every successful renewal: the others count LeaseDuration from when
// they saw that record, which is later, so without clock drift the
// deadline is safe. client-go cancels the context at most RetryPeriod +
// RenewDeadline after the last successful renewal began (12 s with the
// usual timing, before the 15 s deadline), so the cancellation, not the
// deadline, ends the belief. Each write the leader's work sends is an
// action under its token (gohost.Node.Act, Env.Act): one sent after the
// cancellation stretches the belief to it, so P1 sees a leader that still
// acts after client-go told it to stop (slow-shutdown).
//
// Token (P2): the Lease's leaseTransitions in that reply. client-go adds
// one whenever the holder changes, under the resourceVersion
// precondition, so no two holders share one and they only grow; the
// fenced store refuses a write whose token is below the highest it took.
//
// Operations (P3, spec cas-record): a transport wrapper records every
// Lease request's call and return on the client (Node.Call, Node.Return)
// and carries its gohost.OpRef in the X-Leasesim-Op header; the server
// reports its processing and its reply (Node.Processed), with the
// payloads of /work/notes/ZOO.md's conventions. A request the server
// never processed is no operation (gohost leaves it out).
//
// Liveness (P4): the candidates keep contending for the Lease (one that
// loses joins again), so it is HistoryConfig.Contended; the history's
// lease configuration (Timing.Lease) gives P4's bound its LeaseDuration
// and, as BackoffMax, the longest wait of client-go's acquire loop,
// RetryPeriod × (1 + leaderelection.JitterFactor).
//
// # Determinism
//
// client-go's jitter (wait.Jitter) draws from math/rand's global source.
// The scenarios set gohost.Config.SeedMathRand, so the host seeds it from
// the run's seed at the start of each run; since Go 1.24 rand.Seed does
// nothing unless GODEBUG=randseednop=0, which a test binary sets with a
// `//go:debug randseednop=0` line in one of its test files (main_test.go
// here; without it the host fails the test, naming the fix). The global
// source is process-wide: such runs must not be parallel.
//
// Two timing choices keep client-go's own timers off each other: with
// RenewDeadline an exact multiple of RetryPeriod (the defaults, 10 s and
// 2 s), the renewal poll's tick and its timeout fire at the same instant
// of the bubble's clock, and with rest.Config.Timeout = RenewDeadline/2
// (what resourcelock.NewFromKubeconfig sets) two timed-out requests end
// exactly at the poll's deadline. Which timer the code sees first is then
// the Go runtime's choice, and Verify reports the run as diverged there
// (TestMeasureDefaultTiming counts them; see RESULTS.md). The scenarios
// run with ScenarioTiming (RetryPeriod 1.9 s) and no client timeout.
//
// # What does not apply
//
// Clock drift and steps: LeaderElector's clock is an unexported field set
// to clock.RealClock{}, which reads time.Now, the bubble's one clock, so
// a per-node drifting clock cannot be injected (the Kubernetes
// maintainers point to synctest instead, kubernetes#134331). The
// scenarios schedule none. Pause is gohost's I/O pause: the node's
// timers keep running, so client-go still gives up on time; what a pause
// delays is the node's I/O: a write it sent is held and leaves at the
// resume even if the code gave up on it (leader-io-stalled).
//
// # simrun
//
// leasesim.json declares two --impl names: k8s/leaderelection (the
// scenarios with the fenced store, Scenarios) and
// k8s/leaderelection/unfenced (the same scenarios, same names, with a
// store that takes every write, UnfencedScenarios); worker_test.go has
// their worker tests.
package k8s
