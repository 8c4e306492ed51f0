package zookeeper

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// Port is the port the simulated ZooKeeper listens on (ZooKeeper's
// clientPort default).
const Port = ":2181"

// ServerOptions configures the simulated ZooKeeper. The zero value is
// ZooKeeper's defaults.
type ServerOptions struct {
	// Tick is ZooKeeper's tickTime (default 2 s): sessions expire on tick
	// boundaries, and the session timeout bounds below are in ticks.
	Tick time.Duration
	// MinSessionTimeout and MaxSessionTimeout bound the negotiated session
	// timeout (defaults 2 and 20 ticks, as ZooKeeper's).
	MinSessionTimeout, MaxSessionTimeout time.Duration
	// Paths are persistent nodes the server creates when it first starts
	// with an empty tree (an operator's setup: the lock's parent).
	Paths []string
}

// withDefaults fills the zero fields with ZooKeeper's defaults.
func (o ServerOptions) withDefaults() ServerOptions {
	if o.Tick <= 0 {
		o.Tick = 2 * time.Second
	}
	if o.MinSessionTimeout <= 0 {
		o.MinSessionTimeout = 2 * o.Tick
	}
	if o.MaxSessionTimeout <= 0 {
		o.MaxSessionTimeout = 20 * o.Tick
	}
	return o
}

// Server returns the node function of the simulated ZooKeeper (a
// standalone server): it serves the client protocol on Port, one request
// at a time across all connections, expires sessions on its own clock
// (gohost.Node.Clock, so the schedule's drift applies) and keeps its tree
// and sessions in the node's Storage, so a restart keeps them.
func Server(opts ServerOptions) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		s, err := newServer(n, opts.withDefaults())
		if err != nil {
			return err
		}
		return s.serve(ctx)
	}
}

// server is one life of the simulated ZooKeeper.
type server struct {
	n     *gohost.Node
	clock gohost.Clock
	opts  ServerOptions

	mu       sync.Mutex // one request at a time (ZooKeeper's request pipeline is sequential)
	d        *durable
	tick     int64                 // ticks of the server's monotonic clock in this life
	sessions map[int64]*session    // the open sessions, looked up only
	watches  [2]map[string][]*conn // data and child watches by path, in registration order
	conns    map[*conn]bool        // open connections, closed at the end in any order
}

// The two watch tables (DataTree.dataWatches, DataTree.childWatches):
// exists and getData register data watches, getChildren child watches.
const (
	dataWatch  = 0
	childWatch = 1
)

// session is an open session's live part: when it expires, in ticks of
// this life, and the connection it is on.
type session struct {
	id        int64
	timeoutMs int32
	expiry    int64
	conn      *conn
}

// conn is one client connection, bound to a session once connected.
type conn struct {
	c       net.Conn
	session int64
}

// newServer loads the durable state (or starts an empty tree) and opens
// every stored session with a full timeout from now, as ZooKeeper's
// session tracker does on startup.
func newServer(n *gohost.Node, opts ServerOptions) (*server, error) {
	s := &server{n: n, clock: n.Clock(), opts: opts, d: newDurable(), sessions: map[int64]*session{},
		watches: [2]map[string][]*conn{{}, {}}, conns: map[*conn]bool{}}
	if b, ok := n.Storage().Get(stateKey); ok {
		d, err := decodeDurable(b)
		if err != nil {
			return nil, err
		}
		s.d = d
	}
	_, restarted := n.Storage().Get(stateKey)
	if !restarted && len(opts.Paths) > 0 {
		for _, p := range opts.Paths {
			code, _ := s.create(createRequest{path: p, acls: 1}, 0)
			if code != errOK {
				return nil, fmt.Errorf("zookeeper: initial node %q: error %d", p, code)
			}
			s.record(history.Payload{Kind: model.OpZKCreate, Key: p}, history.Payload{Key: p})
		}
	}
	for id, t := range s.d.Sessions {
		ss := &session{id: id, timeoutMs: t}
		s.touch(ss)
		s.sessions[id] = ss
	}
	if restarted {
		s.record(history.Payload{Kind: model.OpZKRestart, Clock: s.lastServed()}, history.Payload{Keys: s.sessionIDs()})
	}
	return s, nil
}

// serve accepts connections and ticks the session expirer until ctx ends,
// then closes everything and waits for its goroutines.
func (s *server) serve(ctx context.Context) error {
	l, err := s.n.Listen("tcp", Port)
	if err != nil {
		return fmt.Errorf("zookeeper: listen: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			zc := &conn{c: c}
			s.mu.Lock()
			s.conns[zc] = true
			s.mu.Unlock()
			wg.Go(func() { s.serveConn(zc) })
		}
	})
	wg.Go(func() { s.expirer(ctx) })
	<-ctx.Done()
	l.Close()
	s.mu.Lock()
	for zc := range s.conns {
		zc.c.Close()
	}
	s.mu.Unlock()
	wg.Wait()
	return nil
}

// expirer is the session tracker's thread: at every tick of the server's
// clock, it expires the sessions whose expiry tick has come.
func (s *server) expirer(ctx context.Context) {
	t := s.clock.NewTicker(s.opts.Tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			s.mu.Lock()
			s.tick++
			s.served()
			for _, id := range sortedSessions(s.sessions) {
				if ss := s.sessions[id]; ss.expiry <= s.tick {
					s.closeSession(ss)
					if ss.conn != nil {
						s.dropConn(ss.conn)
					}
				}
			}
			s.mu.Unlock()
		}
	}
}

// touch moves a session's expiry to the first tick boundary at least its
// timeout after now (SessionTrackerImpl.touchSession: expiry rounded up to
// the next expiration interval). now is known to a tick: the count of
// ticks so far, rounded up, so the expiry is never earlier than
// ZooKeeper's.
func (s *server) touch(ss *session) {
	t := time.Duration(ss.timeoutMs) * time.Millisecond
	ss.expiry = s.tick + 1 + int64((t+s.opts.Tick-1)/s.opts.Tick)
}

// serveConn reads one connection's connect request and then its
// requests, in order, until it fails or the server closes it.
func (s *server) serveConn(zc *conn) {
	defer func() {
		s.mu.Lock()
		s.dropConn(zc)
		s.mu.Unlock()
	}()
	r := bufio.NewReader(zc.c)
	pkt, err := readPacket(r)
	if err != nil {
		return
	}
	req, err := decodeConnect(pkt)
	if err != nil {
		return
	}
	s.mu.Lock()
	ok := s.connect(zc, req)
	s.mu.Unlock()
	for ok {
		if pkt, err = readPacket(r); err != nil {
			return
		}
		s.mu.Lock()
		ok = s.handle(zc, pkt)
		s.mu.Unlock()
	}
}

// readPacket reads one length-framed packet.
func readPacket(r *bufio.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxPacket {
		return nil, fmt.Errorf("zookeeper: packet of %d bytes: %w", n, errTooLong)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

// errTooLong is a packet beyond jute.maxbuffer.
var errTooLong = errors.New("packet exceeds jute.maxbuffer")

// send writes a packet to a connection. Writes on the simulated network
// do not block; a failed one shows on the connection's reader. Callers
// hold mu, so that replies and notifications leave in processing order.
func (s *server) send(zc *conn, pkt []byte) {
	if _, err := zc.c.Write(frame(pkt)); err != nil {
		zc.c.Close()
	}
}

// dropConn closes a connection and forgets it and its watches (ZooKeeper
// removes a connection's watches when it closes). The session stays open
// until it expires or is closed. Callers hold mu.
func (s *server) dropConn(zc *conn) {
	zc.c.Close()
	if !s.conns[zc] {
		return
	}
	delete(s.conns, zc)
	if ss := s.sessions[zc.session]; ss != nil && ss.conn == zc {
		ss.conn = nil
	}
	for _, table := range s.watches {
		for p, cs := range table {
			cs = removeConn(cs, zc)
			if len(cs) == 0 {
				delete(table, p)
			} else {
				table[p] = cs
			}
		}
	}
}

// connect answers a connect request (ZooKeeperServer.processConnectRequest):
// a client that has seen a later zxid than this server's is refused (the
// connection closed); a session id with a wrong password, or of a session
// that is gone, gets the expired answer (session id 0) and a close; a
// known session moves to this connection (its old connection is closed)
// and is touched; id 0 opens a new session. The timeout is negotiated
// into [MinSessionTimeout, MaxSessionTimeout]. It reports whether the
// connection goes on. Callers hold mu.
func (s *server) connect(zc *conn, req connectRequest) bool {
	if req.lastZxidSeen > s.d.Zxid {
		s.dropConn(zc)
		return false
	}
	timeoutMs := s.negotiate(req.timeoutMs)
	in := history.Payload{Kind: model.OpZKConnect, Lease: uint64(req.sessionID),
		TTL: time.Duration(req.timeoutMs) * time.Millisecond}
	var ss *session
	if req.sessionID != 0 {
		ss = s.sessions[req.sessionID]
		if ss == nil || string(req.passwd) != string(password(req.sessionID)) {
			s.record(in, history.Payload{Err: model.ZKSessionExpired})
			s.send(zc, connectResponse(0, 0, make([]byte, 16)))
			s.dropConn(zc)
			return false
		}
		if ss.conn != nil && ss.conn != zc {
			s.dropConn(ss.conn)
		}
		if ss.timeoutMs != timeoutMs {
			ss.timeoutMs = timeoutMs
			s.d.Sessions[ss.id] = timeoutMs
			s.persist()
		}
	} else {
		id := 1<<56 | s.d.NextSession // server id 1, then a durable counter
		s.d.NextSession++
		s.d.Zxid++ // createSession is a transaction
		s.d.Sessions[id] = timeoutMs
		ss = &session{id: id, timeoutMs: timeoutMs}
		s.sessions[id] = ss
		s.persist()
	}
	s.touch(ss)
	ss.conn, zc.session = zc, ss.id
	s.record(in, history.Payload{Lease: uint64(ss.id), TTL: time.Duration(timeoutMs) * time.Millisecond})
	s.send(zc, connectResponse(timeoutMs, ss.id, password(ss.id)))
	return true
}

// negotiate clamps a requested session timeout to the server's bounds.
func (s *server) negotiate(ms int32) int32 {
	lo, hi := int32(s.opts.MinSessionTimeout/time.Millisecond), int32(s.opts.MaxSessionTimeout/time.Millisecond)
	return min(max(ms, lo), hi)
}

// password is a session's password: 16 bytes derived from its id (as
// ZooKeeper derives it from the id and a server secret).
func password(id int64) []byte {
	h := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("leasesim-zookeeper"), uint64(id)))
	return h[:16]
}

// persist writes the durable state to Storage: ZooKeeper logs each
// transaction and syncs it before it replies.
func (s *server) persist() { s.n.Storage().Put(stateKey, s.d.encode()) }

// now is the server's wall clock in milliseconds since the epoch, for
// ctime and mtime.
func (s *server) now() int64 { return s.clock.Now().UnixMilli() }
