// Package nodelease runs Kubernetes node heartbeats, leases used as a
// failure detector, in leasesim's goroutine host (package gohost): the
// kubelet's lease controller, unchanged, on each simulated node, renewing
// a Lease in kube-node-lease against zoo/k8s's simulated API server, and
// a model of the node lifecycle controller's lease logic judging the
// nodes. The history it records is a failure detector's (its lease
// configuration declares a detection bound), so P7 (accuracy) and P8
// (completeness) judge it.
//
// # What runs
//
//   - Kubelet: k8s.io/component-helpers/apimachinery/lease v0.37.2 (the
//     kubelet's node lease controller, pinned with zoo/k8s's client-go
//     v0.37.2), unchanged: lease.NewController with the node's own clock
//     (k8s.Clock, so a step of the node's wall clock shows in the
//     RenewTime it writes), a kubernetes.Clientset over the simulated
//     network, holder identity and Lease name the node's name, a
//     LeaseDuration of 40 s, a renew interval of 10 s (the kubelet's
//     nodeLeaseRenewIntervalFraction 0.25 of it) and a request timeout of
//     10 s (the kubelet's heartbeat client: nodeStatusUpdateFrequency,
//     capped at the lease duration; pkg/kubelet and cmd/kubelet/app).
//     The controller jitters its interval by up to 4% with math/rand's
//     global source, which the host seeds (SeedMathRand).
//   - The kubelet's client (Heartbeat.Recovery), built by client-go from
//     a rest.Config, over HTTPS to k8s.SecureAPIServer (a fixed Ed25519
//     certificate; the handshakes draw from crypto/rand, which the host
//     seeds: SeedCryptoRand). As cmd/kubelet/app/server.go's
//     buildKubeletClientConfig makes it since kubernetes#108107
//     (HealthCheck, the default): HTTP/2 by ALPN, client-go's HTTP/2
//     health check (#95981; apimachinery's SetTransportDefaults: a PING
//     after 30 s without a frame read, the connection closed if it is not
//     answered within 15 s) and an onRepeatedHeartbeatFailure hook that
//     closes the idle connections of clientConfig.Transport, which is nil
//     for a client config from a kubeconfig without certificate rotation:
//     the hook closes nothing. With DISABLE_HTTP2 (CloseAll,
//     k8s/nodelease/disable-http2): HTTP/1.1, a connrotation dialer and a
//     hook that closes every connection it made (updateDialer,
//     Dialer.CloseAll: #52176, #63492). Before #52176, on a client-go
//     before #95981 (NoRecovery, k8s/nodelease/no-conn-reset): HTTP/2, no
//     health check (HTTP2_READ_IDLE_TIMEOUT_SECONDS=0), no hook. client-go
//     reads those environment variables as it builds the transport; each
//     client is built with its configuration's values, under a lock.
//   - Monitor: a model, written from scratch, of the lease logic of the
//     node lifecycle controller (kubernetes pkg/controller/nodelifecycle,
//     node_lifecycle_controller.go, tryUpdateNodeHealth): every
//     --node-monitor-period (5 s) of its own clock it reads each node's
//     Lease, refreshes the node's probe time to its own clock's reading
//     when the Lease's RenewTime moved forward (savedLease.Spec.RenewTime.
//     Before(observedLease.Spec.RenewTime)), and marks the node Unknown
//     when its clock is past probe time + --node-monitor-grace-period
//     (50 s): the grace is timed on the controller's observations, never
//     on the RenewTime value. Each change of verdict is recorded as a
//     history.Declaration (gohost.Node.Declare). It is a model, not the
//     real controller, because the real one reads Nodes and Leases through
//     informers (list and watch), which the simulated API server does not
//     serve (it serves GET, POST and PUT of Leases), and it needs Node
//     objects, Pods and taints besides: the model reads each Lease with a
//     GET at each pass (what the informer's cache would hold, fresher),
//     and stands in for the kubelet's status update, which marks a node
//     Ready again, by declaring a node alive when it sees its Lease renewed
//     again. It reads over HTTPS and HTTP/2 with client-go's health
//     check, as kube-controller-manager's client does.
//     Monitoring.NoGraceCheck removes the grace-period check (a
//     controller that never marks a node Unknown): P8's variant.
//
// # What the history records
//
// Operations (P3, spec cas-record): every Lease request of the kubelets
// and of the model, through k8s.RecordingTransport. Declarations (P7,
// P8): the model's verdicts. Lease configuration: the Lease duration as
// TTL, the kubelet's renew interval with its jitter (10.4 s) and its
// request timeout (P7's schedule), and the detection bound
// (Monitoring.DetectBound: grace + 2 × monitor period + the model's read
// timeout, 62 s by default) as detect_bound_ns. No beliefs: a node
// believes nothing, it only heartbeats.
//
// # Stories
//
// node-clock-step-back (kubernetes#113081), controller-clock-jump
// (kubernetes#108844), renew-near-grace (kubernetes#80172),
// node-partitioned (P8 holds; without the grace check it is violated) and
// node-connection-stalled; Scenarios for simrun's k8s/nodelease,
// NoGraceCheckScenarios for k8s/nodelease/no-grace-check,
// NoConnResetScenarios and DisableHTTP2Scenarios for the two other
// kubelet clients (../leasesim.json). The knobs (renew interval, grace
// period, monitor period) are swept with simrun tune (RESULTS.md).
//
// # The stalled connection
//
// node-connection-stalled stalls node-1's open connections to the API
// server at 30 s for good (gohost's stall-conns fault: no byte passes
// either way, neither end sees a reset, a new connection works), the
// failure of PRs #52176 and #63492: over HTTP/2 a request that times out
// resets its stream, not the connection, so every later heartbeat goes to
// the same connection. Today's kubelet renews again 45 s after its last
// renewal (30 s read idle plus a 15 s PING timeout, the health check),
// within the 50 s grace period; with DISABLE_HTTP2 some 20 s after (the
// timed-out HTTP/1.1 request closes its connection, and the lease
// controller's retry dials a new one: the hook is not what recovers it);
// without either, never: the controller marks node-1 Unknown for the rest
// of the run. P7 holds in all three: node-1 does not renew, so the
// verdict is not false by P7's rules; the fault is the kubelet's, whose
// heartbeat stops while its node and a path to the API server are up, and
// no property of P1-P8 judges that (RESULTS.md reports it).
//
// Three simplifications keep HTTP/2 reproducible (k8s.ReproducibleHTTP2):
// request headers travel folded into one sorted header (x/net encodes
// them in map order), which the server unfolds; a failed request returns
// 1 ms late, so that x/net's stream reset goes out before the retry that
// the same instant sends; and a request body closes 1 µs late, so that
// when the health check closes a connection, its close goes out before
// the aborted renewal's stream reset. Linux's TCP would give up on the
// stalled connection after some 15 minutes (tcp_retries2); the simulated
// network never does.
//
// # Determinism
//
// Verified by repetition, as zoo/k8s: the host seeds math/rand's global
// source and crypto/rand (testing/cryptotest.SetGlobalRandom) at the
// start of each run (the test binary sets GODEBUG randseednop=0,
// main_test.go). The TLS certificate is made once, from a fixed seed,
// when zoo/k8s loads. HTTP/2 repeats through k8s.ReproducibleHTTP2; a
// request without a body would still race the health check's close
// (RESULTS.md); in these stories it fires during the kubelet's retried
// renewals, which are PUTs.
package nodelease
