package realtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"

	"github.com/google/renameio/v2"
)

// MemStorage is a lease.Storage in memory. Sync does nothing: it survives a
// node restart within one process (pass the same MemStorage again), not a
// process crash. It is safe for concurrent use.
type MemStorage struct {
	mu sync.Mutex
	m  map[string][]byte
}

// NewMemStorage returns an empty MemStorage.
func NewMemStorage() *MemStorage { return &MemStorage{m: make(map[string][]byte)} }

// Get returns the value of key.
func (s *MemStorage) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok
}

// Put stores a copy of value.
func (s *MemStorage) Put(key string, value []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), value...)
}

// Delete removes key.
func (s *MemStorage) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
}

// Sync does nothing; memory is as durable as it gets.
func (s *MemStorage) Sync() error { return nil }

// FileStorage is a lease.Storage kept in one JSON file. Writes are buffered
// in memory; Sync writes the whole store to a temporary file, fsyncs it and
// renames it over the old one, so a crash leaves either the old or the new
// state. It suits the small state of a lease node. It is safe for
// concurrent use.
type FileStorage struct {
	path string
	mu   sync.Mutex
	m    map[string][]byte
}

// OpenFileStorage opens the store at path, creating it on the first Sync.
func OpenFileStorage(path string) (*FileStorage, error) {
	s := &FileStorage{path: path, m: make(map[string][]byte)}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open file storage: %w", err)
	}
	if err := json.Unmarshal(b, &s.m); err != nil {
		return nil, fmt.Errorf("open file storage %s: %w", path, err)
	}
	return s, nil
}

// Get returns the latest value of key, synced or not.
func (s *FileStorage) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	return v, ok
}

// Put buffers a write of a copy of value.
func (s *FileStorage) Put(key string, value []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = append([]byte(nil), value...)
}

// Delete buffers the removal of key.
func (s *FileStorage) Delete(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
}

// Sync makes every earlier Put and Delete durable.
func (s *FileStorage) Sync() error {
	s.mu.Lock()
	snapshot := maps.Clone(s.m)
	s.mu.Unlock()
	b, err := json.Marshal(snapshot)
	if err != nil {
		return fmt.Errorf("file storage sync: %w", err)
	}
	if err := writeFileAtomic(s.path, b); err != nil {
		return fmt.Errorf("file storage sync: %w", err)
	}
	return nil
}

// writeFileAtomic writes b to a temporary file next to path, fsyncs it and
// renames it to path (renameio), then fsyncs the directory, so that the
// rename itself survives a crash.
func writeFileAtomic(path string, b []byte) error {
	if err := renameio.WriteFile(path, b, 0o600); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
