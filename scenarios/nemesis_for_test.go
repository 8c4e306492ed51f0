package scenarios

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// NemesisFor is the nemesis Execute draws from, filled in; a scripted
// story without one gets the swarm's, aimed at its own nodes.
func TestNemesisFor(t *testing.T) {
	swarm := Swarm()
	nem := swarm.NemesisFor(lease.Impl{})
	require.NoError(t, nem.Validate())
	assert.Equal(t, swarm.HealAt, nem.Phase, "faults stop at the heal phase")
	assert.ElementsMatch(t, swarm.Nodes(), nem.Targets)
	assert.Subset(t, nem.Failpoints, Triggers(), "the event triggers are drawable for every implementation")
	assert.Equal(t, swarm.nemesis(swarm.NodesFor(lease.Correct())), nem, "the same nemesis Execute draws from")

	story := KleppmannGCPause()
	require.Nil(t, story.Nemesis)
	lent := story.NemesisFor(lease.Correct())
	require.NoError(t, lent.Validate())
	assert.InDelta(t, swarmFaultsPerMinute, lent.FaultsPerMinute, 0)
	assert.ElementsMatch(t, story.Nodes(), lent.Targets, "aimed at the story's own nodes")
	assert.Equal(t, story.HealAt, lent.Draw(rand.New(rand.NewPCG(1, 2))).HealAt)
	assert.Nil(t, story.Nemesis, "the scenario itself is left unchanged")
}
