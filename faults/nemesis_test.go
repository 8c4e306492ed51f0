package faults

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sim"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// rich is a nemesis with every kind in its pool.
func rich() Nemesis {
	return Nemesis{
		Targets: []string{"n1", "n2", "n3"}, Partitionable: []string{"n1", "n2", "n3", "n4", "n5"},
		FaultsPerMinute: 30, Phase: time.Minute,
		Boundaries: []time.Duration{2 * time.Second, 1980 * time.Millisecond, 2020 * time.Millisecond, 500 * time.Millisecond},
		Rho:        0.01, DriftBeyondRho: true,
		PauseMax: 5 * time.Second, DelayMax: time.Second, StepMax: 10 * time.Second,
		Failpoints: []string{"before-write"},
	}
}

func TestNemesisDrawsValidSchedulesThatEndWithTheHealPhase(t *testing.T) {
	draws, events := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		n := genNemesis().Draw(t, "nemesis")
		require.NoError(t, n.Validate())
		s := n.Draw(seeded(rapid.Uint64().Draw(t, "seed")))
		draws, events = draws+1, events+len(s.Events)
		require.NoError(t, s.Validate(n.nodes()), "%s", s)
		assert.Equal(t, n.Phase, s.HealAt, "the heal phase ends the fault phase")
		for i, e := range s.Events {
			assert.Less(t, e.At, s.HealAt, "event %d acts before the heal phase", i)
		}
		assert.True(t, slices.IsSortedFunc(s.Events, func(a, b Event) int { return cmp.Compare(a.At, b.At) }))
		assert.Equal(t, s, roundTrip(t, s), "a drawn schedule round-trips through JSON")
	})
	assert.Greater(t, events, 5*draws, "the property saw busy schedules, not just empty ones")
}

func TestNemesisNoFaultActsAfterTheHealPhase(t *testing.T) {
	faults := 0
	rapid.Check(t, func(t *rapid.T) {
		n := genNemesis().Draw(t, "nemesis")
		n.Phase = min(n.Phase, 20*time.Second) // keep the runs short
		s := n.Draw(seeded(rapid.Uint64().Draw(t, "seed")))
		c := newCluster(rapid.Uint64().Draw(t, "world seed"), testNodes...)
		require.NoError(t, s.Apply(c.w))
		c.runUntil(s.HealAt + 30*time.Second) // past every pause the heal phase cut short
		faults += len(c.w.Faults())
		for _, rec := range c.w.Faults() {
			assert.LessOrEqual(t, rec.At, sim.Time(s.HealAt), "%v %s %s acted after the heal phase", rec.At, rec.Kind, rec.Node)
		}
		for _, node := range c.w.Nodes() {
			assert.Equal(t, sim.Up, node.State(), "%s runs after the heal phase", node.Name())
			assert.Zero(t, node.DriftPPB())
		}
	})
	// rapid draws differ per run; about 900 to 2,000 faults act over 100
	// checks, so 300 only says that the property was not vacuous.
	assert.Greater(t, faults, 300, "the property saw faults act")
}

func TestNemesisSameSeedSameSchedule(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := genNemesis().Draw(t, "nemesis")
		seed := rapid.Uint64().Draw(t, "seed")
		assert.Equal(t, n.Draw(seeded(seed)), n.Draw(seeded(seed)))
	})
}

func TestNemesisDifferentSeedsDiffer(t *testing.T) {
	n := rich()
	seen := map[string]uint64{}
	empty := 0
	for seed := range uint64(300) {
		s := n.Draw(seeded(seed))
		if len(s.Events) == 0 {
			empty++ // the fault count is drawn, and may be zero
			continue
		}
		key := s.String()
		if prev, dup := seen[key]; dup {
			t.Fatalf("seeds %d and %d drew the same schedule:\n%s", prev, seed, key)
		}
		seen[key] = seed
	}
	assert.Less(t, empty, 10, "schedules without faults")
}

func TestNemesisDrawDoesNotDependOnPoolOrderOrChangeItsConfig(t *testing.T) {
	n := rich()
	n.Kinds = []Kind{KindPause, KindCrash, KindPartition}
	before := rich()
	before.Kinds = slices.Clone(n.Kinds)
	reversed := n
	reversed.Kinds = []Kind{KindPartition, KindCrash, KindPause}
	for seed := range uint64(20) {
		assert.Equal(t, n.Draw(seeded(seed)), reversed.Draw(seeded(seed)))
	}
	assert.Equal(t, before, n, "Draw leaves the nemesis alone")
}

// primaryKinds is the set of kinds a schedule starts faults with, as a
// bitmask over the catalogue.
func primaryKinds(s Schedule) (mask uint32, faults int) {
	for _, e := range s.Events {
		switch e.Kind {
		case KindHeal, KindLinkReset, KindRestart:
			continue
		case KindDrift:
			if e.Drift == 0 {
				continue
			}
		}
		mask |= 1 << e.Kind.rank()
		faults++
	}
	return mask, faults
}

func TestNemesisSwarmVariesTheEnabledKinds(t *testing.T) {
	n := rich()
	n.FaultsPerMinute = 120
	pool := uint32(0)
	for _, k := range n.Pool() {
		pool |= 1 << k.rank()
	}
	sets := map[uint32]bool{}
	partial, counts := 0, map[int]bool{}
	for seed := range uint64(300) {
		s := n.Draw(seeded(seed))
		mask, faults := primaryKinds(s)
		sets[mask] = true
		counts[faults/10] = true
		if faults >= 40 && mask != pool {
			partial++ // with this many faults, a missing kind was switched off
		}
	}
	assert.GreaterOrEqual(t, len(sets), 50, "distinct sets of kinds")
	assert.GreaterOrEqual(t, partial, 50, "busy schedules that still leave kinds out")
	assert.GreaterOrEqual(t, len(counts), 5, "the intensity varies too")
}

func TestNemesisEdgeBiasedPauses(t *testing.T) {
	n := Nemesis{Targets: []string{"n1", "n2"}, Kinds: []Kind{KindPause}, FaultsPerMinute: 60, Phase: time.Minute,
		Boundaries: []time.Duration{2 * time.Second, 500 * time.Millisecond}, PauseMax: 5 * time.Second}
	near, total := 0, 0
	for seed := range uint64(200) {
		for _, e := range n.Draw(seeded(seed)).Events {
			total++
			for _, b := range n.Boundaries {
				if e.Duration >= b-b/20 && e.Duration <= b+b/20 {
					near++
					break
				}
			}
		}
	}
	require.Greater(t, total, 1000)
	// Uniform draws alone would put (0.2s + 0.05s) / 5s = 5% near a boundary.
	frac := float64(near) / float64(total)
	assert.Greater(t, frac, 0.4, "fraction of pauses within ±5%% of a boundary: %.3f", frac)
	assert.Less(t, frac, 0.7, "the rest stays spread out: %.3f", frac)
}

func TestNemesisDriftAroundRho(t *testing.T) {
	for _, beyond := range []bool{false, true} {
		n := Nemesis{Targets: []string{"n1"}, Kinds: []Kind{KindDrift}, FaultsPerMinute: 60, Phase: time.Minute,
			Rho: 0.001, DriftBeyondRho: beyond}
		atRho, over, total := 0, 0, 0
		for seed := range uint64(100) {
			for _, e := range n.Draw(seeded(seed)).Events {
				if e.Drift == 0 {
					continue // a drift reset, or an exact zero draw
				}
				total++
				if e.Drift == n.Rho || e.Drift == -n.Rho {
					atRho++
				}
				if e.Drift > n.Rho || e.Drift < -n.Rho {
					over++
				}
			}
		}
		require.Greater(t, total, 500)
		assert.Greater(t, float64(atRho)/float64(total), 0.3, "mass at ±rho (beyond=%v)", beyond)
		if beyond {
			assert.Greater(t, float64(over)/float64(total), 0.1, "some draws exceed rho")
		} else {
			assert.Zero(t, over, "drift stays within rho unless allowed")
		}
	}
}

func TestNemesisCrashesAreFollowedByRestarts(t *testing.T) {
	n := Nemesis{Targets: []string{"n1", "n2", "n3"}, Kinds: []Kind{KindCrash}, FaultsPerMinute: 20,
		Phase: time.Minute, WindowMax: 5 * time.Second}
	crashes, restarted := 0, 0
	for seed := range uint64(50) {
		s := n.Draw(seeded(seed))
		for i, e := range s.Events {
			if e.Kind != KindCrash {
				continue
			}
			crashes++
			next := slices.IndexFunc(s.Events[i+1:], func(f Event) bool { return f.Node == e.Node })
			if next < 0 {
				// Only a crash within WindowMax of the heal phase is left to it.
				assert.GreaterOrEqual(t, e.At, s.HealAt-n.WindowMax, "crash of %s at %v never restarted", e.Node, e.At)
				continue
			}
			assert.Equal(t, KindRestart, s.Events[i+1+next].Kind, "what follows the crash of %s at %v", e.Node, e.At)
			restarted++
		}
	}
	assert.Greater(t, crashes, 100)
	assert.Greater(t, restarted, crashes*8/10)
}

func TestNemesisValidateRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(n *Nemesis)
		want string
	}{
		{"no phase", func(n *Nemesis) { n.Phase = 0 }, "faults: Phase: must be in (0, 24h0m0s], got 0s"},
		{"negative intensity", func(n *Nemesis) { n.FaultsPerMinute = -1 }, "faults: FaultsPerMinute: must be in [0, 1000], got -1"},
		{"rho too large", func(n *Nemesis) { n.Rho = 0.5 }, "faults: Rho: must be in [0, 0.5), got 0.5"},
		{"negative pause bound", func(n *Nemesis) { n.PauseMax = -time.Second }, "faults: PauseMax: must be in [0, 24h0m0s], got -1s"},
		{"zero boundary", func(n *Nemesis) { n.Boundaries = []time.Duration{time.Second, 0} }, "faults: Boundaries[1]: must be in (0, 24h0m0s], got 0s"},
		{"duplicate target", func(n *Nemesis) { n.Targets = []string{"n1", "n1"} }, `faults: Targets[1]: "n1" is listed twice`},
		{"wildcard node", func(n *Nemesis) { n.Partitionable = []string{"*"} }, `faults: Partitionable[0]: invalid name "*"`},
		{"empty failpoint", func(n *Nemesis) { n.Failpoints = []string{""} }, `faults: Failpoints[0]: invalid name ""`},
		{"unknown kind", func(n *Nemesis) { n.Kinds = []Kind{"meteor"} }, `faults: Kinds[0]: meteor cannot be drawn: unknown kind "meteor"`},
		{"kind twice", func(n *Nemesis) { n.Kinds = []Kind{KindPause, KindPause} }, "faults: Kinds[1]: pause is in the pool twice"},
		{"restart in the pool", func(n *Nemesis) { n.Kinds = []Kind{KindRestart} },
			"faults: Kinds[0]: restart cannot be drawn: it is drawn only as the end of a partition, a link change or a crash"},
		{"pause without a bound", func(n *Nemesis) { n.Kinds = []Kind{KindPause}; n.PauseMax = 0 },
			"faults: Kinds[0]: pause cannot be drawn: it needs Targets and PauseMax"},
		{"bridge without three nodes", func(n *Nemesis) { n.Kinds = []Kind{KindBridge}; n.Partitionable = []string{"n1", "n2"} },
			"faults: Kinds[0]: bridge cannot be drawn: it needs three or more Partitionable nodes"},
		{"nothing to draw", func(n *Nemesis) { n.Targets, n.Partitionable = nil, nil },
			"faults: Kinds: no fault kind can be drawn: name Targets or Partitionable nodes and their bounds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := rich()
			tt.edit(&n)
			err := n.Validate()
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.ErrorIs(t, err, ErrInvalid)
			assert.Panics(t, func() { n.Draw(seeded(1)) }, "Draw refuses an invalid nemesis")
		})
	}
	require.NoError(t, rich().Validate())
}

func TestNemesisPoolDefaultsToWhatTheConfigAllows(t *testing.T) {
	n := Nemesis{Targets: []string{"n1"}, Phase: time.Minute, PauseMax: time.Second}
	assert.Equal(t, []Kind{KindPause, KindCrash}, n.Pool())
	var all []Kind
	for _, k := range Kinds() {
		if rich().lacks(k.Name) == "" {
			all = append(all, k.Name)
		}
	}
	assert.Equal(t, all, rich().Pool())
	assert.Len(t, all, 10, "every kind but heal, link-reset and restart")
}

func TestNemesisZeroIntensityDrawsOnlyTheHealPhase(t *testing.T) {
	n := rich()
	n.FaultsPerMinute = 0
	s := n.Draw(seeded(1))
	assert.Equal(t, Schedule{Version: Version, HealAt: time.Minute}, s)
	require.NoError(t, s.Validate(n.nodes()))
}

// Pool lists the kinds a nemesis draws: those Kinds names, or with Kinds
// empty every kind its other fields make drawable, never a kind drawn
// only as another's end.
func TestNemesisPool(t *testing.T) {
	for _, tt := range []struct {
		name string
		n    Nemesis
		want []Kind
	}{
		{"the kinds named", Nemesis{Targets: []string{"n1"}, Partitionable: []string{"n1", "n2"}, PauseMax: time.Second,
			Kinds: []Kind{KindPause, KindIsolate}}, []Kind{KindIsolate, KindPause}},
		{"every drawable kind", Nemesis{Targets: []string{"n1"}, PauseMax: time.Second}, []Kind{KindPause, KindCrash}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.ElementsMatch(t, tt.want, tt.n.Pool())
		})
	}
	assert.NotContains(t, rich().Pool(), KindRestart)
	assert.Contains(t, rich().Pool(), KindFailpoint)
}
