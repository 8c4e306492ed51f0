package pipenet

import (
	"context"
	"net"
	"sync"
	"syscall"
)

// Net is one in-memory network. The zero value is not usable: use New.
type Net struct {
	mu        sync.Mutex
	listeners map[string]*listener
}

// New returns an empty network.
func New() *Net { return &Net{listeners: map[string]*listener{}} }

// Listen listens on addr ("store:7001"); a later Listen on the same addr
// replaces it.
func (n *Net) Listen(addr string) net.Listener {
	l := &listener{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
	n.mu.Lock()
	n.listeners[addr] = l
	n.mu.Unlock()
	return l
}

// Dial connects to the listener on addr, waiting for it to accept until ctx
// ends; with no listener there, it is refused.
func (n *Net) Dial(ctx context.Context, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[addr]
	n.mu.Unlock()
	if l == nil {
		return nil, syscall.ECONNREFUSED
	}
	a, b := net.Pipe()
	select {
	case l.conns <- b:
		return a, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-l.done:
		return nil, syscall.ECONNREFUSED
	}
}

type listener struct {
	addr  string
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// Accept waits for a Dial, or for Close.
func (l *listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops listening; a waiting Accept and later Dials fail.
func (l *listener) Close() error { l.once.Do(func() { close(l.done) }); return nil }

// Addr returns the listener's address.
func (l *listener) Addr() net.Addr { return addr(l.addr) }

type addr string

func (addr) Network() string  { return "pipe" }
func (a addr) String() string { return string(a) }
