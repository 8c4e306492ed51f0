package gohost

import (
	"context"
	"net"
	"time"

	"github.com/leasesim/leasesim/internal/netcore"
)

// The network is simnet's model (internal/netcore, the package simnet
// wraps): the same pipes, latencies, stalls and resets. The host plugs in
// its side through netHooks: deliveries join its one action queue (class
// deliver, keyed by pipe and sequence), what the network does joins the
// trace, and a reply reaches the reply triggers (triggers.go).

// netHooks is the host as the network sees it.
type netHooks host

func (nh *netHooks) h() *host { return (*host)(nh) }

// Now is true time since the start of the run.
func (nh *netHooks) Now() time.Duration { return nh.h().now() }

// Schedule queues a delivery. Callers hold mu.
func (nh *netHooks) Schedule(at time.Duration, key string, n uint64, do func()) {
	nh.h().push(&action{at: at, class: classDeliver, key: key, n: n, do: do})
}

// Event puts a delivery's event in the trace. Callers hold mu, on the
// host's goroutine.
func (nh *netHooks) Event(e netcore.Event) { nh.h().event(traceEvent(e)) }

// Note queues a node's network call for the trace. Callers hold mu.
func (nh *netHooks) Note(e netcore.Event) { nh.h().note(traceEvent(e), nil) }

// Reply reaches the reply triggers. Callers hold mu, on the host's
// goroutine.
func (nh *netHooks) Reply(r netcore.Reply) netcore.Verdict { return nh.h().replyTriggers(r) }

func traceEvent(e netcore.Event) Event {
	return Event{Kind: e.Kind, Node: e.Node, Peer: e.Peer, Detail: e.Detail, Digest: e.Digest}
}

// newNet builds the run's network, with a host per node in node order.
func (h *host) newNet() {
	h.net = netcore.New(netcore.Config{Mu: &h.mu, Hooks: (*netHooks)(h), Seed: h.seed,
		Latency: h.cfg.Latency, Prefix: "gohost", Dead: ErrCrashed})
	for _, ns := range h.nodes {
		ns.net = h.net.AddHost(ns.spec.Name)
	}
}

// Listen listens on the simulated network. network must be a TCP network;
// addr is ":port" or "name:port" with the node's own name (or a wildcard
// host: "", "localhost", "0.0.0.0", "::"); port 0 picks a free port.
func (n *Node) Listen(network, address string) (net.Listener, error) {
	return n.nl.Listen(network, address)
}

// Dial connects to "node:port" over the simulated network, the signature
// of grpc.WithContextDialer and http.Transport.DialContext. It takes a
// round trip; it fails with connection refused when nothing listens there,
// and with ctx's error when ctx ends first (a connect request stalled by a
// partition waits for the heal or for ctx).
func (n *Node) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	return n.nl.Dial(ctx, network, address)
}

// paused reports whether the node is paused. Callers hold mu.
func (ns *nodeState) paused() bool {
	p, _ := ns.net.Paused()
	return p
}
