package netcore

import (
	"io"
	"net"
	"os"
	"slices"
	"syscall"
	"time"
)

// addr is a simulated address, "host:port".
type addr string

// Network returns "tcp".
func (addr) Network() string  { return "tcp" }
func (a addr) String() string { return string(a) }

// endpoint is one end of a connection: a net.Conn.
type endpoint struct {
	net           *Net
	life          *Life
	local, remote addr
	in, out       *pipe
	notify        signal // under mu

	// Under mu:
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

// kill resets the endpoint of a dead life: its calls fail and its peer
// receives a reset. Callers hold mu.
func (e *endpoint) kill() {
	pending := len(e.held) > 0 // held bytes (or a held FIN) die with the life
	e.held = nil
	if (!e.closed || pending) && !e.reset && e.out != nil && (e.established || e.out.seq > 0) {
		e.net.send(e.out, segment{kind: segRst})
	}
	e.ping()
}

// abort resets a live endpoint's connection, as a RST from its host: its
// calls fail with a reset after what it already received, what is in
// flight to it is dropped, and its peer reads a reset behind the data
// already sent to it. Callers hold mu.
func (e *endpoint) abort() {
	if e.closed || e.reset || e.out == nil {
		return
	}
	e.reset = true
	e.held = nil
	if e.in != nil {
		e.in.broken = true
	}
	e.net.send(e.out, segment{kind: segRst})
	e.ping()
}

func (e *endpoint) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: e.local, Addr: e.remote, Err: err}
}

// wait blocks until the endpoint is pinged, the host resumes, or the
// deadline passes; mu is released while it waits.
func (e *endpoint) wait(deadline time.Time) {
	resume, notify := e.life.host.waitResume(), e.notify.wait()
	e.net.mu.Unlock()
	defer e.net.mu.Lock()
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
// and while the host is paused.
func (e *endpoint) Read(b []byte) (int, error) {
	e.net.mu.Lock()
	defer e.net.mu.Unlock()
	for {
		switch {
		case e.closed:
			return 0, e.opErr("read", net.ErrClosed)
		case e.life.dead:
			return 0, e.opErr("read", e.net.deadErr)
		case !e.rdl.IsZero() && !time.Now().Before(e.rdl):
			return 0, e.opErr("read", os.ErrDeadlineExceeded)
		case e.life.host.paused:
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
// buffer is unbounded), only while the host is paused.
func (e *endpoint) Write(b []byte) (int, error) {
	e.net.mu.Lock()
	defer e.net.mu.Unlock()
	switch {
	case e.closed:
		return 0, e.opErr("write", net.ErrClosed)
	case e.life.dead:
		return 0, e.opErr("write", e.net.deadErr)
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

// emit sends a segment, or holds it at the host's boundary while the host
// is paused: what the code wrote is in the socket's send buffer and leaves
// when the pause ends (a pause cannot take back a write). Callers hold mu.
func (e *endpoint) emit(s segment) {
	if e.life.host.paused || len(e.held) > 0 {
		e.held = append(e.held, s)
		return
	}
	e.net.send(e.out, s)
}

// flush sends what the endpoint held during a pause, in order. Callers
// hold mu.
func (e *endpoint) flush() {
	held := e.held
	e.held = nil
	for _, s := range held {
		e.net.send(e.out, s)
	}
}

// Close closes the endpoint; the peer reads EOF once what was sent before
// has arrived.
func (e *endpoint) Close() error {
	e.net.mu.Lock()
	defer e.net.mu.Unlock()
	if e.closed {
		return e.opErr("close", net.ErrClosed)
	}
	e.closed = true
	if !e.life.dead && !e.reset {
		e.emit(segment{kind: segFin})
	}
	e.ping()
	return nil
}

// LocalAddr returns the endpoint's address.
func (e *endpoint) LocalAddr() net.Addr { return e.local }

// RemoteAddr returns the peer's address.
func (e *endpoint) RemoteAddr() net.Addr { return e.remote }

// SetDeadline sets both deadlines (on the bubble's clock).
func (e *endpoint) SetDeadline(t time.Time) error {
	e.net.mu.Lock()
	defer e.net.mu.Unlock()
	e.rdl, e.wdl = t, t
	e.ping()
	return nil
}

// SetReadDeadline sets the read deadline (on the bubble's clock).
func (e *endpoint) SetReadDeadline(t time.Time) error {
	e.net.mu.Lock()
	defer e.net.mu.Unlock()
	e.rdl = t
	e.ping()
	return nil
}

// SetWriteDeadline sets the write deadline (on the bubble's clock).
func (e *endpoint) SetWriteDeadline(t time.Time) error {
	e.net.mu.Lock()
	defer e.net.mu.Unlock()
	e.wdl = t
	e.ping()
	return nil
}
