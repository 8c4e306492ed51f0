package mutants

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/lease"
)

func TestUnfencedResourceAcceptsAStaleToken(t *testing.T) {
	contrast(t, "unfenced-resource", func(t *testing.T, f *fixture, broken bool) {
		write := func(token uint64, value string) lease.Message {
			return f.call("c", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Key: "x",
				Token: token, Value: []byte(value)})
		}
		assert.Equal(t, lease.CodeOK, write(2, "new").Err)
		stale := write(1, "stale")
		read := f.call("c", resourceAddr, lease.Message{Kind: lease.KindRead, Resource: "r", Key: "x"})

		assert.Equal(t, uint64(2), f.r.Highest("r"), "the highest accepted token never goes down")
		if !broken {
			assert.Equal(t, lease.CodeFenced, stale.Err)
			assert.Equal(t, "new", string(read.Value))
			return
		}
		assert.Equal(t, lease.CodeOK, stale.Err, "the stale write is accepted")
		assert.Equal(t, uint64(1), stale.Token, "the reply names the writer's own token")
		assert.Equal(t, "stale", string(read.Value), "the stale write overwrote the newer one")
	})
}

func TestUnfencedResourceKeepsInOrderWritesAndEffects(t *testing.T) {
	f := newFixture(t, mustLookup(t, "unfenced-resource"))
	for token := uint64(1); token <= 3; token++ {
		rep := f.call("c", resourceAddr, lease.Message{Kind: lease.KindWrite, Resource: "r", Key: "x", Token: token})
		assert.Equal(t, lease.CodeOK, rep.Err)
		assert.Equal(t, token, rep.Token)
	}
	f.call("c", resourceAddr, lease.Message{Kind: lease.KindEffect, Resource: "r", Key: "mail"})
	f.call("c", resourceAddr, lease.Message{Kind: lease.KindEffect, Resource: "r", Key: "mail"})
	assert.Equal(t, uint64(3), f.r.Highest("r"))
	assert.Equal(t, 2, f.r.Effects("r", "mail"))
}
