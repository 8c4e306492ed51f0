package sim

import (
	"slices"
	"strings"
)

// Storage is a node's durable key-value store. Writes are buffered: a Put or
// Delete is visible to Get at once but survives a crash only once Sync has
// made it durable, which models an unsynced write lost on crash.
//
// Values are not copied. Put keeps the slice it is given, so the caller
// must not modify it afterwards; Get returns the stored slice, which the
// caller must not modify. A stored value is never changed in place (a Put
// replaces it), so what Get returned stays valid and unchanged.
type Storage struct {
	durable map[string][]byte
	pending []pendingWrite
	syncs   uint64
}

type pendingWrite struct {
	key    string
	value  []byte
	delete bool
}

func newStorage() Storage { return Storage{durable: make(map[string][]byte)} }

// Get returns the latest value of key, synced or not. The caller must not
// modify it.
func (s *Storage) Get(key string) ([]byte, bool) {
	for i := len(s.pending) - 1; i >= 0; i-- {
		if p := s.pending[i]; p.key == key {
			return p.value, !p.delete
		}
	}
	v, ok := s.durable[key]
	return v, ok
}

// Put buffers a write of value, which it keeps: the caller must not modify
// value afterwards.
func (s *Storage) Put(key string, value []byte) {
	s.pending = append(s.pending, pendingWrite{key: key, value: value})
}

// Delete buffers the removal of key.
func (s *Storage) Delete(key string) {
	s.pending = append(s.pending, pendingWrite{key: key, delete: true})
}

// Sync makes every buffered write durable. It never fails in the simulator;
// the error is there so that Storage satisfies interfaces of real stores.
func (s *Storage) Sync() error {
	for _, p := range s.pending {
		if p.delete {
			delete(s.durable, p.key)
		} else {
			s.durable[p.key] = p.value
		}
	}
	s.pending = s.pending[:0]
	s.syncs++
	return nil
}

// Syncs returns how many times Sync was called, a proxy for write load.
func (s *Storage) Syncs() uint64 { return s.syncs }

// Keys returns the keys with the given prefix, sorted, synced or not.
func (s *Storage) Keys(prefix string) []string {
	seen := make(map[string]bool)
	var keys []string
	for k := range s.durable { // order does not matter: keys are sorted below
		if strings.HasPrefix(k, prefix) {
			seen[k] = true
		}
	}
	for _, p := range s.pending {
		if strings.HasPrefix(p.key, prefix) {
			seen[p.key] = !p.delete
		}
	}
	for k, live := range seen { // order does not matter: keys are sorted below
		if live {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// crash drops every write that was not synced.
func (s *Storage) crash() { s.pending = s.pending[:0] }
