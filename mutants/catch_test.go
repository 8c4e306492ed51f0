package mutants

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// The catch test proves that the checkers bite: each mutant must make some
// property fail in some built-in scenario within a bounded number of seeds.
// By default it searches the scenarios the mutant's bug class points at,
// for a few seeds, and stops at the first catch. The acceptance sweep
// searches every scenario:
//
//	go test ./mutants -run TestMutantsAreCaught -args -mutants.sweep -mutants.seeds=300
var (
	catchSeeds = flag.Uint64("mutants.seeds", 20, "seeds per scenario the catch test may try for each mutant")
	catchSweep = flag.Bool("mutants.sweep", false,
		"search every built-in scenario, and report each scenario's first catching seed")
	// A mutant's history can be far from linearisable, and porcupine may
	// then search for long before it gives up (Unknown, which is never a
	// catch). The bound keeps the test's time bounded; every mutant has a
	// catching property other than P3.
	catchP3Steps = flag.Int64("mutants.p3steps", 100_000,
		"porcupine model steps per resource; a run that spends them is Unknown for P3")
)

// catchCase says how one mutant must be caught.
type catchCase struct {
	mutant string // name without the prefix
	// props are the properties whose violation is the catch; a violation
	// of another property is reported but is not what this mutant proves.
	props []string
	// scenarios are where the default search looks, in order.
	scenarios []string
}

var catchTable = []catchCase{
	{"unfenced-resource", []string{"P2"}, []string{"kleppmann-gc-pause"}},
	{"expiry-from-receipt", []string{"P1"}, []string{"partition-heal"}},
	{"no-drift-margin", []string{"P1"}, []string{"clock-drift"}},
	{"wall-clock-expiry", []string{"P1"}, []string{"clock-step"}},
	{"token-not-persisted", []string{"P2", "P3"}, []string{"grantor-restart"}},
	{"no-restart-grace", []string{"P1"}, []string{"grantor-restart"}},
	{"renew-after-expiry", []string{"P1", "P3"}, []string{"grantor-restart"}},
	{"silent-keepalive-death", []string{"P1"}, []string{"partition-heal"}},
	{"stale-release", []string{"P1", "P3"}, []string{"message-chaos", "thundering-herd"}},
	{"unfenced-checkpoint", []string{"P5"}, []string{"worker-crash-handoff"}},
	{"lost-checkpoint-on-restart", []string{"P5"}, []string{"grantor-restart"}},
	{"early-grantor-expiry", []string{"P1", "P3"}, []string{"clock-drift"}},
	{"per-key-fencing", []string{"P2", "P3"}, []string{"multi-key-read-back"}},
	{"read-sees-refused-write", []string{"P3"}, []string{"multi-key-read-back"}},
}

func TestCatchTableCoversEveryMutant(t *testing.T) {
	var names []string
	for _, c := range catchTable {
		names = append(names, Prefix+c.mutant)
		for _, sc := range c.scenarios {
			_, err := scenarios.Lookup(sc)
			require.NoError(t, err, c.mutant)
		}
	}
	require.Equal(t, Names(), names)
}

func TestMutantsAreCaught(t *testing.T) {
	if testing.Short() && !*catchSweep {
		t.Skip("runs simulations")
	}
	for _, c := range catchTable {
		t.Run(c.mutant, func(t *testing.T) {
			t.Parallel()
			m := mustLookup(t, c.mutant)
			if *catchSweep {
				sweep(t, m, c)
				return
			}
			first := hunt(t, m, c, lookupAll(t, c.scenarios), *catchSeeds)
			if first == nil {
				t.Fatalf("%s: no violation of %v in %v, seeds 1-%d", m.Name, c.props, c.scenarios, *catchSeeds)
			}
			t.Logf("%s", first)
		})
	}
}

// catch is one run in which a mutant made an expected property fail.
type catch struct {
	out    *scenarios.Outcome
	result checker.Result
	runs   int // runs the search needed, this one included
}

func (c *catch) String() string {
	detail := c.result.Summary
	if len(c.result.Violations) > 0 {
		detail = c.result.Violations[0].Detail
	}
	return fmt.Sprintf("%s caught by %s %s in %s seed %d after %d runs: %s\n  replay: %s",
		c.out.Impl, c.result.Property, c.result.Name, c.out.Scenario, c.out.Seed, c.runs, detail,
		c.out.ReplayCommand())
}

// hunt runs m over scs, seed-major (seed 1 of every scenario, then seed
// 2, …), and returns the first run that violates one of c.props, or nil.
func hunt(t *testing.T, m lease.Impl, c catchCase, scs []scenarios.Scenario, seeds uint64) *catch {
	runs := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, sc := range scs {
			runs++
			if r, out := violates(t, m, c, sc, seed); out != nil {
				return &catch{out: out, result: r, runs: runs}
			}
		}
	}
	return nil
}

// sweep is the acceptance search: every built-in scenario m can run (its
// catalogue: CatalogFor), seeds 1..N. It
// reports the first catch in seed-major order, as `simrun sweep --scenario
// all` meets it, and the first catch in every scenario.
func sweep(t *testing.T, m lease.Impl, c catchCase) {
	all := scenarios.CatalogFor(m)    // the replicated stores' stories need a store of several members
	first := make([]*catch, len(all)) // per scenario; nil: not caught
	var lines []string
	for i, sc := range all {
		first[i] = hunt(t, m, c, all[i:i+1], *catchSeeds)
		line := fmt.Sprintf("  %-22s not caught in seeds 1-%d", sc.Name, *catchSeeds)
		if f := first[i]; f != nil {
			line = fmt.Sprintf("  %-22s first caught at seed %d by %s %s", sc.Name, f.out.Seed, f.result.Property, f.result.Name)
		}
		lines = append(lines, line)
	}
	best := -1
	for i, f := range first {
		if f != nil && (best < 0 || f.out.Seed < first[best].out.Seed) {
			best = i
		}
	}
	if best < 0 {
		t.Fatalf("%s: not caught by %v in any scenario, seeds 1-%d\n%s", m.Name, c.props, *catchSeeds,
			strings.Join(lines, "\n"))
	}
	f := first[best]
	f.runs = int(f.out.Seed-1)*len(all) + best + 1
	t.Logf("first catch, seed-major over all %d scenarios: %s\n%s", len(all), f, strings.Join(lines, "\n"))
}

// violates runs m on (sc, seed) and returns the first expected property it
// violates, with the outcome; a nil outcome means no catch. A catch must
// also be something the correct implementation does not do on the same
// run: otherwise it is a checker's false alarm, and the test fails.
func violates(t *testing.T, m lease.Impl, c catchCase, sc scenarios.Scenario, seed uint64) (checker.Result, *scenarios.Outcome) {
	t.Helper()
	check := checker.Options{LinearizabilitySteps: *catchP3Steps}
	out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: m, Check: check})
	require.NoError(t, err, "%s on %s seed %d", m.Name, sc.Name, seed)
	for _, r := range out.Violated() {
		if !slices.Contains(c.props, r.Property) {
			t.Logf("%s on %s seed %d also violates %s: %s", m.Name, sc.Name, seed, r.Property, r.Summary)
			continue
		}
		correct, err := scenarios.Execute(sc, seed, scenarios.Options{Check: check})
		require.NoError(t, err)
		for _, cr := range correct.Violated() {
			require.NotEqual(t, r.Property, cr.Property,
				"the correct implementation violates %s on %s seed %d too: a checker bug, not a catch: %s",
				cr.Property, sc.Name, seed, cr.Summary)
		}
		return r, out
	}
	return checker.Result{}, nil
}

// lookupAll returns the named built-in scenarios.
func lookupAll(t *testing.T, names []string) []scenarios.Scenario {
	t.Helper()
	out := make([]scenarios.Scenario, len(names))
	for i, name := range names {
		sc, err := scenarios.Lookup(name)
		require.NoError(t, err)
		out[i] = sc
	}
	return out
}
