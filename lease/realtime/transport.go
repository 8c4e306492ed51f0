package realtime

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// Transport limits. A message that does not fit is dropped: the core treats
// the network as lossy and retries on its own.
const (
	dialTimeout      = time.Second
	writeTimeout     = time.Second
	maxQueuedPerPeer = 1024
)

// tcpTransport is a lease.Transport over TCP. Each destination has one
// writer goroutine with one cached connection, redialled after a failure;
// each accepted connection has one reader goroutine.
type tcpTransport struct {
	self    lease.Addr
	ln      net.Listener
	deliver func(from lease.Addr, m lease.Message) // posts to the loop

	mu      sync.Mutex
	closed  bool
	peers   map[lease.Addr]*peer
	inbound map[net.Conn]struct{}
	wg      sync.WaitGroup
}

// peer is the outgoing side of one destination.
type peer struct {
	out  chan lease.Message
	kill chan struct{} // closed on a hard stop: drop everything now
}

// listen opens the listener; serve starts accepting.
func listen(addr string) (*tcpTransport, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &tcpTransport{
		self:    lease.Addr(ln.Addr().String()),
		ln:      ln,
		peers:   make(map[lease.Addr]*peer),
		inbound: make(map[net.Conn]struct{}),
	}, nil
}

// serve accepts connections and hands every message to deliver.
func (t *tcpTransport) serve(deliver func(from lease.Addr, m lease.Message)) {
	t.deliver = deliver
	t.wg.Add(1)
	go t.accept()
}

func (t *tcpTransport) accept() {
	defer t.wg.Done()
	for {
		c, err := t.ln.Accept()
		if err != nil {
			return // closed
		}
		t.mu.Lock()
		if t.closed {
			t.mu.Unlock()
			c.Close()
			return
		}
		t.inbound[c] = struct{}{}
		t.wg.Add(1)
		t.mu.Unlock()
		go t.read(c)
	}
}

func (t *tcpTransport) read(c net.Conn) {
	defer t.wg.Done()
	defer func() {
		t.mu.Lock()
		delete(t.inbound, c)
		t.mu.Unlock()
		c.Close()
	}()
	for {
		f, err := readFrame(c)
		if err != nil {
			return // peer gone or garbage: drop the connection
		}
		t.deliver(f.From, f.Msg)
	}
}

// Send queues m for to; it never blocks.
func (t *tcpTransport) Send(to lease.Addr, m lease.Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	p := t.peers[to]
	if p == nil {
		p = &peer{out: make(chan lease.Message, maxQueuedPerPeer), kill: make(chan struct{})}
		t.peers[to] = p
		t.wg.Add(1)
		go t.write(to, p)
	}
	select {
	case p.out <- m:
	default: // queue full: drop
	}
}

// write sends the peer's messages until its queue is closed.
func (t *tcpTransport) write(to lease.Addr, p *peer) {
	defer t.wg.Done()
	var conn net.Conn
	defer func() {
		if conn != nil {
			conn.Close()
		}
	}()
	for m := range p.out {
		select {
		case <-p.kill:
			return
		default:
		}
		if conn == nil {
			c, err := net.DialTimeout("tcp", string(to), dialTimeout)
			if err != nil {
				continue // drop m
			}
			conn = c
		}
		err := conn.SetWriteDeadline(time.Now().Add(writeTimeout))
		if err == nil {
			err = writeFrame(conn, frame{From: t.self, Msg: m})
		}
		if err != nil {
			conn.Close()
			conn = nil // drop m; redial for the next one
		}
	}
}

// close stops the transport. Graceful, queued messages are still written
// (a holder's releases on shutdown); otherwise they are dropped at once.
func (t *tcpTransport) close(graceful bool) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	err := t.ln.Close()
	for c := range t.inbound { // order does not matter: all are closed
		c.Close()
	}
	for _, p := range t.peers { // order does not matter: all are closed
		if !graceful {
			close(p.kill)
		}
		close(p.out)
	}
	t.mu.Unlock()
	t.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
