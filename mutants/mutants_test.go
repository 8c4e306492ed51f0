package mutants

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

func TestCatalogueNamesAreUniqueAndPrefixed(t *testing.T) {
	seen := make(map[string]bool)
	for _, m := range All() {
		assert.True(t, strings.HasPrefix(m.Name, Prefix), m.Name)
		assert.False(t, seen[m.Name], "duplicate %s", m.Name)
		seen[m.Name] = true
		assert.NotEmpty(t, m.Doc, m.Name)
		assert.NotNil(t, m.NewGrantor, m.Name)
		assert.NotNil(t, m.NewHolder, m.Name)
		assert.NotNil(t, m.NewResource, m.Name)
	}
	assert.Len(t, seen, 14)
	assert.Equal(t, len(All()), len(Names()))
}

func TestLookupFindsEveryMutantAndListsThemOnAMiss(t *testing.T) {
	for _, name := range Names() {
		m, err := Lookup(name)
		require.NoError(t, err)
		assert.Equal(t, name, m.Name)
	}
	_, err := Lookup("mutant/no-such-bug")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"mutant/no-such-bug"`)
	for _, name := range Names() {
		assert.Contains(t, err.Error(), name)
	}
	_, err = Lookup("unfenced-resource")
	assert.Error(t, err, "names carry the prefix")
}

// Every mutant boots where the correct implementation boots, and a plain
// acquire without faults still works: the bug needs a fault to show.
func TestEveryMutantBootsAndGrants(t *testing.T) {
	for _, m := range All() {
		t.Run(m.Name, func(t *testing.T) {
			f := newFixture(t, m) // boots the grantor and the resource
			h := f.holder("h1")
			h.Acquire("r", lease.AcquireOptions{})
			f.w.Settle()
			_, ok := h.Valid("r")
			assert.True(t, ok, "a plain acquire still works")
		})
	}
}

func TestMutantConstructorsRejectBadConfig(t *testing.T) {
	for _, m := range All() {
		f := newFixture(t, lease.Correct())
		_, err := m.NewGrantor(f.env("g2"), lease.Config{})
		assert.ErrorIs(t, err, lease.ErrInvalidConfig, m.Name)
		_, err = m.NewHolder(f.env("h2"), lease.Config{}, grantorAddr, resourceAddr)
		assert.ErrorIs(t, err, lease.ErrInvalidConfig, m.Name)
		_, err = m.NewResource(lease.Env{})
		assert.ErrorIs(t, err, lease.ErrInvalidConfig, m.Name)
	}
}

// Mutants stay deterministic: the same scenario and seed give the same
// trace, run after run, and the run reaches its end without hitting a
// limit.
func TestMutantsAreDeterministic(t *testing.T) {
	for _, c := range catchTable {
		m := mustLookup(t, c.mutant)
		sc, err := scenarios.Lookup(c.scenarios[0])
		require.NoError(t, err)
		opts := scenarios.Options{Impl: m, Check: checker.Options{Skip: true}}
		first, err := scenarios.Execute(sc, 7, opts)
		require.NoError(t, err)
		second, err := scenarios.Execute(sc, 7, opts)
		require.NoError(t, err)
		assert.NoError(t, first.Sim.Err, m.Name)
		assert.Equal(t, first.Sim.TraceHashString(), second.Sim.TraceHashString(), "%s on %s", m.Name, sc.Name)
		assert.Equal(t, first.Sim.Events, second.Sim.Events, m.Name)
	}
}
