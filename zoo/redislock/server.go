package redislock

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/leasesim/leasesim/lease"
)

// server is a single Redis-like node: an in-memory key space with expiry on
// its own monotonic clock, running one command at a time. It is the
// implementation's grantor.
type server struct {
	env     lease.Env
	net     lease.AnyTransport
	mode    Persistence
	keys    map[string]*entry // looked up, never iterated
	durable *durableKeys      // nil under NoPersistence
	// unsynced says that AppendFsyncEverySec has buffered changes since
	// its last sync.
	unsynced bool
}

var (
	_ lease.Grantor = (*server)(nil)
	_ lease.AnyNode = (*server)(nil)
)

// newServer boots the server on env. Under a persisting mode it reloads
// the key space from env.Store; under NoPersistence it starts empty, as a
// Redis restarted without persistence does.
func newServer(env lease.Env, mode Persistence) (*server, error) {
	net, err := anyTransport(env)
	if err != nil {
		return nil, fmt.Errorf("new redislock server: %w", err)
	}
	if int(mode) >= len(persistenceNames) {
		return nil, fmt.Errorf("new redislock server: %v: %w", mode, lease.ErrInvalidConfig)
	}
	s := &server{env: env, net: net, mode: mode, keys: make(map[string]*entry)}
	if mode != NoPersistence {
		s.durable, s.keys = loadKeys(env.Store, env.Clock.Now())
	}
	if mode == AppendFsyncEverySec {
		s.env.Clock.AfterFunc(fsyncInterval, s.syncTick)
	}
	return s, nil
}

// anyTransport returns env's transport for the implementation's own
// messages, after checking that env has what a node needs.
func anyTransport(env lease.Env) (lease.AnyTransport, error) {
	if env.Self == "" || env.Clock == nil || env.Net == nil || env.Store == nil || env.Rand == nil {
		return nil, fmt.Errorf("env needs Self, Clock, Net, Store and Rand: %w", lease.ErrInvalidConfig)
	}
	net, ok := env.Net.(lease.AnyTransport)
	if !ok {
		return nil, fmt.Errorf("env.Net (%T) cannot send this implementation's messages (lease.AnyTransport): %w",
			env.Net, lease.ErrInvalidConfig)
	}
	return net, nil
}

// DeliverAny runs a Command and replies to its sender. A command whose
// change cannot be made durable (AppendFsyncAlways) gets no reply; its
// sender times out, as a Redis client does when the server dies mid-fsync.
func (s *server) DeliverAny(from lease.Addr, m any) {
	cmd, ok := m.(Command)
	if !ok {
		return
	}
	reply, ok := s.run(cmd)
	if ok {
		s.net.SendAny(from, reply)
	}
}

// run executes cmd at the current reading and returns the reply, and false
// if the change could not be made durable.
func (s *server) run(cmd Command) (Reply, bool) {
	now := s.env.Clock.Now()
	reply := Reply{Op: cmd.Op, Client: cmd.Client, ID: cmd.ID, Clock: now}
	if malformed(cmd) != "" {
		reply.Err = ErrBadRequest
		return reply, true
	}
	old := s.lookup(cmd.Key, now)
	next, changed := s.apply(cmd, old, now, &reply)
	if !changed {
		return reply, true
	}
	s.set(cmd.Key, next)
	if !s.persist(cmd.Key, next) {
		s.set(cmd.Key, old)
		s.durable.put(cmd.Key, old) // buffered over the unsynced change: the store reads as before
		return Reply{}, false
	}
	return reply, true
}

// malformed says what is wrong with cmd, or "" if nothing.
func malformed(cmd Command) string {
	switch {
	case cmd.Op.opCode() == 0:
		return fmt.Sprintf("unknown command %q", cmd.Op)
	case cmd.Key == "" || strings.Contains(cmd.Key, "\n"):
		return fmt.Sprintf("key %q is empty or holds a newline", cmd.Key)
	case (cmd.Op == OpSetNXPX || cmd.Op == OpPExpireIfEqual) && cmd.TTL <= 0:
		return fmt.Sprintf("TTL %v is not positive", cmd.TTL)
	}
	return ""
}

// apply computes cmd's effect on the key's current entry (nil if absent):
// the next entry (nil: deleted) and whether the key changed. It fills in
// the reply.
func (s *server) apply(cmd Command, cur *entry, now time.Duration, reply *Reply) (*entry, bool) {
	mine := cur != nil && cur.value == cmd.Value
	switch cmd.Op {
	case OpSetNXPX:
		if cur != nil {
			return cur, false
		}
		reply.OK = true
		return &entry{value: cmd.Value, expires: true, expiresAt: saturatingAdd(now, cmd.TTL)}, true
	case OpGet:
		if cur != nil {
			reply.OK, reply.Value = true, cur.value
		}
		return cur, false
	case OpDelIfEqual:
		reply.OK = mine
		return nil, mine
	case OpPExpireIfEqual:
		if !mine {
			return cur, false
		}
		reply.OK = true
		return &entry{value: cur.value, expires: true, expiresAt: saturatingAdd(now, cmd.TTL)}, true
	}
	return incr(cur, reply)
}

// incr adds one to the key's integer value (0 if absent), keeping its
// expiry, or fails with ErrNotInteger.
func incr(cur *entry, reply *Reply) (*entry, bool) {
	var n int64
	next := &entry{}
	if cur != nil {
		v, err := strconv.ParseInt(cur.value, 10, 64)
		if err != nil || v == math.MaxInt64 {
			reply.Err = ErrNotInteger
			return cur, false
		}
		n, *next = v, *cur
	}
	reply.N = n + 1
	next.value = strconv.FormatInt(n+1, 10)
	return next, true
}

// lookup returns the key's entry if it is present at now, deleting it from
// memory if it has expired (Redis's lazy expiry). The durable record of an
// expired key is left alone: reloading drops it.
func (s *server) lookup(name string, now time.Duration) *entry {
	e := s.keys[name]
	if e == nil {
		return nil
	}
	if !e.live(now) {
		delete(s.keys, name)
		return nil
	}
	return e
}

// set makes e (nil: absent) the key's entry in memory.
func (s *server) set(name string, e *entry) {
	if e == nil {
		delete(s.keys, name)
		return
	}
	s.keys[name] = e
}

// persist writes the key's new state as the mode says, and reports whether
// the reply may go: under AppendFsyncAlways only once the change is synced.
func (s *server) persist(name string, e *entry) bool {
	if s.durable == nil {
		return true
	}
	s.durable.put(name, e)
	if s.mode == AppendFsyncEverySec {
		s.unsynced = true
		return true
	}
	return s.env.Store.Sync() == nil
}

// syncTick syncs what AppendFsyncEverySec buffered in the last second.
func (s *server) syncTick() {
	if s.unsynced && s.env.Store.Sync() == nil {
		s.unsynced = false
	}
	s.env.Clock.AfterFunc(fsyncInterval, s.syncTick)
}

// saturatingAdd returns t+d, or the largest reading if that overflows.
func saturatingAdd(t, d time.Duration) time.Duration {
	if d > 0 && t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}
