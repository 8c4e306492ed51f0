package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestReadSeesRefusedWrite(t *testing.T) {
	contrast(t, "read-sees-refused-write", func(t *testing.T, f *fixture, broken bool) {
		require.Equal(t, lease.CodeOK, f.write("k", 2, "new").Err)
		assert.Equal(t, lease.CodeFenced, f.write("k", 1, "stale").Err, "writes are fenced either way")
		assert.Equal(t, uint64(2), f.r.Highest("r"))
		read := f.read("k")
		if !broken {
			assert.Equal(t, "new", string(read.Value))
			assert.Equal(t, uint64(2), read.Token)
		} else {
			assert.Equal(t, "stale", string(read.Value), "the read sees the write the store refused")
			assert.Equal(t, uint64(1), read.Token)
		}
		require.Equal(t, lease.CodeOK, f.write("k", 2, "newer").Err)
		assert.Equal(t, "newer", string(f.read("k").Value), "an accepted write replaces what reads see")
	})
}

// Without reads the mutant is the correct store: the same replies to the
// same writes.
func TestReadSeesRefusedWriteAnswersWritesCorrectly(t *testing.T) {
	var got [2][]lease.Message
	for i, impl := range []lease.Impl{lease.Correct(), mustLookup(t, "read-sees-refused-write")} {
		f := newFixture(t, impl)
		for _, token := range []uint64{1, 3, 2, 3} {
			rep := f.write("x", token, "v")
			rep.ReqID = 0 // the fixture numbers requests per fixture
			got[i] = append(got[i], rep)
		}
	}
	assert.Equal(t, got[0], got[1])
}
