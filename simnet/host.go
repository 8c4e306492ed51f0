package simnet

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/leasesim/leasesim/internal/netcore"
)

// Host is a named machine on a [Network]: it listens and dials. Its
// addresses are "name:port".
type Host struct {
	net  *Network
	life *netcore.Life
}

// Host returns the host named name, adding it on first use. A name is
// what others dial ("api" in "api:80"): Host panics on an empty name or
// one with a colon, which no address could name.
func (n *Network) Host(name string) *Host {
	if name == "" || strings.Contains(name, ":") {
		panic(fmt.Sprintf("simnet: bad host name %q: want a non-empty name without a colon", name))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if h := n.hosts[name]; h != nil {
		return h
	}
	h := &Host{net: n, life: n.core.AddHost(name).NewLife(1)}
	n.hosts[name] = h
	return h
}

// Name returns the host's name.
func (h *Host) Name() string { return h.life.Host().Name() }

// Listen listens on the host: network is "tcp" (or "tcp4", "tcp6");
// address is ":port" or "name:port" with the host's own name (or
// "localhost", "0.0.0.0", "::"); port 0 picks a free port. Accept blocks
// until a connection arrives, one connect round trip after its Dial
// started. Closing the listener resets connections not yet accepted.
func (h *Host) Listen(network, address string) (net.Listener, error) {
	return h.life.Listen(network, address)
}

// Dial connects to "host:port", with the signature of
// http.Transport.DialContext and grpc.WithContextDialer. It takes one
// round trip and fails with ECONNREFUSED when nothing listens there, with
// a *net.DNSError for a host the network has not got, and with ctx's
// error when ctx ends first (a connect stalled by a partition waits for
// the heal or for ctx). Each Write on the connection is one segment,
// delivered in order after the link's latency; Write never blocks.
func (h *Host) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	return h.life.Dial(ctx, network, address)
}

// Transport returns an HTTP transport whose connections the host dials
// over the network.
func (h *Host) Transport() *http.Transport {
	return &http.Transport{DialContext: h.Dial}
}
