package sim

import (
	"slices"
	"strings"
)

// Storage is a node's durable key-value store. Writes are buffered: a Put or
// Delete is visible to Get at once but survives a crash only once Sync has
// made it durable, which models an unsynced write lost on crash.
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

// Get returns a copy of the latest value of key, synced or not. It is a
// copy so that a caller who modifies it cannot change what is durable
// without a Put and a Sync.
func (s *Storage) Get(key string) ([]byte, bool) {
	for i := len(s.pending) - 1; i >= 0; i-- {
		if p := s.pending[i]; p.key == key {
			return slices.Clone(p.value), !p.delete
		}
	}
	v, ok := s.durable[key]
	return slices.Clone(v), ok
}

// Put buffers a write of a copy of value.
func (s *Storage) Put(key string, value []byte) {
	s.pending = append(s.pending, pendingWrite{key: key, value: slices.Clone(value)})
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
