package zookeeper

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/leasesim/leasesim/gohost"
)

// ServerAddr is the simulated ZooKeeper's address on the host's network.
const ServerAddr = ZooKeeperNode + Port

// Connect opens a go-zookeeper session, unchanged, to the simulated
// ZooKeeper through the node's network: zk.WithDialer over d, that is
// Node.Dial (bounded by the client's connect timeout, and by the life's
// context so a crash ends a dial), a static host provider (go-zookeeper's default one
// resolves names with the real DNS), zk's logger silenced, and onEvent as
// zk.WithEventCallback, which sees every session state change as the
// client makes it (the event channel drops events when it is full).
//
// Randomness: go-zookeeper shuffles the server list with math/rand, which
// draws nothing for a list of one, and names protected lock nodes with 16
// bytes of crypto/rand (the run must set gohost.Config.SeedCryptoRand).
func Connect(n *gohost.Node, d *dialer, sessionTimeout time.Duration, onEvent func(zk.Event)) (*zk.Conn, error) {
	c, _, err := zk.Connect([]string{ServerAddr}, sessionTimeout, zk.WithDialer(d.dial),
		zk.WithHostProvider(&staticHosts{}), zk.WithLogger(quiet{}), zk.WithLogInfo(false),
		zk.WithEventCallback(onEvent))
	return c, err
}

// dialer dials over the node's network for zk.WithDialer and keeps the
// connections it made, so that a stopping holder can cut them (stop).
type dialer struct {
	n       *gohost.Node
	mu      sync.Mutex
	conns   []net.Conn
	stopped bool
}

// errStopped is a dial after the holder stopped.
var errStopped = errors.New("zookeeper: the holder stopped")

// dial connects to address within timeout (the client's connect timeout)
// or until the life ends.
func (d *dialer) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	stopped := d.stopped
	d.mu.Unlock()
	if stopped {
		return nil, errStopped
	}
	ctx, cancel := context.WithTimeout(d.n.Context(), timeout)
	defer cancel()
	c, err := d.n.Dial(ctx, network, address)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		c.Close()
		return nil, errStopped
	}
	d.conns = append(d.conns, c)
	return c, nil
}

// stop closes every connection made and refuses every later dial.
func (d *dialer) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	for _, c := range d.conns {
		c.Close()
	}
	d.conns = nil
}

// quiet is zk's logger, silenced.
type quiet struct{}

// Printf drops the message.
func (quiet) Printf(string, ...any) {}

// staticHosts is a zk.HostProvider over a fixed list, with the rotation of
// go-zookeeper's DNSHostProvider (dnshostprovider.go) but no name lookup:
// Next cycles through the list and says retryStart once it has come round
// to the last server it connected to (then the client fails the requests
// not yet sent with ErrNoServer and waits a second before it dials again).
type staticHosts struct {
	mu            sync.Mutex
	servers       []string
	current, last int
}

// Init keeps the servers.
func (h *staticHosts) Init(servers []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.servers = append([]string(nil), servers...)
	h.current, h.last = -1, -1
	return nil
}

// Len returns how many servers there are.
func (h *staticHosts) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.servers)
}

// Next returns the next server, and whether the list has been tried all
// round since the last successful connection.
func (h *staticHosts) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.current = (h.current + 1) % len(h.servers)
	retryStart := h.current == h.last
	if h.last == -1 {
		h.last = 0
	}
	return h.servers[h.current], retryStart
}

// Connected marks the current server as the last one connected to.
func (h *staticHosts) Connected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = h.current
}
