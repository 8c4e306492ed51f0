package etcdraft

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/leasesim/leasesim/lease"
)

// The member's durable keys: its hard state, its latest snapshot, the
// index of its last log entry, and one key per log entry after the
// snapshot.
const (
	keyHardState = "raft/hardstate"
	keySnapshot  = "raft/snapshot"
	keyLast      = "raft/last"
	keyEntry     = "raft/entry/"
)

// disk keeps a member's raft log in its durable storage, mirrored in a
// raft.MemoryStorage that the RawNode reads. Only synced writes survive a
// crash; the Ready contract is honoured by syncing before sending.
type disk struct {
	store lease.Storage
	ms    *raft.MemoryStorage
	first uint64 // the first index with an entry key (snapshot index + 1)
	last  uint64 // the last index with an entry key
}

// initialSnapshot is the cluster's bootstrap state: every member a voter,
// at index 1 of term 1, with an empty lessor. Every member starts from it
// on its first boot, so no configuration entry is ever proposed.
func initialSnapshot(n int) raftpb.Snapshot {
	voters := make([]uint64, n)
	for i := range voters {
		voters[i] = uint64(i + 1)
	}
	return raftpb.Snapshot{Metadata: raftpb.SnapshotMetadata{Index: 1, Term: 1,
		ConfState: raftpb.ConfState{Voters: voters}}}
}

// openDisk loads what the member synced before: its snapshot (or the
// bootstrap one), hard state and entries. fresh is true on the first boot.
func openDisk(store lease.Storage, members int) (d *disk, snap raftpb.Snapshot, fresh bool, err error) {
	d = &disk{store: store, ms: raft.NewMemoryStorage()}
	snap = initialSnapshot(members)
	if b, ok := store.Get(keySnapshot); ok {
		snap = raftpb.Snapshot{}
		if err := snap.Unmarshal(b); err != nil {
			return nil, snap, false, fmt.Errorf("read snapshot: %w", err)
		}
	}
	if err := d.ms.ApplySnapshot(snap); err != nil {
		return nil, snap, false, fmt.Errorf("load snapshot %d: %w", snap.Metadata.Index, err)
	}
	d.first, d.last = snap.Metadata.Index+1, snap.Metadata.Index
	b, ok := store.Get(keyHardState)
	fresh = !ok
	if ok {
		var hs raftpb.HardState
		if err := hs.Unmarshal(b); err != nil {
			return nil, snap, false, fmt.Errorf("read hard state: %w", err)
		}
		if err := d.ms.SetHardState(hs); err != nil {
			return nil, snap, false, fmt.Errorf("load hard state: %w", err)
		}
	}
	if b, ok := store.Get(keyLast); ok && len(b) == 8 {
		last := binary.BigEndian.Uint64(b)
		ents := make([]raftpb.Entry, 0, max(last, d.last)-d.last)
		for i := d.first; i <= last; i++ {
			b, ok := store.Get(entryKey(i))
			if !ok {
				return nil, snap, false, fmt.Errorf("entry %d of [%d, %d] is missing", i, d.first, last)
			}
			var e raftpb.Entry
			if err := e.Unmarshal(b); err != nil {
				return nil, snap, false, fmt.Errorf("read entry %d: %w", i, err)
			}
			ents = append(ents, e)
		}
		if err := d.ms.Append(ents); err != nil {
			return nil, snap, false, fmt.Errorf("load entries: %w", err)
		}
		d.last = max(d.last, last)
	}
	return d, snap, fresh, nil
}

func entryKey(i uint64) string { return keyEntry + strconv.FormatUint(i, 10) }

// save persists a Ready's snapshot, entries and hard state, and syncs if
// it wrote anything.
func (d *disk) save(rd *raft.Ready) error {
	if raft.IsEmptySnap(rd.Snapshot) && len(rd.Entries) == 0 && raft.IsEmptyHardState(rd.HardState) {
		return nil
	}
	if !raft.IsEmptySnap(rd.Snapshot) {
		if err := d.saveSnapshot(rd.Snapshot); err != nil {
			return err
		}
		if err := d.ms.ApplySnapshot(rd.Snapshot); err != nil {
			return fmt.Errorf("apply snapshot %d: %w", rd.Snapshot.Metadata.Index, err)
		}
	}
	if n := len(rd.Entries); n > 0 {
		newLast := rd.Entries[n-1].Index
		for i := range rd.Entries {
			b, err := rd.Entries[i].Marshal()
			if err != nil {
				return fmt.Errorf("encode entry %d: %w", rd.Entries[i].Index, err)
			}
			d.store.Put(entryKey(rd.Entries[i].Index), b)
		}
		for i := newLast + 1; i <= d.last; i++ { // a conflicting append truncates the tail
			d.store.Delete(entryKey(i))
		}
		d.last = newLast
		d.store.Put(keyLast, binary.BigEndian.AppendUint64(nil, d.last))
		if err := d.ms.Append(rd.Entries); err != nil {
			return fmt.Errorf("append entries: %w", err)
		}
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		b, err := rd.HardState.Marshal()
		if err != nil {
			return fmt.Errorf("encode hard state: %w", err)
		}
		d.store.Put(keyHardState, b)
		if err := d.ms.SetHardState(rd.HardState); err != nil {
			return fmt.Errorf("set hard state: %w", err)
		}
	}
	if err := d.store.Sync(); err != nil {
		return fmt.Errorf("sync raft log: %w", err)
	}
	return nil
}

// saveSnapshot stores snap and deletes the entry keys it covers.
func (d *disk) saveSnapshot(snap raftpb.Snapshot) error {
	b, err := snap.Marshal()
	if err != nil {
		return fmt.Errorf("encode snapshot %d: %w", snap.Metadata.Index, err)
	}
	d.store.Put(keySnapshot, b)
	idx := snap.Metadata.Index
	for i := d.first; i <= min(idx, d.last); i++ {
		d.store.Delete(entryKey(i))
	}
	d.first = idx + 1
	d.last = max(d.last, idx)
	d.store.Put(keyLast, binary.BigEndian.AppendUint64(nil, d.last))
	return nil
}

// compact takes a snapshot of the lessor at applied and drops the log
// before it but keep entries, so lagging followers can still catch up
// from the log.
func (d *disk) compact(applied uint64, cs raftpb.ConfState, data []byte, keep uint64) error {
	snap, err := d.ms.CreateSnapshot(applied, &cs, data)
	if err != nil {
		return fmt.Errorf("create snapshot at %d: %w", applied, err)
	}
	b, err := snap.Marshal()
	if err != nil {
		return fmt.Errorf("encode snapshot %d: %w", applied, err)
	}
	d.store.Put(keySnapshot, b)
	if applied > keep {
		upto := applied - keep
		if fi, _ := d.ms.FirstIndex(); upto >= fi {
			if err := d.ms.Compact(upto); err != nil {
				return fmt.Errorf("compact to %d: %w", upto, err)
			}
		}
	}
	// The snapshot covers every entry up to applied: a reboot starts from
	// it, so their keys go (the memory keeps the last few for followers).
	for i := d.first; i <= applied; i++ {
		d.store.Delete(entryKey(i))
	}
	d.first = applied + 1
	if err := d.store.Sync(); err != nil {
		return fmt.Errorf("sync snapshot %d: %w", applied, err)
	}
	return nil
}
