package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// write sends a write of key=value under token to the fixture's store.
func (f *fixture) write(key string, token uint64, value string) lease.Message {
	return f.call("c", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Key: key,
		Token: token, Value: []byte(value)})
}

// read reads key back from the fixture's store.
func (f *fixture) read(key string) lease.Message {
	return f.call("c", resourceAddr, lease.Message{Kind: lease.KindRead, Resource: "r", Key: key})
}

func TestPerKeyFencingLetsAStaleHolderWriteAnotherKey(t *testing.T) {
	contrast(t, "per-key-fencing", func(t *testing.T, f *fixture, broken bool) {
		require.Equal(t, lease.CodeOK, f.write("k2", 1, "old").Err, "the first holder wrote k2")
		require.Equal(t, lease.CodeOK, f.write("k1", 2, "new").Err, "its successor wrote k1")
		stale := f.write("k2", 1, "stale")
		assert.Equal(t, lease.CodeFenced, f.write("k1", 1, "stale").Err,
			"a key the successor wrote fences the stale holder either way")
		assert.Equal(t, uint64(2), f.r.Highest("r"))
		if !broken {
			assert.Equal(t, lease.CodeFenced, stale.Err, "the lease's resource fences every key")
			assert.Equal(t, "old", string(f.read("k2").Value))
			return
		}
		assert.Equal(t, lease.CodeOK, stale.Err, "k2 was not written under token 2, so token 1 still writes it")
		assert.Equal(t, uint64(1), stale.Token, "the reply names the writer's own token")
		assert.Equal(t, "stale", string(f.read("k2").Value))
	})
}

// With one key per lease, per-key fencing is the correct store, across a
// restart too: the bug needs several keys under one lease.
func TestPerKeyFencingWithOneKeyIsCorrect(t *testing.T) {
	var got [2][]lease.ErrCode
	for i, impl := range []lease.Impl{lease.Correct(), mustLookup(t, "per-key-fencing")} {
		f := newFixture(t, impl)
		for _, token := range []uint64{1, 3, 2, 3} {
			got[i] = append(got[i], f.write("x", token, "v").Err)
		}
		f.w.Crash(resourceAddr)
		r, err := impl.NewResource(f.env(resourceAddr))
		require.NoError(t, err)
		f.r = r.(inspectableResource)
		f.w.Register(resourceAddr, r)
		for _, token := range []uint64{2, 4} {
			got[i] = append(got[i], f.write("x", token, "v").Err)
		}
	}
	assert.Equal(t, []lease.ErrCode{lease.CodeOK, lease.CodeOK, lease.CodeFenced, lease.CodeOK, lease.CodeFenced, lease.CodeOK},
		got[0])
	assert.Equal(t, got[0], got[1])
}
