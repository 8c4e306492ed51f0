package netcore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"syscall"
)

// Host is a named machine on the network, across its lives.
type Host struct {
	net    *Net
	name   string
	paused bool
	resume chan struct{} // closed when a pause ends
	dials  uint64
	ports  int
}

// Name returns the host's name.
func (h *Host) Name() string { return h.name }

// Life is one incarnation of a host: its connections and listeners, which
// die with it. A host that never crashes has one life.
type Life struct {
	host      *Host
	n         uint64
	dead      bool
	endpoints []*endpoint
	listeners []*listener
}

// NewLife starts incarnation n of the host. Callers hold mu.
func (h *Host) NewLife(n uint64) *Life { return &Life{host: h, n: n} }

// Host returns the life's host.
func (l *Life) Host() *Host { return l.host }

// Kill ends the life: its calls fail with the network's dead error, its
// connections are reset (peers read a reset behind what was sent) and its
// listeners closed. Callers hold mu.
func (l *Life) Kill() {
	l.dead = true
	for _, e := range l.endpoints {
		e.kill()
	}
	for _, ln := range l.listeners {
		ln.closeLocked()
	}
}

// Reset resets every open connection of the life whose peer is on host
// peer ("" for any peer), in the order they were made: each end reads a
// reset after what it had received. Callers hold mu.
func (l *Life) Reset(peer string) int {
	n := 0
	for _, e := range l.endpoints {
		if e.closed || e.reset || (peer != "" && e.out.to.name != peer) {
			continue
		}
		e.abort()
		n++
	}
	return n
}

// Freeze stalls every established connection of the life whose peer is
// a host peer selects, in the order they were made, without resetting
// it: from now on no segment passes either way (what is in flight stays
// on its pipe), neither end sees an error, and each end's reads wait for
// their deadline, as over a path that drops every packet of the
// connection while the hosts stay up (a middlebox that lost the flow's
// state). New connections are not affected. A closed end or one being
// dialled is left alone. It returns how many connections it stalled;
// Net.Thaw undoes it. Callers hold mu.
func (l *Life) Freeze(peer func(string) bool) int {
	n, count := l.host.net, 0
	for _, e := range l.endpoints {
		if e.closed || e.reset || !e.established || e.out == nil || e.in == nil || e.out.frozen ||
			!peer(e.out.to.name) {
			continue
		}
		e.out.frozen, e.in.frozen = true, true
		n.frozen = append(n.frozen, e.out, e.in)
		count++
	}
	return count
}

// Pause freezes the host's I/O at its boundary and returns the channel
// closed when the pause ends; pausing a paused host returns the same
// channel. Callers hold mu.
func (h *Host) Pause() chan struct{} {
	if !h.paused {
		h.paused = true
		h.resume = make(chan struct{})
	}
	return h.resume
}

// Paused reports whether the host is paused, and the channel its resume
// closes. Callers hold mu.
func (h *Host) Paused() (bool, chan struct{}) { return h.paused, h.resume }

// Unpause ends the pause without sending anything on (for a host whose
// life ends). Callers hold mu.
func (h *Host) Unpause() {
	if h.paused {
		h.paused = false
		close(h.resume)
	}
}

// Wake sends what the life's connections held during a pause and wakes
// its blocked calls; Release then sends on what stalled for the host.
// Callers hold mu.
func (l *Life) Wake() {
	for _, e := range l.endpoints {
		e.flush()
		e.ping()
	}
	for _, ln := range l.listeners {
		ln.ping()
	}
}

// waitResume returns the channel closed when the host's pause ends, or
// nil when it is not paused. Callers hold mu.
func (h *Host) waitResume() chan struct{} {
	if h.paused {
		return h.resume
	}
	return nil
}

// Listen listens on the network. network must be a TCP network; address
// is ":port" or "name:port" with the host's own name (or a wildcard host:
// "", "localhost", "0.0.0.0", "::"); port 0 picks a free port.
func (l *Life) Listen(network, address string) (net.Listener, error) {
	n := l.host.net
	if err := n.checkNetwork(network); err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	name := l.host.name
	switch host {
	case "", "localhost", "0.0.0.0", "::", name:
	default:
		return nil, &net.OpError{Op: "listen", Net: network, Err: n.errorf("node %s cannot listen on host %q", name, host)}
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: n.errorf("bad port %q in %q", port, address)}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if l.dead {
		return nil, &net.OpError{Op: "listen", Net: network, Err: n.deadErr}
	}
	if port == "0" {
		l.host.ports++
		port = strconv.Itoa(40000 + l.host.ports)
	}
	key := name + ":" + port
	if n.listeners[key] != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr(key), Err: syscall.EADDRINUSE}
	}
	ln := &listener{net: n, life: l, addr: addr(key), key: key}
	n.listeners[key] = ln
	l.listeners = append(l.listeners, ln)
	n.hooks.Note(Event{Kind: "listen", Node: name, Detail: key})
	return ln, nil
}

// Dial connects to "host:port" over the network, the signature of
// grpc.WithContextDialer and http.Transport.DialContext. It takes a round
// trip; it fails with connection refused when nothing listens there, and
// with ctx's error when ctx ends first (a connect request stalled by a
// partition waits for the heal or for ctx).
func (l *Life) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	n := l.host.net
	if err := n.checkNetwork(network); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	dst := n.byName[host]
	if host == "localhost" || host == "" {
		dst = l.host
	}
	if dst == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	if err := l.waitUnpaused(ctx); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	e := l.connect(dst, port)
	for {
		switch {
		case e.established:
			return e, nil
		case e.refused:
			e.closed = true
			return nil, e.opErr("dial", syscall.ECONNREFUSED)
		case l.dead:
			return nil, e.opErr("dial", n.deadErr)
		case e.reset:
			return nil, e.opErr("dial", syscall.ECONNRESET)
		}
		notify := e.notify.wait()
		n.mu.Unlock()
		select {
		case <-notify:
		case <-ctx.Done():
		}
		n.mu.Lock()
		if err := ctx.Err(); err != nil && !e.established {
			e.closed = true // an accept that arrives later is answered with a reset
			return nil, e.opErr("dial", err)
		}
	}
}

// waitUnpaused blocks while the host is paused, until ctx ends; it fails
// when the life is dead or ctx ended. Callers hold mu; it is released
// while it waits.
func (l *Life) waitUnpaused(ctx context.Context) error {
	n := l.host.net
	for l.host.paused && !l.dead {
		resume := l.host.resume
		n.mu.Unlock()
		select {
		case <-resume:
		case <-ctx.Done():
		}
		n.mu.Lock()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if l.dead {
		return n.deadErr
	}
	return nil
}

// connect makes the dialling endpoint of a new connection to dst:port and
// sends its connect request. Callers hold mu.
func (l *Life) connect(dst *Host, port string) *endpoint {
	n, h := l.host.net, l.host
	h.dials++
	name := fmt.Sprintf("%s.%d#%d>%s:%s", h.name, l.n, h.dials, dst.name, port)
	h.ports++
	e := &endpoint{net: n, life: l, local: addr(fmt.Sprintf("%s:%d", h.name, 40000+h.ports)),
		remote: addr(dst.name + ":" + port)}
	c2s := &pipe{name: name, from: h, to: dst, src: e, listen: dst.name + ":" + port,
		rnd: rand.New(rand.NewPCG(Mix(n.seed, name, 1), Mix(n.seed, name, 2)))}
	s2c := &pipe{name: name + "<", from: dst, to: h, dst: e,
		rnd: rand.New(rand.NewPCG(Mix(n.seed, name, 3), Mix(n.seed, name, 4)))}
	c2s.rev, s2c.rev = s2c, c2s
	e.in, e.out = s2c, c2s
	l.endpoints = append(l.endpoints, e)
	n.send(c2s, segment{kind: segSyn})
	return e
}

// checkNetwork refuses any network but TCP.
func (n *Net) checkNetwork(network string) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
		return nil
	}
	return n.errorf("network %q not supported (tcp only)", network)
}
