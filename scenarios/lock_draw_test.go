package scenarios_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// drawSeeds is how many swarm seeds TestSwarmDrawsItsLockLoad runs.
const drawSeeds = 12

// The swarm's seeds draw their holders' paths: over a dozen seeds some
// cover several keys and some one, some read back and some write blind;
// the same seed draws the same load; and the nemesis's draw does not
// depend on it.
func TestSwarmDrawsItsLockLoad(t *testing.T) {
	sc, err := scenarios.Lookup("swarm")
	require.NoError(t, err)
	require.True(t, sc.Lock.Drawn)
	assert.False(t, sc.Needs().Reads, "a drawn read-back is not a need: without reads the holders write blind")
	fixed := sc
	fixed.Lock = scenarios.LockLoad{Stagger: sc.Lock.Stagger, WriteEvery: sc.Lock.WriteEvery, Hold: sc.Lock.Hold, Idle: sc.Lock.Idle}
	seen := map[string]bool{}
	for seed := uint64(1); seed <= drawSeeds; seed++ {
		out, err := scenarios.Execute(sc, seed, scenarios.Options{})
		require.NoError(t, err)
		require.Empty(t, out.Violated(), "seed %d", seed)
		keys, reads := keysAndReads(out)
		assert.Subset(t, []string{"x", "k1", "k2", "k3", "k4"}, keys, "seed %d", seed)
		if len(keys) > 1 {
			seen["several keys"] = true
		} else {
			seen["one key"] = true
		}
		if reads > 0 {
			seen["read back"] = true
		} else {
			seen["blind"] = true
		}

		again, err := scenarios.Execute(sc, seed, scenarios.Options{})
		require.NoError(t, err)
		assert.Equal(t, out.Sim.TraceHash, again.Sim.TraceHash, "seed %d draws the same load", seed)
		single, err := scenarios.Execute(fixed, seed, scenarios.Options{})
		require.NoError(t, err)
		assert.Equal(t, single.Schedule, out.Schedule, "seed %d: the nemesis draws the same faults whatever the load", seed)
	}
	assert.Equal(t, map[string]bool{"several keys": true, "one key": true, "read back": true, "blind": true}, seen)
}

// An implementation without reads runs the swarm with one key written
// blind on every seed, exactly the run of that load, and is told so.
func TestSwarmWithoutReadsWritesOneKeyBlind(t *testing.T) {
	noReads := lease.Correct()
	noReads.Name = "no-reads"
	noReads.Capabilities.Reads = false
	sc, err := scenarios.Lookup("swarm")
	require.NoError(t, err)
	require.NoError(t, scenarios.Supports(sc, noReads))
	blind := sc
	blind.Lock.Keys, blind.Lock.ReadBack, blind.Lock.Drawn = 0, false, false
	assert.Equal(t, blind.Lock, sc.ForImpl(noReads).Lock)
	assert.Equal(t, sc.Lock, sc.ForImpl(lease.Correct()).Lock, "an implementation with reads draws")
	for seed := uint64(1); seed <= 3; seed++ {
		out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: noReads})
		require.NoError(t, err)
		want, err := scenarios.Execute(blind, seed, scenarios.Options{Impl: noReads})
		require.NoError(t, err)
		assert.Equal(t, want.Sim.TraceHash, out.Sim.TraceHash, "seed %d", seed)
		keys, reads := keysAndReads(out)
		assert.Equal(t, []string{"x"}, keys, "seed %d", seed)
		assert.Zero(t, reads, "seed %d", seed)
		require.Len(t, out.Adapted, 1)
		assert.Contains(t, out.Adapted[0], "one key blind on every seed")
		assert.Contains(t, out.Adapted[0], "no-reads does not declare reads")
	}
}

// keysAndReads returns the keys the run's contending holders wrote to the
// lock's resource ("lock"), in first-written order, and how many reads
// they made; the workers' writes are their tasks'.
func keysAndReads(out *scenarios.Outcome) (keys []string, reads int) {
	for _, op := range out.History.AllOps() {
		if op.Input.Resource != "lock" {
			continue
		}
		switch op.Input.Kind {
		case lease.KindWrite.String():
			if op.Input.Key != "" && !slices.Contains(keys, op.Input.Key) {
				keys = append(keys, op.Input.Key)
			}
		case lease.KindRead.String():
			reads++
		}
	}
	return keys, reads
}
