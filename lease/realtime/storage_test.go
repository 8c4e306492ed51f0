package realtime_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/realtime"
)

func TestFileStorageDurability(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grantor.json")
	s, err := realtime.OpenFileStorage(path)
	require.NoError(t, err)
	s.Put("synced", []byte("1"))
	s.Put("deleted", []byte("x"))
	s.Delete("deleted")
	require.NoError(t, s.Sync())
	s.Put("unsynced", []byte("2"))
	v, ok := s.Get("unsynced")
	assert.True(t, ok, "unsynced writes are visible")
	assert.Equal(t, []byte("2"), v)

	reopened, err := realtime.OpenFileStorage(path) // as after a crash
	require.NoError(t, err)
	v, ok = reopened.Get("synced")
	assert.True(t, ok)
	assert.Equal(t, []byte("1"), v)
	_, ok = reopened.Get("unsynced")
	assert.False(t, ok, "a write without Sync is lost on a crash")
	_, ok = reopened.Get("deleted")
	assert.False(t, ok)

	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary files are left behind")
}

func TestFileStorageRejectsCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o600))
	_, err := realtime.OpenFileStorage(path)
	assert.ErrorContains(t, err, "bad.json")
}

func TestStoragesSatisfyLease(t *testing.T) {
	var _ lease.Storage = realtime.NewMemStorage()
	s := realtime.NewMemStorage()
	s.Put("k", []byte("v"))
	require.NoError(t, s.Sync())
	v, ok := s.Get("k")
	assert.True(t, ok)
	assert.Equal(t, []byte("v"), v)
	s.Delete("k")
	_, ok = s.Get("k")
	assert.False(t, ok)
}
