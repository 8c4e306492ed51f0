package etcdraft

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/raft/v3"
	"go.etcd.io/raft/v3/raftpb"

	"github.com/leasesim/leasesim/lease"
)

func TestCommandRoundTrip(t *testing.T) {
	for _, c := range []command{
		{kind: cmdGrant, client: "h1", id: 1<<32 | 7, ttl: 5 * time.Second},
		{kind: cmdCreate, client: "h2", id: 9, key: "lock", value: "h2", lease: 12},
		{kind: cmdRevoke, lease: 12},
		{kind: cmdCheckpoint, checkpoints: []checkpoint{{lease: 3, remaining: time.Second}, {lease: 4}}},
	} {
		got, err := decodeCommand(c.encode(nil))
		require.NoError(t, err)
		assert.Equal(t, c, got)
	}
	_, err := decodeCommand([]byte{byte(cmdCreate), 200})
	assert.ErrorIs(t, err, errShort)
}

func TestLessorApply(t *testing.T) {
	var l lessor
	g := l.apply(10, command{kind: cmdGrant, ttl: 5 * time.Second})
	require.Equal(t, int64(10), g.lease)
	c := l.apply(11, command{kind: cmdCreate, key: "lock", value: "h1", lease: 10})
	assert.True(t, c.ok)
	assert.Equal(t, int64(1), c.key.create)
	again := l.apply(12, command{kind: cmdCreate, key: "lock", value: "h2", lease: 10})
	assert.False(t, again.ok, "create of an existing key does not put")
	assert.Equal(t, int64(10), again.key.lease)
	missing := l.apply(13, command{kind: cmdCreate, key: "other", lease: 99})
	assert.Equal(t, ErrLeaseNotFound, missing.err)
	l.apply(14, command{kind: cmdCheckpoint, checkpoints: []checkpoint{{lease: 10, remaining: 2 * time.Second}}})
	assert.Equal(t, 2*time.Second, l.lease(10).remaining)
	restored, err := unmarshalLessor(l.marshal())
	require.NoError(t, err)
	assert.Equal(t, l.rev, restored.rev)
	assert.Equal(t, l.keys, restored.keys)
	assert.Equal(t, *l.lease(10), *restored.lease(10))
	assert.Equal(t, ErrNone, l.apply(15, command{kind: cmdRevoke, lease: 10}).err)
	assert.Empty(t, l.keys, "a revoke deletes the keys attached")
	assert.Equal(t, int64(2), l.rev, "and counts as one change")
	assert.Equal(t, ErrLeaseNotFound, l.apply(16, command{kind: cmdRevoke, lease: 10}).err)
}

// memStore is a lease.Storage that loses unsynced writes on crash.
type memStore struct{ synced, dirty map[string][]byte }

func newMemStore() *memStore {
	return &memStore{synced: map[string][]byte{}, dirty: map[string][]byte{}}
}
func (s *memStore) Get(k string) ([]byte, bool) {
	if v, ok := s.dirty[k]; ok {
		return v, v != nil
	}
	v, ok := s.synced[k]
	return v, ok
}
func (s *memStore) Put(k string, v []byte) { s.dirty[k] = v }
func (s *memStore) Delete(k string)        { s.dirty[k] = nil }
func (s *memStore) Sync() error {
	for k, v := range s.dirty { // order does not matter: a test store
		if v == nil {
			delete(s.synced, k)
		} else {
			s.synced[k] = v
		}
	}
	clear(s.dirty)
	return nil
}
func (s *memStore) crash() { clear(s.dirty) }

var _ lease.Storage = (*memStore)(nil)

// The durable log survives a reboot with what was synced, compaction
// drops the entries a snapshot covers, and a conflicting append truncates.
func TestDiskReboot(t *testing.T) {
	st := newMemStore()
	d, snap, fresh, err := openDisk(st, 3)
	require.NoError(t, err)
	assert.True(t, fresh)
	assert.Equal(t, uint64(1), snap.Metadata.Index)
	ents := func(term uint64, idx ...uint64) []raftpb.Entry {
		var out []raftpb.Entry
		for _, i := range idx {
			out = append(out, raftpb.Entry{Index: i, Term: term, Data: []byte{byte(i)}})
		}
		return out
	}
	require.NoError(t, d.save(&raft.Ready{Entries: ents(2, 2, 3, 4), HardState: raftpb.HardState{Term: 2, Commit: 3}}))
	require.NoError(t, d.save(&raft.Ready{Entries: ents(3, 4)})) // replaces 4
	st.Put(entryKey(9), []byte("unsynced"))
	st.crash()
	d2, _, fresh, err := openDisk(st, 3)
	require.NoError(t, err)
	assert.False(t, fresh)
	last, _ := d2.ms.LastIndex()
	assert.Equal(t, uint64(4), last)
	term, _ := d2.ms.Term(4)
	assert.Equal(t, uint64(3), term)
	require.NoError(t, d2.compact(3, raftpb.ConfState{Voters: []uint64{1, 2, 3}}, []byte("state"), 1))
	_, ok := st.Get(entryKey(2))
	assert.False(t, ok, "compacted entries are deleted")
	d3, snap, _, err := openDisk(st, 3)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), snap.Metadata.Index)
	assert.Equal(t, []byte("state"), snap.Data)
	last, _ = d3.ms.LastIndex()
	assert.Equal(t, uint64(4), last)
}

func TestMemberAddrs(t *testing.T) {
	addrs := lease.MemberAddrs("grantor", 3)
	assert.Equal(t, []lease.Addr{"grantor", "grantor2", "grantor3"}, addrs)
	for i, a := range addrs {
		base, idx, ok := lease.ParseMember(a, 3)
		require.True(t, ok)
		assert.Equal(t, lease.Addr("grantor"), base)
		assert.Equal(t, i, idx)
	}
	for _, bad := range []lease.Addr{"grantor4", "grantor1", "grantor02", "7"} {
		_, _, ok := lease.ParseMember(bad, 3)
		assert.False(t, ok, bad)
	}
	assert.Equal(t, []lease.Addr{"grantor"}, lease.MemberAddrs("grantor", 0))
}
