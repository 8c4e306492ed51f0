package nodelease_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/zoo/k8s/nodelease"
)

// TestMeasure runs every story of every impl (or the story LEASESIM_STORY
// names, of the impls LEASESIM_IMPLS lists, comma-separated) over the
// seeds LEASESIM_SEEDS names ("1-200"), each verified (run twice), and
// prints
// per story how many seeds P7, P8 and the premise held, were violated or
// unknown, how many were verified, the first violation's summary, and the
// lowest violating seed's shrunk schedule with its replay. It is skipped
// without LEASESIM_SEEDS:
//
//	LEASESIM_SEEDS=1-200 go test -run TestMeasure -v -timeout 60m ./nodelease
func TestMeasure(t *testing.T) {
	lo, hi := measureSeeds(t)
	story, impls := os.Getenv("LEASESIM_STORY"), os.Getenv("LEASESIM_IMPLS")
	for _, sc := range allScenarios() {
		if (story != "" && sc.Name != story) || (impls != "" && !slices.Contains(strings.Split(impls, ","), sc.impl)) {
			continue
		}
		counts := map[string]map[checker.Status]int{}
		var first uint64
		verified := 0
		var b strings.Builder
		var dead deadTime
		var gaps []time.Duration
		for seed := lo; seed <= hi; seed++ {
			out := executeOrFail(t, sc.Scenario, seed, scenarios.Options{T: t, Verify: true})
			if err := out.Goroutine.Err(); out.Goroutine.Level.Determinism == history.Verified && err == nil {
				verified++
			} else {
				fmt.Fprintf(&b, "  seed %d not verified and clean: %s: %v\n", seed, out.Goroutine.Level, err)
			}
			dead.add(out.History)
			if sc.Name == "node-connection-stalled" {
				before, after := nodelease.RenewalsAround(out.History, "node-1", history.Time(30*time.Second))
				gaps = append(gaps, min(after, out.History.End).Sub(before))
			}
			for _, c := range out.Checks {
				if counts[c.Property] == nil {
					counts[c.Property] = map[checker.Status]int{}
				}
				counts[c.Property][c.Status]++
				if c.Status == checker.Violated && first == 0 {
					first = seed
					fmt.Fprintf(&b, "  seed %d %s: %s\n", seed, c.Property, c.Summary)
				}
			}
		}
		fmt.Fprintf(&b, "%s %s: %d seeds, %d verified and clean\n", sc.impl, sc.Name, hi-lo+1, verified)
		fmt.Fprintf(&b, "  declared dead in %d runs, %v in all (to a revival or the run's end)\n", dead.runs, dead.total)
		if len(gaps) > 0 {
			fmt.Fprintf(&b, "  node-1's renewals around the stall: %v to %v apart (to the run's end if it never renewed again)\n",
				slices.Min(gaps), slices.Max(gaps))
		}
		for _, p := range []string{"P7", "P8", "premise"} {
			c := counts[p]
			fmt.Fprintf(&b, "  %-7s ok %d violated %d unknown %d n/a %d\n", p, c[checker.OK], c[checker.Violated],
				c[checker.Unknown], c[checker.NotApplicable])
		}
		if first != 0 {
			shrunk, err := scenarios.ShrinkSeed(sc.Scenario, first, scenarios.Options{T: t}, 100)
			if err != nil {
				fmt.Fprintf(&b, "  shrink seed %d: %v\n", first, err)
			} else {
				again := executeOrFail(t, sc.Scenario, first, scenarios.Options{T: t, Schedule: &shrunk.Schedule, Verify: true})
				fmt.Fprintf(&b, "  shrunk seed %d (%s): %d -> %d faults: %s; replay hash equal: %v, %s, %s %s\n", first,
					shrunk.Target.Property, len(shrunk.Original.Events), len(shrunk.Schedule.Events), shrunk.Schedule,
					again.Goroutine.Hash == shrunk.Hash, again.Goroutine.Level, shrunk.Target.Property,
					again.Verdict(shrunk.Target.Property))
			}
		}
		t.Log("\n" + b.String())
	}
}

// deadTime sums how long members were declared dead, over runs.
type deadTime struct {
	runs  int
	total time.Duration
}

// add adds one run's declarations of death, each lasting until the same
// detector declared the member alive again or the run ended.
func (d *deadTime) add(h *history.History) {
	since := map[[2]string]history.Time{} // detector, member -> declared dead at; looked up, never iterated
	some := false
	for _, dec := range h.Declarations {
		key := [2]string{dec.Detector, dec.Member}
		at, isDead := since[key]
		switch {
		case dec.Dead && !isDead:
			since[key], some = dec.At, true
		case !dec.Dead && isDead:
			d.total += dec.At.Sub(at)
			delete(since, key)
		}
	}
	for _, dec := range h.Declarations { // the ones still dead at the end, in declaration order
		key := [2]string{dec.Detector, dec.Member}
		if at, isDead := since[key]; isDead {
			d.total += h.End.Sub(at)
			delete(since, key)
		}
	}
	if some {
		d.runs++
	}
}

// implScenario is a story and the simrun --impl name that serves it.
type implScenario struct {
	impl string
	scenarios.Scenario
}

func allScenarios() []implScenario {
	var out []implScenario
	for _, sc := range nodelease.Scenarios() {
		out = append(out, implScenario{"k8s/nodelease", sc})
	}
	for _, sc := range nodelease.NoGraceCheckScenarios() {
		out = append(out, implScenario{"k8s/nodelease/no-grace-check", sc})
	}
	for _, sc := range nodelease.NoConnResetScenarios() {
		out = append(out, implScenario{"k8s/nodelease/no-conn-reset", sc})
	}
	for _, sc := range nodelease.DisableHTTP2Scenarios() {
		out = append(out, implScenario{"k8s/nodelease/disable-http2", sc})
	}
	return out
}

// measureSeeds reads the seeds LEASESIM_SEEDS names (FROM-TO), and skips
// the test without it.
func measureSeeds(t *testing.T) (lo, hi uint64) {
	t.Helper()
	spec := os.Getenv("LEASESIM_SEEDS")
	if spec == "" {
		t.Skip("set LEASESIM_SEEDS=1-200 to measure")
	}
	if _, err := fmt.Sscanf(spec, "%d-%d", &lo, &hi); err != nil || lo == 0 || hi < lo {
		t.Fatalf("LEASESIM_SEEDS=%q: want FROM-TO", spec)
	}
	return lo, hi
}
