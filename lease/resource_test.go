package lease_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestResourceFencing(t *testing.T) {
	tests := []struct {
		name    string
		tokens  []uint64
		want    []lease.ErrCode
		highest uint64
	}{
		{"increasing", []uint64{1, 2, 3}, []lease.ErrCode{lease.CodeOK, lease.CodeOK, lease.CodeOK}, 3},
		{"equal tokens are accepted", []uint64{2, 2}, []lease.ErrCode{lease.CodeOK, lease.CodeOK}, 2},
		{"stale token is fenced", []uint64{1, 3, 2}, []lease.ErrCode{lease.CodeOK, lease.CodeOK, lease.CodeFenced}, 3},
		{"first write may be any token", []uint64{9}, []lease.ErrCode{lease.CodeOK}, 9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, testConfig())
			for i, tok := range tt.tokens {
				r := f.call("h1", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Token: tok, Key: "k", Value: []byte{byte(i)}})
				assert.Equal(t, tt.want[i], r.Err, "write %d with token %d", i, tok)
			}
			assert.Equal(t, tt.highest, f.r.Highest("r"))
			assert.Zero(t, f.r.Highest("other"), "fencing is per resource")
		})
	}
}

func TestResourceReadAndDurability(t *testing.T) {
	f := newFixture(t, testConfig())
	require.Equal(t, lease.CodeOK, f.call("h1", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Token: 4, Key: "k", Value: []byte("v")}).Err)
	assert.Zero(t, f.w.Store(resourceAddr).Unsynced(), "accepted writes are durable before the reply")

	f.w.Crash(resourceAddr)
	r, err := lease.NewResource(f.env(resourceAddr))
	require.NoError(t, err)
	f.w.Register(resourceAddr, r)
	assert.Equal(t, uint64(4), r.(lease.FenceLookup).Highest("r"), "the highest token survives a crash")
	read := f.call("c9", resourceAddr, lease.Message{Kind: lease.KindRead, Resource: "r", Key: "k"})
	assert.Equal(t, []byte("v"), read.Value)
	assert.Equal(t, uint64(4), read.Token)
	assert.Equal(t, lease.CodeFenced, f.call("h1", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Token: 3, Key: "k"}).Err)

	// A token past the shared small encodings reads back as written.
	require.Equal(t, lease.CodeOK, f.call("h1", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Token: 1 << 40, Key: "k", Value: []byte("w")}).Err)
	read = f.call("c9", resourceAddr, lease.Message{Kind: lease.KindRead, Resource: "r", Key: "k"})
	assert.Equal(t, []byte("w"), read.Value)
	assert.Equal(t, uint64(1<<40), read.Token)
	assert.Equal(t, uint64(1<<40), r.(lease.FenceLookup).Highest("r"))
}

func TestResourceCountsUnfencedEffects(t *testing.T) {
	f := newFixture(t, testConfig())
	h := f.holder("h1")
	h.(lease.Effector).SideEffect("r", "email-42")
	h.(lease.Effector).SideEffect("r", "email-42")
	h.(lease.Effector).SideEffect("r", "email-43")
	f.w.Settle()
	assert.Equal(t, 2, f.r.Effects("r", "email-42"), "duplicates are counted, not rejected")
	assert.Equal(t, 1, f.r.Effects("r", "email-43"))
	assert.Zero(t, f.r.Effects("other", "email-42"))
}
