package hraft

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/hashicorp/raft"

	"github.com/leasesim/leasesim/gohost"
)

// The storage keys of the one snapshot a member keeps.
const (
	snapMetaKey = "snapshot/meta"
	snapDataKey = "snapshot/data"
)

// SnapshotStore is raft's SnapshotStore over a node's durable storage: it
// keeps the latest snapshot only (raft's FileSnapshotStore with retain 1),
// written when the sink closes, data before metadata, so a crash during a
// snapshot leaves the previous one.
type SnapshotStore struct {
	ctx context.Context
	st  *gohost.Storage
}

// NewSnapshotStore returns the snapshot store over st for the life whose
// context is ctx.
func NewSnapshotStore(ctx context.Context, st *gohost.Storage) *SnapshotStore {
	return &SnapshotStore{ctx: ctx, st: st}
}

// Create begins a snapshot at index and term.
func (s *SnapshotStore) Create(version raft.SnapshotVersion, index, term uint64, configuration raft.Configuration,
	configurationIndex uint64, _ raft.Transport) (raft.SnapshotSink, error) {
	if s.ctx.Err() != nil {
		return nil, errDead
	}
	meta := raft.SnapshotMeta{Version: version, ID: fmt.Sprintf("%d-%d", term, index), Index: index, Term: term,
		Configuration: configuration, ConfigurationIndex: configurationIndex}
	return &snapshotSink{store: s, meta: meta}, nil
}

// List returns the stored snapshot, if any.
func (s *SnapshotStore) List() ([]*raft.SnapshotMeta, error) {
	if s.ctx.Err() != nil {
		return nil, errDead
	}
	meta, ok, err := s.meta()
	if err != nil || !ok {
		return nil, err
	}
	return []*raft.SnapshotMeta{meta}, nil
}

// Open returns the snapshot id and its data.
func (s *SnapshotStore) Open(id string) (*raft.SnapshotMeta, io.ReadCloser, error) {
	if s.ctx.Err() != nil {
		return nil, nil, errDead
	}
	meta, ok, err := s.meta()
	if err != nil {
		return nil, nil, err
	}
	if !ok || meta.ID != id {
		return nil, nil, fmt.Errorf("hraft: no snapshot %q", id)
	}
	data, _ := s.st.Get(snapDataKey)
	return meta, io.NopCloser(bytes.NewReader(data)), nil
}

// meta reads the stored snapshot's metadata.
func (s *SnapshotStore) meta() (*raft.SnapshotMeta, bool, error) {
	b, ok := s.st.Get(snapMetaKey)
	if !ok {
		return nil, false, nil
	}
	var m raft.SnapshotMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, false, fmt.Errorf("hraft: snapshot metadata: %w", err)
	}
	return &m, true, nil
}

// snapshotSink buffers a snapshot until Close stores it.
type snapshotSink struct {
	store *SnapshotStore
	meta  raft.SnapshotMeta
	buf   bytes.Buffer
	done  bool
}

func (k *snapshotSink) Write(p []byte) (int, error) { return k.buf.Write(p) }

// ID names the snapshot.
func (k *snapshotSink) ID() string { return k.meta.ID }

// Cancel drops the snapshot.
func (k *snapshotSink) Cancel() error {
	k.done = true
	return nil
}

// Close stores the snapshot, data first.
func (k *snapshotSink) Close() error {
	if k.done {
		return nil
	}
	k.done = true
	if k.store.ctx.Err() != nil {
		return errDead
	}
	k.meta.Size = int64(k.buf.Len())
	b, err := json.Marshal(&k.meta)
	if err != nil {
		return fmt.Errorf("hraft: snapshot metadata: %w", err)
	}
	k.store.st.Put(snapDataKey, k.buf.Bytes())
	k.store.st.Put(snapMetaKey, b)
	return nil
}
