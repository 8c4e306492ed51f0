package redsync

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/leasesim/leasesim/gohost"
)

// RedisPort is the port the simulated Redis listens on.
const RedisPort = ":6379"

// ServerOptions configures the simulated Redis.
type ServerOptions struct {
	// AppendOnly makes every change durable before its reply (Redis with
	// appendonly yes and appendfsync always): a restart keeps the keys,
	// with their absolute expiry. Off (the default here, and Redis's
	// default with no RDB snapshot since the last write), a crash loses
	// every key.
	AppendOnly bool
}

// Server returns the node function of the simulated Redis: it serves
// RESP2 on RedisPort, one command at a time across all connections (as
// Redis's single thread), with expiry on the server's own clock
// (gohost.Node.Clock: the schedule's drift and wall steps on the Redis
// node apply to it; Redis expires keys on its wall clock). It records the operations P3 judges: a
// client's recording connection names each request (CLIENT SETNAME with a
// gohost.OpRef, pipelined before it), and the server marks it processed
// (gohost.Node.Processed) with the reply in the expiring-key conventions
// and its clock reading.
func Server(opts ServerOptions) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error { return Serve(ctx, n, n.Clock().Now, opts) }
}

// Serve runs the simulated Redis in env until ctx ends (Server's body),
// reading the time from clock (the node's own clock under the host).
func Serve(ctx context.Context, env Env, clock func() time.Time, opts ServerOptions) error {
	var store *gohost.Storage
	if opts.AppendOnly {
		store = env.Storage()
	}
	srv := &server{n: env, clock: clock, st: newRedisState(newKeyspace(store)), conns: map[net.Conn]bool{}}
	return srv.serve(ctx)
}

// server is one life of the simulated Redis.
type server struct {
	n     Env
	clock func() time.Time
	mu    sync.Mutex // the single thread: one command at a time
	st    *redisState

	connMu sync.Mutex
	conns  map[net.Conn]bool // closed at the end, in any order
}

// serve accepts connections until ctx ends, then closes them and waits
// for their goroutines.
func (s *server) serve(ctx context.Context) error {
	l, err := s.n.Listen("tcp", RedisPort)
	if err != nil {
		return fmt.Errorf("redis: listen: %w", err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.connMu.Lock()
			s.conns[c] = true
			s.connMu.Unlock()
			wg.Go(func() { s.serveConn(c) })
		}
	})
	<-ctx.Done()
	l.Close()
	s.connMu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.connMu.Unlock()
	wg.Wait()
	return nil
}

// serveConn answers one connection's commands, in order, until it fails.
// Replies are flushed when no more request bytes are buffered, so a
// pipelined batch is answered in one write, as Redis's event loop does.
func (s *server) serveConn(c net.Conn) {
	defer func() {
		c.Close()
		s.connMu.Lock()
		delete(s.conns, c)
		s.connMu.Unlock()
	}()
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	var out []byte
	var ref *gohost.OpRef // the request the next command is, named by CLIENT SETNAME
	for {
		args, err := readCommand(r)
		if err != nil {
			if !isClosed(err) {
				w.Write(errorReply("ERR Protocol error: " + err.Error()).append(out[:0]))
				w.Flush()
			}
			return
		}
		rep, named := s.do(args, ref)
		ref = named
		out = rep.append(out[:0])
		if _, err := w.Write(out); err != nil {
			return
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}

// do runs one command under the single thread and records it for P3 when
// a request ref names it. It returns the reply and the ref that names
// the next command (set by CLIENT SETNAME, spent by any other command).
func (s *server) do(args []string, ref *gohost.OpRef) (reply, *gohost.OpRef) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	rep := s.st.exec(args, now)
	if len(args) == 3 && strings.EqualFold(args[0], "CLIENT") && strings.EqualFold(args[1], "SETNAME") && rep.kind == '+' {
		if r, err := gohost.ParseOpRef(args[2]); err == nil {
			return rep, &r
		}
		return rep, nil
	}
	if ref != nil {
		if in, ok := request(args); ok {
			s.n.Processed(*ref, response(in, rep, clockReading(now)))
		}
	}
	return rep, nil
}

// isClosed reports whether a read error is the connection ending rather
// than bad input.
func isClosed(err error) bool { return !errors.Is(err, errProtocol) }
