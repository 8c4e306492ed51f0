package leasetest

import (
	"fmt"
	"slices"
)

// Store is an in-memory lease.Storage with crash semantics: Put and Delete
// are visible at once but survive Crash only after Sync.
type Store struct {
	durable map[string][]byte
	pending []write
	// FailSync, if set, makes Sync return it and make nothing durable.
	FailSync error
}

type write struct {
	key    string
	value  []byte
	delete bool
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{durable: make(map[string][]byte)} }

// Get returns the latest value of key, synced or not.
func (s *Store) Get(key string) ([]byte, bool) {
	for i := len(s.pending) - 1; i >= 0; i-- {
		if w := s.pending[i]; w.key == key {
			return w.value, !w.delete
		}
	}
	v, ok := s.durable[key]
	return v, ok
}

// Put buffers a write of a copy of value.
func (s *Store) Put(key string, value []byte) {
	s.pending = append(s.pending, write{key: key, value: slices.Clone(value)})
}

// Delete buffers the removal of key.
func (s *Store) Delete(key string) { s.pending = append(s.pending, write{key: key, delete: true}) }

// Sync makes every buffered write durable, or returns FailSync.
func (s *Store) Sync() error {
	if s.FailSync != nil {
		return fmt.Errorf("leasetest: sync: %w", s.FailSync)
	}
	for _, w := range s.pending {
		if w.delete {
			delete(s.durable, w.key)
		} else {
			s.durable[w.key] = w.value
		}
	}
	s.pending = s.pending[:0]
	return nil
}

// Crash drops every write that was not synced.
func (s *Store) Crash() { s.pending = s.pending[:0] }

// Unsynced returns how many writes are buffered.
func (s *Store) Unsynced() int { return len(s.pending) }
