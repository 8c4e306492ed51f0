package netcore

import "net"

// listener is a net.Listener on a host's port.
type listener struct {
	net     *Net
	life    *Life
	addr    addr
	key     string
	backlog []*endpoint
	closed  bool
	notify  signal
}

// ping wakes every blocked Accept. Callers hold mu.
func (l *listener) ping() { l.notify.broadcast() }

// Accept returns the next connection. It blocks while none has arrived
// and while the host is paused.
func (l *listener) Accept() (net.Conn, error) {
	l.net.mu.Lock()
	defer l.net.mu.Unlock()
	for {
		switch {
		case l.closed:
			return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
		case l.life.dead:
			return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: l.net.deadErr}
		case !l.life.host.paused && len(l.backlog) > 0:
			e := l.backlog[0]
			l.backlog = l.backlog[1:]
			return e, nil
		}
		resume, notify := l.life.host.waitResume(), l.notify.wait()
		l.net.mu.Unlock()
		select {
		case <-notify:
		case <-resume:
		}
		l.net.mu.Lock()
	}
}

// Close stops listening; connections already accepted stay, and those
// not yet accepted are reset.
func (l *listener) Close() error {
	l.net.mu.Lock()
	defer l.net.mu.Unlock()
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
	if l.net.listeners[l.key] == l {
		delete(l.net.listeners, l.key)
	}
	for _, e := range l.backlog {
		e.closed = true
		l.net.send(e.out, segment{kind: segRst})
	}
	l.backlog = nil
	l.ping()
}

// Addr returns the listener's address.
func (l *listener) Addr() net.Addr { return l.addr }
