package consul

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/leasesim/leasesim/gohost"
)

// HTTPPort is the port the simulated Consul agent's HTTP API listens on.
const HTTPPort = ":8500"

// ServerOptions configures the simulated Consul server. The zero value is
// Consul as documented, with no leader election after a start.
type ServerOptions struct {
	// TTLMultiplier is how many TTLs the server waits, on its own clock,
	// after a session's last renewal before it invalidates it: 0 means 2,
	// Consul's (structs.SessionTTLMultiplier, applied by resetSessionTimer
	// in agent/consul/session_ttl.go). Consul documents the TTL as a lower
	// bound only (Consul promises not to end a session before its TTL and
	// may end it later: the pull request that added session TTLs, #524, and
	// the /v1/session/create reference, which warns that a session may be
	// reaped as late as twice its TTL), so any value ≥ 1 is Consul.
	TTLMultiplier float64
	// IgnoreLockDelay is a variant, not Consul: the server never refuses an
	// acquire for a lock-delay (as if every session had LockDelay 0).
	IgnoreLockDelay bool
	// Election is how long the server has no leader after a restart (a
	// leader failover of a one-server cluster; the cluster's first election
	// happens before the story begins): every request
	// is answered 500 "No cluster leader" until then, as Consul's HTTP API
	// answers while no leader is known.
	Election time.Duration
}

// multiplier is TTLMultiplier with its default.
func (o ServerOptions) multiplier() float64 {
	if o.TTLMultiplier == 0 {
		return 2
	}
	return o.TTLMultiplier
}

// DefaultServer is Consul: invalidation at twice the TTL, lock-delay
// honoured, and a leader elected one second after a start.
var DefaultServer = ServerOptions{Election: time.Second}

// Server returns the node function of the simulated Consul agent and
// server: one node serving the HTTP API on HTTPPort, its state in the
// node's durable Storage (every write committed before the reply, as
// Raft commits it), session TTLs on the node's own clock (Node.Clock:
// the schedule's drift and steps apply).
func Server(opts ServerOptions) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		clock := n.Clock()
		st, err := newState(opts, n.Storage(), n.Rand(), clock.Now())
		if err != nil {
			return err
		}
		l, err := n.Listen("tcp", HTTPPort)
		if err != nil {
			return fmt.Errorf("consul: listen: %w", err)
		}
		s := &server{ctx: ctx, clock: clock, st: st, changed: make(chan struct{}), leaderAt: clock.Now(),
			rec: &recorder{n: n}}
		if n.Incarnation() > 1 {
			s.leaderAt = s.leaderAt.Add(opts.Election) // a failover: the cluster's first election is before the story
			s.mu.Lock()
			s.rec.failover(clock.Now(), st)
			s.mu.Unlock()
		}
		return s.serve(ctx, l)
	}
}

// server is one life of the simulated Consul server.
type server struct {
	ctx      context.Context
	clock    gohost.Clock
	mu       sync.Mutex // guards st and changed
	st       *state
	changed  chan struct{} // closed and replaced at every change of the state
	leaderAt time.Time     // no leader before this instant
	rec      *recorder     // the operations P3 judges (ops.go)
}

// serve runs the HTTP server and the session reaper until ctx ends.
func (s *server) serve(ctx context.Context, l net.Listener) error {
	srv := &http.Server{Handler: s.handler(), ErrorLog: log.New(io.Discard, "", 0)}
	var wg sync.WaitGroup
	wg.Go(func() { s.reap(ctx) })
	wg.Go(func() {
		<-ctx.Done()
		srv.Close()
	})
	err := srv.Serve(l)
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) || ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("consul: serve: %w", err)
}

// lock takes the state's mutex, invalidates the sessions whose TTL has
// passed, and returns the clock reading the request is served at.
func (s *server) lock() time.Time {
	s.mu.Lock()
	now := s.clock.Now()
	s.expire(now)
	s.rec.served(now)
	return now
}

// expire invalidates expired sessions and wakes blocking queries if that
// changed anything. Callers hold mu.
func (s *server) expire(now time.Time) time.Time {
	before := s.st.index
	next := s.st.expire(now)
	if s.st.index != before {
		s.notify()
	}
	return next
}

// notify wakes every blocking query. Callers hold mu.
func (s *server) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// reap invalidates sessions as their TTL passes, so that blocking queries
// on their keys return then, as the leader's session timers do.
func (s *server) reap(ctx context.Context) {
	for {
		s.mu.Lock()
		now := s.clock.Now()
		next := s.expire(now)
		if ctx.Err() == nil {
			s.rec.served(now)
		}
		changed := s.changed
		s.mu.Unlock()
		var fire <-chan time.Time
		var t gohost.Timer
		if !next.IsZero() {
			t = s.clock.NewTimer(max(s.clock.Until(next), time.Nanosecond))
			fire = t.C()
		}
		select {
		case <-ctx.Done():
		case <-fire:
		case <-changed:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}
