package consul

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/gohost"
)

// The session rules of Consul's documentation ("Sessions and distributed
// locks overview", developer.hashicorp.com/consul/docs/automate/session,
// and the /v1/session HTTP API reference).
const (
	// DefaultLockDelay is the lock-delay of a session created without one
	// (the session API's default, 15 s).
	DefaultLockDelay = 15 * time.Second
	// MaxLockDelay is the longest lock-delay the server accepts (60 s).
	MaxLockDelay = 60 * time.Second
	// TTLMin and TTLMax bound a session's TTL (10 s to 24 h, the server's
	// session_ttl_min default and its maximum).
	TTLMin, TTLMax = 10 * time.Second, 24 * time.Hour
)

// Session behaviours (the session API's Behavior field).
const (
	BehaviorRelease = "release"
	BehaviorDelete  = "delete"
)

// session is one session as the state store keeps it. Its TTL deadline is
// not durable: Consul's leader keeps session timers in memory and a new
// leader resets them all.
type session struct {
	ID          string
	Name        string
	Behavior    string
	TTL         time.Duration // 0: no TTL
	LockDelay   time.Duration
	CreateIndex uint64
	ModifyIndex uint64

	deadline time.Time // on the server's clock; zero without a TTL
}

// kvEntry is one key.
type kvEntry struct {
	Key                                 string
	CreateIndex, ModifyIndex, LockIndex uint64
	Flags                               uint64
	Value                               []byte
	Session                             string
}

// durable is what the server writes to its Storage after every change
// (Consul commits every write to its Raft log before it replies).
type durable struct {
	Index    uint64
	KVIndex  uint64 // the KV table's index (deletes raise it too)
	Sessions []*session
	KV       []*kvEntry
}

// stateKey is the Storage key of the durable state.
const stateKey = "consul/state"

// state is the server's state store: sessions, the KV table, the Raft
// index and the lock-delays. It is not safe for concurrent use; the server
// guards it with one mutex.
type state struct {
	opts     ServerOptions
	index    uint64 // the last Raft index
	kvIndex  uint64
	sessions map[string]*session // looked up by ID, never iterated
	ids      []string            // session IDs in creation order, for iteration
	kv       map[string]*kvEntry // looked up by key, never iterated
	keys     []string            // sorted keys, for iteration
	delay    map[string]time.Time
	store    *gohost.Storage
	rnd      *rand.Rand
}

// newState loads the durable state from store (empty on first start) and
// resets every session's TTL timer to a full TTL×multiplier from now, as
// a newly elected leader does (initializeSessionTimers in Consul's
// agent/consul/session_ttl.go). Lock-delays are not durable: Consul keeps
// them in the state store's memory only.
func newState(opts ServerOptions, store *gohost.Storage, rnd *rand.Rand, now time.Time) (*state, error) {
	s := &state{opts: opts, sessions: map[string]*session{}, kv: map[string]*kvEntry{}, delay: map[string]time.Time{},
		store: store, rnd: rnd}
	raw, ok := store.Get(stateKey)
	if !ok {
		return s, nil
	}
	var d durable
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("consul: reload state: %w", err)
	}
	s.index, s.kvIndex = d.Index, d.KVIndex
	for _, se := range d.Sessions {
		s.sessions[se.ID] = se
		s.ids = append(s.ids, se.ID)
		s.resetTimer(se, now)
	}
	for _, e := range d.KV {
		s.kv[e.Key] = e
		s.keys = append(s.keys, e.Key)
	}
	return s, nil
}

// persist writes the durable state.
func (s *state) persist() {
	d := durable{Index: s.index, KVIndex: s.kvIndex}
	for _, id := range s.ids {
		d.Sessions = append(d.Sessions, s.sessions[id])
	}
	for _, k := range s.keys {
		d.KV = append(d.KV, s.kv[k])
	}
	raw, err := json.Marshal(d)
	if err != nil {
		panic("consul: state not encodable: " + err.Error())
	}
	s.store.Put(stateKey, raw)
}

// resetTimer starts a session's TTL timer: it is invalidated once
// TTL×multiplier has passed on the server's clock without a renewal.
func (s *state) resetTimer(se *session, now time.Time) {
	if se.TTL > 0 {
		se.deadline = now.Add(time.Duration(float64(se.TTL) * s.opts.multiplier()))
	}
}

// next raises the Raft index for a write.
func (s *state) next() uint64 {
	s.index++
	return s.index
}

// newID draws a session ID, a UUID from the server's seeded source.
func (s *state) newID() string {
	a, b := s.rnd.Uint64(), s.rnd.Uint64()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}

// createSession creates a session (PUT /v1/session/create).
func (s *state) createSession(name, behavior string, ttl, lockDelay time.Duration, now time.Time) (*session, error) {
	switch {
	case behavior == "":
		behavior = BehaviorRelease
	case behavior != BehaviorRelease && behavior != BehaviorDelete:
		return nil, fmt.Errorf("invalid Behavior setting '%s'", behavior)
	}
	if ttl != 0 && (ttl < TTLMin || ttl > TTLMax) {
		return nil, fmt.Errorf("invalid Session TTL '%d', must be between [%v=%v]", ttl, TTLMin, TTLMax)
	}
	if lockDelay > MaxLockDelay {
		lockDelay = MaxLockDelay
	}
	idx := s.next()
	se := &session{ID: s.newID(), Name: name, Behavior: behavior, TTL: ttl, LockDelay: lockDelay, CreateIndex: idx, ModifyIndex: idx}
	s.sessions[se.ID] = se
	s.ids = append(s.ids, se.ID)
	s.resetTimer(se, now)
	s.persist()
	return se, nil
}

// renew renews a session's TTL (PUT /v1/session/renew/:id): not a Raft
// write, the leader resets its timer.
func (s *state) renew(id string, now time.Time) (*session, bool) {
	se, ok := s.sessions[id]
	if !ok {
		return nil, false
	}
	s.resetTimer(se, now)
	return se, true
}

// destroy invalidates a session (PUT /v1/session/destroy/:id, or its TTL
// expired): every key it holds is released or deleted by its behaviour, and
// each gets the session's lock-delay.
func (s *state) destroy(id string, now time.Time) {
	se, ok := s.sessions[id]
	if !ok {
		return
	}
	idx := s.next()
	delete(s.sessions, id)
	s.ids = slices.DeleteFunc(s.ids, func(x string) bool { return x == id })
	for _, k := range slices.Clone(s.keys) {
		e := s.kv[k]
		if e.Session != id {
			continue
		}
		if se.LockDelay > 0 && !s.opts.IgnoreLockDelay {
			s.delay[k] = now.Add(se.LockDelay)
		}
		if se.Behavior == BehaviorDelete {
			s.deleteKey(k, idx)
			continue
		}
		e.Session, e.ModifyIndex = "", idx
		s.kvIndex = idx
	}
	s.persist()
}

// expire invalidates every session whose TTL deadline has passed, in
// creation order, and returns the earliest deadline still ahead (zero if
// none).
func (s *state) expire(now time.Time) time.Time {
	var next time.Time
	for _, id := range slices.Clone(s.ids) {
		se := s.sessions[id]
		if se.deadline.IsZero() {
			continue
		}
		if !now.Before(se.deadline) {
			s.destroy(id, now)
			continue
		}
		if next.IsZero() || se.deadline.Before(next) {
			next = se.deadline
		}
	}
	return next
}

// get returns the key, or nil.
func (s *state) get(key string) *kvEntry { return s.kv[key] }

// list returns the keys under prefix, sorted.
func (s *state) list(prefix string) []*kvEntry {
	var out []*kvEntry
	for _, k := range s.keys {
		if strings.HasPrefix(k, prefix) {
			out = append(out, s.kv[k])
		}
	}
	return out
}

// queryIndex is the X-Consul-Index of a read of key (or of prefix with
// recurse): the highest ModifyIndex among the keys it returns, or the KV
// table's index when it returns none, as Consul's KV endpoint reports it.
func (s *state) queryIndex(key string, recurse bool) uint64 {
	var idx uint64
	if recurse {
		for _, e := range s.list(key) {
			idx = max(idx, e.ModifyIndex)
		}
	} else if e := s.get(key); e != nil {
		idx = e.ModifyIndex
	}
	if idx == 0 {
		idx = s.kvIndex
	}
	return max(idx, 1)
}

// put writes a key without a lock operation (plain PUT, or ?cas=).
// cas < 0 means no check; cas 0 means only if the key does not exist.
func (s *state) put(key string, value []byte, flags uint64, cas int64) bool {
	e := s.get(key)
	if cas == 0 && e != nil || cas > 0 && (e == nil || e.ModifyIndex != uint64(cas)) {
		return false
	}
	idx := s.next()
	e = s.upsert(key, idx)
	e.Value, e.Flags, e.ModifyIndex = value, flags, idx
	s.kvIndex = idx
	s.persist()
	return true
}

// acquire is PUT ?acquire=session: the KV API's rule. It fails (false, no
// error) when another session holds the key or a lock-delay is in force
// on it; with a session that does not exist it is an error. The holding
// session may acquire again: the value is updated, LockIndex is not.
func (s *state) acquire(key string, value []byte, flags uint64, id string, now time.Time) (bool, error) {
	if _, ok := s.sessions[id]; !ok {
		return false, fmt.Errorf("invalid session %q", id)
	}
	e := s.get(key)
	if e != nil && e.Session != "" && e.Session != id {
		return false, nil
	}
	if until, ok := s.delay[key]; ok && now.Before(until) && (e == nil || e.Session != id) {
		return false, nil
	}
	idx := s.next()
	e = s.upsert(key, idx)
	if e.Session != id {
		e.LockIndex++
	}
	e.Value, e.Flags, e.Session, e.ModifyIndex = value, flags, id, idx
	s.kvIndex = idx
	s.persist()
	return true, nil
}

// release is PUT ?release=session: only the holding session releases the
// key (no lock-delay: the holder gave it up).
func (s *state) release(key string, value []byte, flags uint64, id string) bool {
	e := s.get(key)
	if e == nil || e.Session != id {
		return false
	}
	idx := s.next()
	e.Value, e.Flags, e.Session, e.ModifyIndex = value, flags, "", idx
	s.kvIndex = idx
	s.persist()
	return true
}

// remove is DELETE /v1/kv/:key (with ?cas= and ?recurse).
func (s *state) remove(key string, recurse bool, cas int64) bool {
	if cas >= 0 {
		e := s.get(key)
		if e == nil && cas != 0 || e != nil && e.ModifyIndex != uint64(cas) {
			return false
		}
	}
	idx := s.next()
	if recurse {
		for _, e := range s.list(key) {
			s.deleteKey(e.Key, idx)
		}
	} else {
		s.deleteKey(key, idx)
	}
	s.kvIndex = idx
	s.persist()
	return true
}

// upsert returns the key's entry, creating it at idx.
func (s *state) upsert(key string, idx uint64) *kvEntry {
	if e := s.kv[key]; e != nil {
		return e
	}
	e := &kvEntry{Key: key, CreateIndex: idx}
	s.kv[key] = e
	i, _ := slices.BinarySearch(s.keys, key)
	s.keys = slices.Insert(s.keys, i, key)
	return e
}

// deleteKey removes a key (the KV table's index rises to idx).
func (s *state) deleteKey(key string, idx uint64) {
	if _, ok := s.kv[key]; !ok {
		return
	}
	delete(s.kv, key)
	if i, ok := slices.BinarySearch(s.keys, key); ok {
		s.keys = slices.Delete(s.keys, i, i+1)
	}
	s.kvIndex = idx
}
