package hraft

import (
	"context"
	"io"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
)

// TestDiskStoreSurvivesReopen: what one life stores, the next reads back;
// a life that ended stores nothing.
func TestDiskStoreSurvivesReopen(t *testing.T) {
	st := gohost.NewStorage()
	ctx, crash := context.WithCancel(context.Background())
	s, err := OpenDiskStore(ctx, st, nil)
	require.NoError(t, err)
	require.NoError(t, s.StoreLogs([]*raft.Log{{Index: 1, Term: 1, Data: []byte("a")}, {Index: 2, Term: 1, Data: []byte("b")},
		{Index: 3, Term: 2, Data: []byte("c")}}))
	require.NoError(t, s.SetUint64([]byte("CurrentTerm"), 2))
	require.NoError(t, s.Set([]byte("LastVoteCand"), []byte("raft2")))
	crash()
	assert.ErrorIs(t, s.StoreLog(&raft.Log{Index: 4}), errDead)

	s2, err := OpenDiskStore(context.Background(), st, nil)
	require.NoError(t, err)
	first, _ := s2.FirstIndex()
	last, _ := s2.LastIndex()
	assert.Equal(t, [2]uint64{1, 3}, [2]uint64{first, last})
	var l raft.Log
	require.NoError(t, s2.GetLog(3, &l))
	assert.Equal(t, "c", string(l.Data))
	term, _ := s2.GetUint64([]byte("CurrentTerm"))
	assert.Equal(t, uint64(2), term)
	v, _ := s2.Get([]byte("LastVoteCand"))
	assert.Equal(t, "raft2", string(v))
	assert.ErrorIs(t, s2.GetLog(4, &l), raft.ErrLogNotFound)
}

// TestDiskStoreDeleteRange: deleting a prefix or a suffix moves the first
// or last index; deleting everything empties the log.
func TestDiskStoreDeleteRange(t *testing.T) {
	tests := []struct {
		name        string
		lo, hi      uint64
		first, last uint64
	}{
		{"prefix (compaction)", 1, 3, 4, 5},
		{"suffix (conflict)", 4, 5, 1, 3},
		{"all", 1, 5, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := OpenDiskStore(context.Background(), gohost.NewStorage(), nil)
			require.NoError(t, err)
			for i := uint64(1); i <= 5; i++ {
				require.NoError(t, s.StoreLog(&raft.Log{Index: i, Term: 1}))
			}
			require.NoError(t, s.DeleteRange(tt.lo, tt.hi))
			first, _ := s.FirstIndex()
			last, _ := s.LastIndex()
			assert.Equal(t, [2]uint64{tt.first, tt.last}, [2]uint64{first, last})
		})
	}
}

// TestSnapshotStoreKeepsTheLatest: a closed snapshot is listed and opened
// with its data; a cancelled one leaves the previous.
func TestSnapshotStoreKeepsTheLatest(t *testing.T) {
	s := NewSnapshotStore(context.Background(), gohost.NewStorage())
	list, err := s.List()
	require.NoError(t, err)
	assert.Empty(t, list)
	sink, err := s.Create(raft.SnapshotVersionMax, 10, 2, raft.Configuration{}, 1, nil)
	require.NoError(t, err)
	_, _ = sink.Write([]byte("state"))
	require.NoError(t, sink.Close())
	sink2, err := s.Create(raft.SnapshotVersionMax, 20, 3, raft.Configuration{}, 1, nil)
	require.NoError(t, err)
	_, _ = sink2.Write([]byte("newer"))
	require.NoError(t, sink2.Cancel())
	list, err = s.List()
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, uint64(10), list[0].Index)
	meta, rc, err := s.Open(list[0].ID)
	require.NoError(t, err)
	b, _ := io.ReadAll(rc)
	assert.Equal(t, "state", string(b))
	assert.Equal(t, int64(5), meta.Size)
}
