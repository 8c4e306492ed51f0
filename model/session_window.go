package model

import (
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
)

// The invalidation window shared by the session specifications
// (ZooKeeperSession, ConsulSession): a session with a timeout (ZooKeeper's
// session timeout, Consul's TTL) renewed at reading r is valid at every
// server reading before r+ttl (a session expires no earlier than its
// timeout) and invalidated at every reading after r+ttl+hold, where hold
// is the invalidation bound the history declares (history.Lease.HoldPPB:
// ZooKeeper's tick, Consul's TTL multiplier). Between the two the server
// may invalidate it at any instant, and nothing is recorded when it does:
// the specification learns the instant only from what later operations
// observe. So it keeps an interval [lo, hi] that the invalidation instant
// must lie in, narrowed by every observation, and whether the
// invalidation has happened (dead). Every observation narrows the interval
// to a sub-interval, so the state stays one interval and the model stays
// deterministic, as porcupine needs; a history whose observations leave
// the interval empty is not linearizable.
//
// At equal readings the linearization order decides: an operation
// ordered before the invalidation sees the session valid, one after sees
// it gone, so "valid at t" means lo >= t is possible and "gone at t"
// means lo <= t.

// sessionWin is one session's window. Its fields are comparable, so that
// a state holding sessions compares with ==.
type sessionWin struct {
	id    string
	ttl   time.Duration
	hold  time.Duration // the invalidation bound beyond ttl
	delay time.Duration // Consul's lock-delay (0 for ZooKeeper)
	lo    time.Duration // the invalidation comes no earlier than lo
	hi    time.Duration // and no later than hi
	dead  bool          // the invalidation has happened
}

// newSession is a session created (and so renewed) at t.
func newSession(id string, ttl, hold, delay, t time.Duration) sessionWin {
	w := sessionWin{id: id, ttl: ttl, hold: hold, delay: delay}
	w.renew(t)
	return w
}

// renew resets the window from a renewal at t: valid until t+ttl,
// invalidated by t+ttl+hold.
func (w *sessionWin) renew(t time.Duration) {
	w.lo, w.hi = saturatingAdd(t, w.ttl), saturatingAdd(saturatingAdd(t, w.ttl), w.hold)
}

// advance marks the session gone once t is past its invalidation bound.
func (w *sessionWin) advance(t time.Duration) {
	if !w.dead && t > w.hi {
		w.dead = true
	}
}

// valid records that the session was seen valid at t (an operation
// processed under it, a node or key it owns seen); "" or why that is
// impossible.
func (w *sessionWin) valid(t time.Duration) string {
	w.advance(t)
	if w.dead {
		return fmt.Sprintf("session %s is seen valid at t=%v, but it was invalidated by %v (its timeout %v and "+
			"the invalidation bound %v after its last renewal, or as seen before)", w.id, t, w.hi, w.ttl, w.hold)
	}
	w.lo = max(w.lo, t)
	return ""
}

// gone records that the session was seen invalidated at t; "" or why
// that is impossible (it must still be valid: it expired before its
// timeout).
func (w *sessionWin) gone(t time.Duration) string {
	w.advance(t)
	if w.lo > t {
		return fmt.Sprintf("session %s is seen invalidated at t=%v, before its timeout %v ran out (valid until %v)",
			w.id, t, w.ttl, w.lo)
	}
	w.dead, w.hi = true, min(w.hi, t)
	return ""
}

// invalidate records an explicit invalidation at t (ZooKeeper's
// closeSession, Consul's destroy), which may come before the timeout.
func (w *sessionWin) invalidate(t time.Duration) {
	w.advance(t)
	if !w.dead {
		w.dead, w.lo, w.hi = true, t, t
	}
}

// notBefore narrows the window to an invalidation after at (a refused
// acquire that only a lock-delay in force explains); "" or why not.
func (w *sessionWin) notBefore(at time.Duration, why string) string {
	if at > w.hi {
		return fmt.Sprintf("%s, but session %s was invalidated by %v", why, w.id, w.hi)
	}
	w.lo = max(w.lo, at)
	return ""
}

// notAfter narrows the window to an invalidation no later than at (an
// acquire that a lock-delay in force would have refused); "" or why not.
func (w *sessionWin) notAfter(at time.Duration, why string) string {
	if at < w.lo {
		return fmt.Sprintf("%s, but session %s was valid until at least %v", why, w.id, w.lo)
	}
	w.hi = min(w.hi, at)
	w.dead = true
	return ""
}

// String describes the window, for example `s1 valid until 6s, gone by
// 8s` or `s1 gone in [6s, 7.5s]`.
func (w sessionWin) String() string {
	if w.dead {
		return fmt.Sprintf("%s gone in [%v, %v]", w.id, w.lo, w.hi)
	}
	return fmt.Sprintf("%s valid until %v, gone by %v", w.id, w.lo, w.hi)
}

// hash mixes the window into h.
func (w sessionWin) hash(h fnv) fnv {
	return h.str(w.id).u64(uint64(w.ttl)).u64(uint64(w.hold)).u64(uint64(w.delay)).u64(uint64(w.lo)).
		u64(uint64(w.hi)).u64(b2u(w.dead))
}

// unpartitionedModel sets m's Partition and PartitionEvent to keep every
// operation in one partition (none for no operations): a session spans
// nodes and keys, so a session specification cannot be split by key, and
// a checker that partitions every model gets the one partition.
func unpartitionedModel(m porcupine.Model) porcupine.Model {
	m.Partition = func(ops []porcupine.Operation) [][]porcupine.Operation {
		if len(ops) == 0 {
			return nil
		}
		return [][]porcupine.Operation{ops}
	}
	m.PartitionEvent = func(events []porcupine.Event) [][]porcupine.Event {
		if len(events) == 0 {
			return nil
		}
		return [][]porcupine.Event{events}
	}
	return m
}

// serverReturn says how a server's return is told: a ZooKeeper server
// restarting reopens sessions, a new Consul leader renews them.
type serverReturn struct{ event, did, do, made string }

var (
	zkRestarted      = serverReturn{"restart", "reopened", "reopen", "opened"}
	consulFailedOver = serverReturn{"failover", "renewed", "renew", "created"}
)

// reopen applies a server's return at t to ws: named are the sessions it
// reopened or renewed, and every other one is gone. No session expires
// while no server runs, so the caller first applies the bounds up to
// lost, the previous life's last known reading, and a session whose bound
// fell after it may be reopened. With keepDead a session already gone is
// left as it is. "" or why not.
func reopen(ws []sessionWin, named []history.KV, lost, t time.Duration, r serverReturn, keepDead bool) string {
	for i := range ws {
		w := &ws[i]
		if !slices.ContainsFunc(named, func(kv history.KV) bool { return kv.Key == w.id }) {
			if keepDead && w.dead {
				continue
			}
			if why := w.gone(t); why != "" {
				return fmt.Sprintf("the %s did not %s it: %s", r.event, r.do, why)
			}
			continue
		}
		if why := w.valid(lost); why != "" {
			return fmt.Sprintf("the %s %s it: %s", r.event, r.did, why)
		}
		w.renew(t)
	}
	for _, kv := range named {
		if sessionIndex(ws, kv.Key) < 0 {
			return fmt.Sprintf("the %s %s session %s, which was never %s", r.event, r.did, kv.Key, r.made)
		}
	}
	return ""
}

// sessionIndex returns the index of the session id in ws, or -1.
func sessionIndex(ws []sessionWin, id string) int {
	for i := range ws {
		if ws[i].id == id {
			return i
		}
	}
	return -1
}
