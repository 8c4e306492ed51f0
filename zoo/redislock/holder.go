package redislock

import (
	"fmt"
	"strconv"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/holderkit"
)

// keyHolderBoots is the holder's durable boot counter: the high 32 bits of
// its request ids, so that a reply to an earlier incarnation's request is
// never taken for a reply to this one's.
const keyHolderBoots = "redislock/holder/boots"

// holder is a Redis lock client. It keeps one session per resource it was
// asked to acquire, and one request of a session in flight at a time.
type holder struct {
	env           lease.Env
	net           lease.AnyTransport
	t             timing
	bugs          bugs
	server, store lease.Addr
	ids           *holderkit.RequestIDs
	sessions      map[string]*session       // by resource; looked up, never iterated
	sessionID     uint64                    // SessionTokenMutant: the id it fences with; 0 until drawn
	attempts      uint64                    // SessionTokenMutant: SETs tried, to keep lock values unique
	calls         *holderkit.Pending[*call] // commands awaiting a reply
	// The holder's client of the fenced store at store: Write,
	// SideEffect and Deliver (the store's replies) are its.
	*holderkit.FencedStore
}

var (
	_ lease.Holder  = (*holder)(nil)
	_ lease.AnyNode = (*holder)(nil)
)

// newHolder boots a holder on env that locks through the server at server
// and writes to the fenced store at store.
func newHolder(env lease.Env, cfg lease.Config, server, store lease.Addr, b bugs) (*holder, error) {
	net, err := anyTransport(env)
	if err != nil {
		return nil, fmt.Errorf("new redislock holder: %w", err)
	}
	t, err := newTiming(cfg)
	if err != nil {
		return nil, fmt.Errorf("new redislock holder: %w", err)
	}
	h := &holder{env: env, net: net, t: t, bugs: b, server: server, store: store,
		sessions: make(map[string]*session)}
	if h.ids, err = holderkit.NewRequestIDs(env.Store, keyHolderBoots, "redislock"); err != nil {
		return nil, fmt.Errorf("new redislock holder: %w", err)
	}
	h.calls = holderkit.NewPending(env.Clock, t.requestTimeout, h.timedOut)
	h.FencedStore = holderkit.NewFencedStore(env, store, t.requestTimeout, h.ids, h.Valid, h.fenced)
	return h, nil
}

// lockKey and fenceKey are the server keys of a resource: the lock itself
// and the counter that issues its fencing tokens.
func lockKey(resource string) string  { return "lock:" + resource }
func fenceKey(resource string) string { return "fence:" + resource }

// sessionKey is the server key whose INCR draws a session id
// (SessionTokenMutant).
const sessionKey = "sessions"

// lockValue is the value a holder sets on a lock: unique per acquisition,
// since every token is drawn by a fresh INCR. SessionTokenMutant reuses its
// token, so it numbers its attempts after it to keep each value unique.
func (h *holder) lockValue(token uint64) string {
	v := string(h.env.Self) + "/" + strconv.FormatUint(token, 10)
	if h.bugs.sessionToken {
		h.attempts++
		v += "." + strconv.FormatUint(h.attempts, 10)
	}
	return v
}

// Acquire starts locking resource and keeps it locked (renewing it, and
// locking it again after a loss) until Release. Attached registrations are
// not supported: an Acquire with Keys fails at once through OnLost.
func (h *holder) Acquire(resource string, opts lease.AcquireOptions) {
	if h.sessions[resource] != nil {
		return
	}
	if holderkit.RefuseRegistrations(resource, opts) {
		return
	}
	s := &session{Belief: holderkit.Belief{Resource: resource, OnGrant: opts.OnGrant, OnLost: opts.OnLost}}
	h.sessions[resource] = s
	h.attempt(s)
}

// Release stops believing at once and deletes the lock at the server if it
// is still ours (the unlock script; best effort, no reply awaited).
func (h *holder) Release(resource string) {
	s := h.sessions[resource]
	if s == nil {
		return
	}
	delete(h.sessions, resource)
	believing, token := s.Believing, s.Token
	s.stop()
	s.released = true
	if s.value != "" {
		h.unlock(s)
	}
	if believing {
		h.observe(lease.Event{Kind: lease.EventRelease, Resource: resource, Token: token})
	}
}

// Valid returns the grant while the holder believes it holds resource:
// the lock was ours when it last sent a successful SET or PEXPIRE, and its
// clock has not reached that send time plus the validity.
func (h *holder) Valid(resource string) (lease.Grant, bool) {
	s := h.sessions[resource]
	if s == nil {
		return lease.Grant{}, false
	}
	return s.Valid(h.env.Clock.Now(), h.t.ttl)
}

// DeliverAny takes the server's replies.
func (h *holder) DeliverAny(_ lease.Addr, m any) {
	if r, ok := m.(Reply); ok {
		h.replied(r)
	}
}

// observe stamps ev with the node and its clocks and reports it.
func (h *holder) observe(ev lease.Event) { holderkit.Observe(h.env, ev) }

// after arms f after d on the holder's clock.
func (h *holder) after(d time.Duration, f func()) lease.Timer {
	return h.env.Clock.AfterFunc(max(d, 0), f)
}
