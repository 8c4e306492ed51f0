package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// The storage mutants wrap the keys lease.NewGrantor writes. This checks
// the grantor really writes them: if it stopped, a storage mutant would
// quietly become the correct implementation.
func TestGrantorDurableKeysArePinned(t *testing.T) {
	f := newFixture(t, lease.Correct())
	grant := f.acquire("c1", "task")
	require.Equal(t, lease.CodeOK, grant.Err)
	ckpt := f.call("c1", grantorAddr, lease.Message{Kind: lease.KindCheckpoint, Resource: "task",
		Token: grant.Token, State: []byte("3")})
	require.Equal(t, lease.CodeOK, ckpt.Err)

	store := f.w.Store(grantorAddr)
	for _, key := range []string{lease.GrantorKeyBoot, lease.GrantorKeyTokenPrefix + "task", lease.GrantorKeyCheckpointPrefix + "task"} {
		_, ok := store.Get(key)
		assert.True(t, ok, "lease.NewGrantor no longer writes %q", key)
	}
}

func TestVolatileStoreForgetsOnlyItsKeysAcrossBoots(t *testing.T) {
	f := newFixture(t, lease.Correct())
	durable := f.w.Store("n")
	boot := func() lease.Storage { return newVolatileStore(durable, hasPrefix("v/")) }

	s := boot()
	s.Put("v/a", []byte("1"))
	s.Put("d/a", []byte("2"))
	require.NoError(t, s.Sync())
	v, ok := s.Get("v/a")
	require.True(t, ok)
	v[0] = 'x' // a caller changing a read value changes nothing stored
	v, _ = s.Get("v/a")
	assert.Equal(t, "1", string(v))
	s.Delete("v/a")
	_, ok = s.Get("v/a")
	assert.False(t, ok)
	s.Put("v/b", []byte("3"))
	_, ok = durable.Get("v/b")
	assert.False(t, ok, "volatile keys never reach the durable store")

	f.w.Crash("n")
	s = boot()
	_, ok = s.Get("v/b")
	assert.False(t, ok, "a new boot starts with no volatile keys")
	v, ok = s.Get("d/a")
	assert.True(t, ok, "durable keys survive")
	assert.Equal(t, "2", string(v))
}
