package gohost

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// The network model. A connection is two pipes, one per direction. Every
// Write is one segment that travels its pipe in order (TCP-like: a segment
// is never delivered before an earlier one of its pipe), after a latency
// drawn from the pipe's own random stream, seeded from the run's seed and
// the connection's name. The host delivers one segment at a time and lets
// the bubble settle between deliveries.
//
// A cut link stalls its pipes: a segment that reaches a cut link (or a
// paused node) waits, with every later one of its pipe, until the heal (or
// the resume), and then travels again with a fresh latency. Nothing is
// lost and no connection is reset by a partition: as with TCP whose
// retransmissions outlast the cut, only the code's own deadlines and
// timeouts notice. A crash resets the node's connections: its peers
// receive a reset (in order behind the data already sent), and a segment
// that reaches a dead or closed endpoint is answered with a reset.
//
// Loss is the one thing a stream cannot do silently: a data segment lost
// on a lossy link (a link fault's loss, drawn per segment from the pipe's
// own random stream) or to a reply-lost trigger breaks its connection
// (breakConn): the receiver reads a reset after what it already received,
// the sender reads one once it travels back, and the connection's later
// segments are dropped.

// segKind is what a segment carries.
type segKind uint8

const (
	segSyn     segKind = iota // connect request
	segSynAck                 // connect accepted
	segRefused                // no listener
	segData                   // bytes
	segFin                    // orderly close
	segRst                    // reset
)

var segNames = [...]string{"connect", "accept", "refuse", "deliver", "fin", "reset"}

// segment is one unit a pipe carries.
type segment struct {
	kind segKind
	data []byte
}

// pipe is one direction of a connection.
type pipe struct {
	name     string
	from, to *nodeState
	rnd      *rand.Rand
	lastAt   time.Duration
	seq      uint64
	stalled  []segment
	src, dst *endpoint // dst is nil until the connect request arrives
	rev      *pipe
	listen   string // the listener key a connect request is for (client-to-server pipe)

	lossRnd   *rand.Rand    // the loss draws, made on the first lossy delivery
	broken    bool          // a segment was lost: later ones are dropped
	data      uint64        // data segments delivered
	holdUntil time.Duration // a reply-lost pause holds the pipe until then
}

// addr is a simulated address, "node:port".
type addr string

// Network returns "tcp".
func (addr) Network() string  { return "tcp" }
func (a addr) String() string { return string(a) }

// sample draws the pipe's next latency. Callers hold mu.
func (h *host) sample(p *pipe) time.Duration {
	d, ok := h.latency[link{p.from.spec.Name, p.to.spec.Name}]
	if !ok {
		d = h.defLat
	}
	return d.Sample(p.rnd)
}

// send puts a segment on its pipe. Callers hold mu.
func (h *host) send(p *pipe, s segment) {
	at := max(h.now()+h.sample(p), p.lastAt)
	p.lastAt = at
	p.seq++
	h.push(&action{at: at, class: classDeliver, key: p.name, n: p.seq, do: func() { h.deliver(p, s) }})
}

// deliverable reports whether p can deliver now: its link is up and its
// destination is not paused. Callers hold mu.
func (h *host) deliverable(p *pipe) bool {
	return !h.cut[link{p.from.spec.Name, p.to.spec.Name}] && !p.to.paused &&
		(p.holdUntil == 0 || h.now() >= p.holdUntil)
}

// deliver hands a segment to its destination, or stalls it. Callers hold
// mu, on the host's goroutine.
func (h *host) deliver(p *pipe, s segment) {
	ev := Event{Kind: segNames[s.kind], Node: p.from.spec.Name, Peer: p.to.spec.Name, Detail: p.name}
	if s.kind == segData {
		ev.Detail = fmt.Sprintf("%s %d bytes", p.name, len(s.data))
		ev.Digest = sim.DigestBytes(s.data)
	}
	if p.broken && s.kind != segRst {
		ev.Kind = "drop " + ev.Kind
		h.event(ev)
		return
	}
	if len(p.stalled) > 0 || !h.deliverable(p) {
		h.stall(p, s, ev)
		return
	}
	if s.kind == segData {
		switch h.replyTriggers(p) {
		case triggerStall:
			h.stall(p, s, ev)
			return
		case triggerLose:
			ev.Kind, ev.Detail = "lose "+ev.Kind, ev.Detail+": reply lost after the server acted"
			h.event(ev)
			h.breakConn(p)
			return
		}
		if h.lost(p) {
			ev.Kind, ev.Detail = "lose "+ev.Kind, ev.Detail+": link loss"
			h.event(ev)
			h.breakConn(p)
			return
		}
	}
	h.event(ev)
	if s.kind == segSyn {
		h.accept(p)
		return
	}
	e := p.dst
	if e == nil || e.node.dead || e.closed {
		if s.kind == segData || s.kind == segSynAck {
			h.send(p.rev, segment{kind: segRst}) // nobody there: answer with a reset
		}
		return
	}
	switch s.kind {
	case segSynAck:
		e.established = true
	case segRefused:
		e.refused = true
	case segData:
		e.buf = append(e.buf, s.data...)
		p.data++
	case segFin:
		e.eof = true
	case segRst:
		e.reset = true
	}
	e.ping()
}

// stall holds a segment on its pipe, behind any already held, until
// release finds the pipe deliverable. Callers hold mu.
func (h *host) stall(p *pipe, s segment, ev Event) {
	p.stalled = append(p.stalled, s)
	if len(p.stalled) == 1 {
		h.pipes = append(h.pipes, p)
	}
	ev.Kind = "stall " + ev.Kind
	h.event(ev)
}

// lost draws whether a data segment is lost on p's link, from p's own
// random stream (drawn only while the link is lossy). Callers hold mu.
func (h *host) lost(p *pipe) bool {
	loss := h.loss[link{p.from.spec.Name, p.to.spec.Name}]
	if loss <= 0 {
		return false
	}
	if p.lossRnd == nil {
		p.lossRnd = rand.New(rand.NewPCG(mix(h.seed, p.name, 5), mix(h.seed, p.name, 6)))
	}
	return p.lossRnd.Float64() < loss
}

// breakConn resets p's connection after one of p's segments was lost: p's
// later segments are dropped, its receiving endpoint reads a reset now
// (after the bytes it already received), and a reset travels back to p's
// sender behind what is already in flight to it. Callers hold mu.
func (h *host) breakConn(p *pipe) {
	p.broken = true
	if e := p.dst; e != nil {
		e.reset = true
		e.ping()
	}
	h.send(p.rev, segment{kind: segRst})
}

// accept handles a connect request at its destination. Callers hold mu.
func (h *host) accept(p *pipe) {
	l := h.listeners[p.listen]
	if l == nil || l.closed || l.node.dead {
		h.send(p.rev, segment{kind: segRefused})
		return
	}
	e := &endpoint{h: h, node: l.node, local: l.addr, remote: p.src.local, in: p, out: p.rev,
		established: true}
	p.dst, p.rev.src = e, e
	l.node.endpoints = append(l.node.endpoints, e)
	l.backlog = append(l.backlog, e)
	l.ping()
	h.send(p.rev, segment{kind: segSynAck})
}

// release sends on the segments stalled on pipes that can deliver again,
// in pipe-name order, each with a fresh latency. Callers hold mu.
func (h *host) release() {
	slices.SortFunc(h.pipes, func(a, b *pipe) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	kept := h.pipes[:0]
	for _, p := range h.pipes {
		if !h.deliverable(p) {
			kept = append(kept, p)
			continue
		}
		segs := p.stalled
		p.stalled = nil
		for _, s := range segs {
			h.send(p, s)
		}
	}
	clear(h.pipes[len(kept):])
	h.pipes = kept
}

// endpoint is one end of a connection: a net.Conn.
type endpoint struct {
	h             *host
	node          *Node
	local, remote addr
	in, out       *pipe
	notify        signal // under h.mu

	// Under h.mu:
	held                []segment // written during a pause: sent when it ends
	buf                 []byte
	established         bool
	refused, eof, reset bool
	closed              bool
	rdl, wdl            time.Time
}

// ping wakes every blocked caller of the endpoint (a Read and a Write
// may both wait). Callers hold mu.
func (e *endpoint) ping() { e.notify.broadcast() }

// kill resets the endpoint of a crashed life: its calls fail and its peer
// receives a reset. Callers hold mu.
func (e *endpoint) kill() {
	pending := len(e.held) > 0 // held bytes (or a held FIN) die with the life
	e.held = nil
	if (!e.closed || pending) && !e.reset && e.out != nil && (e.established || e.out.seq > 0) {
		e.h.send(e.out, segment{kind: segRst})
	}
	e.ping()
}

func (e *endpoint) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: e.local, Addr: e.remote, Err: err}
}

// wait blocks until the endpoint is pinged, the node resumes, or the
// deadline passes; mu is released while it waits.
func (e *endpoint) wait(deadline time.Time) {
	resume, notify := e.node.ns.waitResume(), e.notify.wait()
	e.h.mu.Unlock()
	defer e.h.mu.Lock()
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-notify:
	case <-resume:
	case <-timeout:
	}
}

// Read reads what has been delivered. It blocks while nothing has arrived
// and while the node is paused.
func (e *endpoint) Read(b []byte) (int, error) {
	e.h.mu.Lock()
	defer e.h.mu.Unlock()
	for {
		switch {
		case e.closed:
			return 0, e.opErr("read", net.ErrClosed)
		case e.node.dead:
			return 0, e.opErr("read", ErrCrashed)
		case !e.rdl.IsZero() && !time.Now().Before(e.rdl):
			return 0, e.opErr("read", os.ErrDeadlineExceeded)
		case e.node.ns.paused:
		case len(e.buf) > 0:
			n := copy(b, e.buf)
			e.buf = e.buf[n:]
			return n, nil
		case e.reset:
			return 0, e.opErr("read", syscall.ECONNRESET)
		case e.eof:
			return 0, io.EOF
		}
		e.wait(e.rdl)
	}
}

// Write sends b as one segment. It never blocks on the network (the send
// buffer is unbounded), only while the node is paused.
func (e *endpoint) Write(b []byte) (int, error) {
	e.h.mu.Lock()
	defer e.h.mu.Unlock()
	switch {
	case e.closed:
		return 0, e.opErr("write", net.ErrClosed)
	case e.node.dead:
		return 0, e.opErr("write", ErrCrashed)
	case e.reset:
		return 0, e.opErr("write", syscall.ECONNRESET)
	case !e.wdl.IsZero() && !time.Now().Before(e.wdl):
		return 0, e.opErr("write", os.ErrDeadlineExceeded)
	}
	if len(b) > 0 {
		e.emit(segment{kind: segData, data: slices.Clone(b)})
	}
	return len(b), nil
}

// emit sends a segment, or holds it at the node's boundary while the node
// is paused: what the code wrote is in the socket's send buffer and leaves
// when the pause ends (a pause cannot take back a write). Callers hold mu.
func (e *endpoint) emit(s segment) {
	if e.node.ns.paused || len(e.held) > 0 {
		e.held = append(e.held, s)
		return
	}
	e.h.send(e.out, s)
}

// flush sends what the endpoint held during a pause, in order. Callers
// hold mu.
func (e *endpoint) flush() {
	held := e.held
	e.held = nil
	for _, s := range held {
		e.h.send(e.out, s)
	}
}

// Close closes the endpoint; the peer reads EOF once what was sent before
// has arrived.
func (e *endpoint) Close() error {
	e.h.mu.Lock()
	defer e.h.mu.Unlock()
	if e.closed {
		return e.opErr("close", net.ErrClosed)
	}
	e.closed = true
	if !e.node.dead && !e.reset {
		e.emit(segment{kind: segFin})
	}
	e.ping()
	return nil
}

// LocalAddr returns the endpoint's address.
func (e *endpoint) LocalAddr() net.Addr { return e.local }

// RemoteAddr returns the peer's address.
func (e *endpoint) RemoteAddr() net.Addr { return e.remote }

// SetDeadline sets both deadlines.
func (e *endpoint) SetDeadline(t time.Time) error {
	e.h.mu.Lock()
	defer e.h.mu.Unlock()
	e.rdl, e.wdl = t, t
	e.ping()
	return nil
}

// SetReadDeadline sets the read deadline (on the bubble's clock).
func (e *endpoint) SetReadDeadline(t time.Time) error {
	e.h.mu.Lock()
	defer e.h.mu.Unlock()
	e.rdl = t
	e.ping()
	return nil
}

// SetWriteDeadline sets the write deadline (on the bubble's clock).
func (e *endpoint) SetWriteDeadline(t time.Time) error {
	e.h.mu.Lock()
	defer e.h.mu.Unlock()
	e.wdl = t
	e.ping()
	return nil
}

// listener is a net.Listener on a node's port.
type listener struct {
	h       *host
	node    *Node
	addr    addr
	key     string
	backlog []*endpoint
	closed  bool
	notify  signal
}

// ping wakes every blocked Accept. Callers hold mu.
func (l *listener) ping() { l.notify.broadcast() }

// Accept returns the next connection. It blocks while none has arrived
// and while the node is paused.
func (l *listener) Accept() (net.Conn, error) {
	l.h.mu.Lock()
	defer l.h.mu.Unlock()
	for {
		switch {
		case l.closed:
			return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
		case l.node.dead:
			return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: ErrCrashed}
		case !l.node.ns.paused && len(l.backlog) > 0:
			e := l.backlog[0]
			l.backlog = l.backlog[1:]
			return e, nil
		}
		resume, notify := l.node.ns.waitResume(), l.notify.wait()
		l.h.mu.Unlock()
		select {
		case <-notify:
		case <-resume:
		}
		l.h.mu.Lock()
	}
}

// Close stops listening; connections already accepted stay.
func (l *listener) Close() error {
	l.h.mu.Lock()
	defer l.h.mu.Unlock()
	if l.closed {
		return &net.OpError{Op: "close", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
	}
	l.closeLocked()
	return nil
}

// closeLocked closes the listener. Callers hold mu.
func (l *listener) closeLocked() {
	if l.closed {
		return
	}
	l.closed = true
	if l.h.listeners[l.key] == l {
		delete(l.h.listeners, l.key)
	}
	for _, e := range l.backlog {
		e.closed = true
		e.h.send(e.out, segment{kind: segRst})
	}
	l.backlog = nil
	l.ping()
}

// Addr returns the listener's address.
func (l *listener) Addr() net.Addr { return l.addr }

// Listen listens on the simulated network. network must be a TCP network;
// addr is ":port" or "name:port" with the node's own name (or a wildcard
// host: "", "localhost", "0.0.0.0", "::"); port 0 picks a free port.
func (n *Node) Listen(network, address string) (net.Listener, error) {
	if err := checkNetwork(network); err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Err: err}
	}
	switch host {
	case "", "localhost", "0.0.0.0", "::", n.Name():
	default:
		return nil, &net.OpError{Op: "listen", Net: network, Err: fmt.Errorf("gohost: node %s cannot listen on host %q", n.Name(), host)}
	}
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if n.dead {
		return nil, &net.OpError{Op: "listen", Net: network, Err: ErrCrashed}
	}
	if port == "0" {
		n.ns.ports++
		port = strconv.Itoa(40000 + n.ns.ports)
	}
	key := n.Name() + ":" + port
	if h.listeners[key] != nil {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr(key), Err: syscall.EADDRINUSE}
	}
	l := &listener{h: h, node: n, addr: addr(key), key: key}
	h.listeners[key] = l
	n.listeners = append(n.listeners, l)
	h.note(Event{Kind: "listen", Node: n.Name(), Detail: key}, nil)
	return l, nil
}

// Dial connects to "node:port" over the simulated network, the signature
// of grpc.WithContextDialer and http.Transport.DialContext. It takes a
// round trip; it fails with connection refused when nothing listens there,
// and with ctx's error when ctx ends first (a connect request stalled by a
// partition waits for the heal or for ctx).
func (n *Node) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if err := checkNetwork(network); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	h := n.h
	h.mu.Lock()
	defer h.mu.Unlock()
	dst := h.byName[host]
	if host == "localhost" || host == "" {
		dst = n.ns
	}
	if dst == nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	for n.ns.paused && !n.dead {
		resume := n.ns.resume
		h.mu.Unlock()
		select {
		case <-resume:
		case <-ctx.Done():
		}
		h.mu.Lock()
		if ctx.Err() != nil {
			return nil, &net.OpError{Op: "dial", Net: network, Err: ctx.Err()}
		}
	}
	if n.dead {
		return nil, &net.OpError{Op: "dial", Net: network, Err: ErrCrashed}
	}
	n.ns.dials++
	name := fmt.Sprintf("%s.%d#%d>%s:%s", n.Name(), n.life, n.ns.dials, dst.spec.Name, port)
	n.ns.ports++
	e := &endpoint{h: h, node: n, local: addr(fmt.Sprintf("%s:%d", n.Name(), 40000+n.ns.ports)),
		remote: addr(dst.spec.Name + ":" + port)}
	c2s := &pipe{name: name, from: n.ns, to: dst, src: e, listen: dst.spec.Name + ":" + port,
		rnd: rand.New(rand.NewPCG(mix(h.seed, name, 1), mix(h.seed, name, 2)))}
	s2c := &pipe{name: name + "<", from: dst, to: n.ns, dst: e,
		rnd: rand.New(rand.NewPCG(mix(h.seed, name, 3), mix(h.seed, name, 4)))}
	c2s.rev, s2c.rev = s2c, c2s
	e.in, e.out = s2c, c2s
	n.endpoints = append(n.endpoints, e)
	h.send(c2s, segment{kind: segSyn})
	for {
		switch {
		case e.established:
			return e, nil
		case e.refused:
			e.closed = true
			return nil, e.opErr("dial", syscall.ECONNREFUSED)
		case n.dead:
			return nil, e.opErr("dial", ErrCrashed)
		case e.reset:
			return nil, e.opErr("dial", syscall.ECONNRESET)
		}
		notify := e.notify.wait()
		h.mu.Unlock()
		select {
		case <-notify:
		case <-ctx.Done():
		}
		h.mu.Lock()
		if err := ctx.Err(); err != nil && !e.established {
			e.closed = true // an accept that arrives later is answered with a reset
			return nil, e.opErr("dial", err)
		}
	}
}

func checkNetwork(network string) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
		return nil
	}
	return fmt.Errorf("gohost: network %q not supported (tcp only)", network)
}

// signal wakes every goroutine waiting on it: waiters take the current
// channel under mu, broadcast closes it (and the next wait makes a new
// one). A single-slot channel would wake only one of two waiters, say a
// Read and a Write blocked on one connection when it closes.
type signal struct{ ch chan struct{} }

// wait returns the channel that the next broadcast closes. Callers hold mu.
func (s *signal) wait() <-chan struct{} {
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// broadcast wakes every waiter. Callers hold mu.
func (s *signal) broadcast() {
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}
