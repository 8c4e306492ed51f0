package k8s_test

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// TestMeasure runs every scenario over the seeds LEASESIM_SEEDS names
// ("1-200"), each verified (run twice), and prints per scenario and
// property how many seeds held, were violated or unknown, the first
// violating seed, the lowest violating seed's shrunk schedule, and every run that was not
// verified or not clean. It is skipped without LEASESIM_SEEDS; RESULTS.md
// was written from its output:
//
//	LEASESIM_SEEDS=1-200 go test -run TestMeasure -v -timeout 60m .
func TestMeasure(t *testing.T) {
	lo, hi := measureSeeds(t)
	props := []string{"P1", "P2", "P3", "P4", "P5", "P6", "premise"}
	for _, sc := range allScenarios() {
		counts := map[string]map[checker.Status]int{}
		first := map[string]uint64{}
		verified, unclean := 0, []string{}
		for seed := lo; seed <= hi; seed++ {
			out := executeOrFail(t, sc.Scenario, seed, scenarios.Options{T: t, Verify: true})
			if out.Goroutine.Level.Determinism == history.Verified {
				verified++
			}
			if err := out.Goroutine.Err(); err != nil {
				unclean = append(unclean, fmt.Sprintf("seed %d: %v", seed, err))
			}
			for _, c := range out.Checks {
				if counts[c.Property] == nil {
					counts[c.Property] = map[checker.Status]int{}
				}
				counts[c.Property][c.Status]++
				if c.Status == checker.Violated && first[c.Property] == 0 {
					first[c.Property] = seed
					t.Logf("%s %s seed %d %s: %s", sc.impl, sc.Name, seed, c.Property, c.Summary)
				}
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d seeds, %d verified\n", sc.impl+" "+sc.Name, hi-lo+1, verified)
		for _, p := range props {
			c := counts[p]
			fmt.Fprintf(&b, "  %-7s ok %d violated %d unknown %d n/a %d", p, c[checker.OK], c[checker.Violated], c[checker.Unknown], c[checker.NotApplicable])
			if s := first[p]; s != 0 {
				fmt.Fprintf(&b, " (first violation: seed %d)", s)
			}
			b.WriteString("\n")
		}
		sort.Strings(unclean)
		for _, u := range unclean {
			fmt.Fprintf(&b, "  NOT CLEAN %s\n", u)
		}
		if s := firstViolation(first); s != 0 {
			shrunk, err := scenarios.ShrinkSeed(sc.Scenario, s, scenarios.Options{T: t}, 100)
			if err != nil {
				fmt.Fprintf(&b, "  shrink seed %d: %v\n", s, err)
			} else {
				again := executeOrFail(t, sc.Scenario, s, scenarios.Options{T: t, Schedule: &shrunk.Schedule, Verify: true})
				fmt.Fprintf(&b, "  shrunk seed %d (%s): %d -> %d faults: %s; replay hash %x == %x: %v, %s, %s %s\n", s,
					shrunk.Target.Property, len(shrunk.Original.Events), len(shrunk.Schedule.Events), shrunk.Schedule,
					again.Goroutine.Hash, shrunk.Hash, again.Goroutine.Hash == shrunk.Hash, again.Goroutine.Level,
					shrunk.Target.Property, again.Verdict(shrunk.Target.Property))
			}
		}
		t.Log("\n" + b.String())
	}
}

// TestMeasureDefaultTiming runs leader-cut-off's story with client-go's
// default timing (RetryPeriod 2 s, RenewDeadline exactly five of them)
// and rest.Config.Timeout = RenewDeadline/2, as NewFromKubeconfig sets,
// over the seeds LEASESIM_SEEDS names, each verified, and prints how many
// diverged: why the scenarios run with ScenarioTiming (doc.go).
func TestMeasureDefaultTiming(t *testing.T) {
	lo, hi := measureSeeds(t)
	timing := k8s.DefaultTiming
	var cands []k8s.NamedCandidate
	for i, name := range []string{"c1", "c2", "c3"} {
		cands = append(cands, k8s.NamedCandidate{Name: name, CandidateOptions: k8s.CandidateOptions{Timing: timing,
			RequestTimeout: timing.RenewDeadline / 2, Start: time.Duration(i) * time.Second,
			Store: k8s.StoreAddr, WriteEvery: time.Second}})
	}
	cut := k8s.LeaderCutOff(false)
	setup := k8s.Setup{Candidates: cands, Timing: timing, Duration: cut.Goroutines(1).Duration, Schedule: cut.Goroutines(1).Schedule}
	sc := scenarios.Scenario{Name: "leader-cut-off/default-timing", Goroutines: setup.Config}
	diverged := 0
	for seed := lo; seed <= hi; seed++ {
		out := executeOrFail(t, sc, seed, scenarios.Options{T: t, Verify: true})
		if out.Goroutine.Level.Determinism != history.Verified {
			diverged++
			if diverged == 1 {
				t.Logf("seed %d: %s", seed, out.Goroutine.Level)
			}
		}
	}
	t.Logf("leader-cut-off with DefaultTiming and a %v request timeout: %d of %d seeds diverged",
		timing.RenewDeadline/2, diverged, hi-lo+1)
}

// implScenario is a scenario and the simrun --impl name that serves it.
type implScenario struct {
	impl string
	scenarios.Scenario
}

// allScenarios are both configurations' scenarios, fenced first.
func allScenarios() []implScenario {
	var out []implScenario
	for _, sc := range k8s.Scenarios() {
		out = append(out, implScenario{"k8s/leaderelection", sc})
	}
	for _, sc := range k8s.UnfencedScenarios() {
		out = append(out, implScenario{"k8s/leaderelection/unfenced", sc})
	}
	return out
}

// firstViolation is the lowest seed that violated some property (the
// one Shrink works on), 0 for none.
func firstViolation(first map[string]uint64) uint64 {
	var s uint64
	for _, seed := range first {
		if s == 0 || seed < s {
			s = seed
		}
	}
	return s
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
