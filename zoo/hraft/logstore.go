package hraft

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/leasesim/leasesim/gohost"
)

// errDead is what the stores return once the life that opened them has
// ended: a crashed process writes nothing more to its disk.
var errDead = errors.New("hraft: the node's life has ended")

// The key prefixes of a member's durable storage.
const (
	logPrefix    = "log/"
	stablePrefix = "stable/"
)

// DiskStore is raft's LogStore and StableStore over a node's durable
// storage (gohost.Storage): every entry and every stable value is one key,
// durable when the call returns, as a log store that fsyncs each write
// (raft-boltdb with NoSync off). It survives the node's crashes and keeps
// nothing in memory that the storage does not hold, except the first and
// last index, which it reads back from the storage's keys when it opens.
// Once ctx ends (the life crashed or the run ended) every call fails, so
// a crashed life's goroutines cannot write to the disk of the next.
type DiskStore struct {
	ctx context.Context
	st  *gohost.Storage
	// stall is called before each write of log entries: the failpoint a
	// schedule arms to stall the disk (nil: none).
	stall func()

	mu          sync.Mutex
	first, last uint64
}

// OpenDiskStore opens the store over st for the life whose context is ctx.
func OpenDiskStore(ctx context.Context, st *gohost.Storage, stall func()) (*DiskStore, error) {
	s := &DiskStore{ctx: ctx, st: st, stall: stall}
	for _, k := range st.Keys() {
		rest, ok := strings.CutPrefix(k, logPrefix)
		if !ok {
			continue
		}
		i, err := strconv.ParseUint(rest, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("hraft: log key %q: %w", k, err)
		}
		if s.first == 0 || i < s.first {
			s.first = i
		}
		s.last = max(s.last, i)
	}
	return s, nil
}

// logKey is the storage key of the entry at index (zero-padded, so keys
// sort by index).
func logKey(index uint64) string { return fmt.Sprintf("%s%020d", logPrefix, index) }

// live fails once the life has ended.
func (s *DiskStore) live() error {
	if s.ctx.Err() != nil {
		return errDead
	}
	return nil
}

// FirstIndex returns the first index written, 0 for none.
func (s *DiskStore) FirstIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.first, s.live()
}

// LastIndex returns the last index written, 0 for none.
func (s *DiskStore) LastIndex() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.live()
}

// GetLog reads the entry at index into log (raft.ErrLogNotFound if none).
func (s *DiskStore) GetLog(index uint64, log *raft.Log) error {
	if err := s.live(); err != nil {
		return err
	}
	b, ok := s.st.Get(logKey(index))
	if !ok {
		return raft.ErrLogNotFound
	}
	if err := json.Unmarshal(b, log); err != nil {
		return fmt.Errorf("hraft: log entry %d: %w", index, err)
	}
	return nil
}

// StoreLog stores one entry.
func (s *DiskStore) StoreLog(log *raft.Log) error { return s.StoreLogs([]*raft.Log{log}) }

// StoreLogs stores entries, each durable before the call returns.
func (s *DiskStore) StoreLogs(logs []*raft.Log) error {
	if s.stall != nil {
		s.stall()
	}
	if err := s.live(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range logs {
		b, err := json.Marshal(l)
		if err != nil {
			return fmt.Errorf("hraft: log entry %d: %w", l.Index, err)
		}
		s.st.Put(logKey(l.Index), b)
		if s.first == 0 || l.Index < s.first {
			s.first = l.Index
		}
		s.last = max(s.last, l.Index)
	}
	return nil
}

// DeleteRange deletes the entries from lo to hi, inclusive.
func (s *DiskStore) DeleteRange(lo, hi uint64) error {
	if err := s.live(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := max(lo, s.first); i <= hi && i <= s.last; i++ {
		s.st.Delete(logKey(i))
	}
	if lo <= s.first {
		s.first = hi + 1
	}
	if hi >= s.last {
		s.last = lo - 1
	}
	if s.first > s.last || s.last == 0 {
		s.first, s.last = 0, 0
	}
	return nil
}

// Set stores a stable value.
func (s *DiskStore) Set(key, val []byte) error {
	if err := s.live(); err != nil {
		return err
	}
	s.st.Put(stablePrefix+string(key), val)
	return nil
}

// Get returns a stable value, or an empty slice when there is none.
func (s *DiskStore) Get(key []byte) ([]byte, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	b, _ := s.st.Get(stablePrefix + string(key))
	return b, nil
}

// SetUint64 stores a stable number.
func (s *DiskStore) SetUint64(key []byte, val uint64) error {
	return s.Set(key, binary.BigEndian.AppendUint64(nil, val))
}

// GetUint64 returns a stable number, or 0 when there is none.
func (s *DiskStore) GetUint64(key []byte) (uint64, error) {
	b, err := s.Get(key)
	if err != nil || len(b) != 8 {
		return 0, err
	}
	return binary.BigEndian.Uint64(b), nil
}
