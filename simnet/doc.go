// Package simnet is an in-memory TCP network for testing/synctest tests:
// hosts by name that Listen and Dial (net.Listener, net.Conn, and the
// DialContext signature, so it plugs into http.Transport.DialContext and
// grpc.WithContextDialer), per-segment latency drawn from a seed,
// partitions that stall (symmetric and one-way), connection resets, and
// loss applied as resets, plus [NewServer], an HTTP server in the spirit
// of net/http/httptest whose Client dials over the network.
//
// It is the goroutine host's network (gohost) on its own: the same model
// (internal/netcore), with bubble timers instead of the host's action
// queue and no history, scenario or trace. It is a top-level package, not
// gohost/simnet, because it needs nothing of the harness and a user who
// wants only a network should not read the harness's API to find it.
//
// Use it inside a synctest bubble: create the network there (its clock
// starts at New), and every latency, deadline and timeout runs on the
// bubble's clock, so a test of a 30 s partition takes microseconds.
//
//	synctest.Test(t, func(t *testing.T) {
//		n := simnet.New(simnet.Seed(1), simnet.Latency(5*time.Millisecond))
//		srv := simnet.NewServer(n, "api:80", handler)
//		defer srv.Close()
//		resp, err := srv.Client().Get(srv.URL + "/")
//		...
//	})
//
// Time stops once the bubble's main goroutine returns, and a close or a
// reset travels like any segment: before returning, close what you opened
// and let what is in flight arrive (time.Sleep past the largest latency),
// or a peer still reading (an HTTP client's idle connection, say) is left
// blocked and synctest reports a deadlock. [Server.Close] does this for
// the server and the clients it made.
//
// The model, in short:
//   - Each Write is one segment; a connection's segments arrive in order,
//     each after a latency drawn from its own stream (seeded from the
//     network's seed and the connection's name). Write never blocks.
//   - A cut link stalls: what reaches it waits, in order, until the heal,
//     then travels with a fresh latency. Nothing is lost and nothing
//     reset, as with TCP retransmitting across a partition: only the
//     code's own deadlines and timeouts notice. A Dial stalls too.
//   - [Loss] and [Network.ResetHost] / [Network.ResetBetween] reset
//     connections: each end reads ECONNRESET after what it had received.
//   - Close sends an orderly FIN: the peer reads EOF after the data.
//     Deadlines (SetDeadline and friends) are on the bubble's clock and
//     fail with os.ErrDeadlineExceeded.
//   - Errors name what was wrong: an unknown host is a *net.DNSError, no
//     listener is ECONNREFUSED, a port taken is EADDRINUSE, a network other
//     than TCP or an address without a port is refused, all wrapped in
//     *net.OpError.
//
// Determinism: inside a bubble the network's own decisions (every
// latency, every loss draw, the order of deliveries due at one instant)
// depend only on the seed and on what the code writes, in what order, on
// each connection. Goroutines woken at one instant still run in any order;
// code that does the same I/O whatever that order gets the same timings.
// Outside a bubble the network runs on real time (the package's examples
// do: an Example has no *testing.T to open a bubble with).
package simnet
