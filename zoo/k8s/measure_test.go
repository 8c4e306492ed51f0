package k8s_test

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// TestMeasure runs every scenario over the seeds LEASESIM_SEEDS names
// ("1-200"), each verified (run twice), and prints per scenario and
// property how many seeds held, were violated or unknown, the first
// violating seed with its shrunk schedule, and every run that was not
// verified or not clean. It is skipped without LEASESIM_SEEDS; RESULTS.md
// was written from its output:
//
//	LEASESIM_SEEDS=1-200 go test -run TestMeasure -v -timeout 60m .
func TestMeasure(t *testing.T) {
	spec := os.Getenv("LEASESIM_SEEDS")
	if spec == "" {
		t.Skip("set LEASESIM_SEEDS=1-200 to measure")
	}
	var lo, hi uint64
	if _, err := fmt.Sscanf(spec, "%d-%d", &lo, &hi); err != nil || lo == 0 || hi < lo {
		t.Fatalf("LEASESIM_SEEDS=%q: want FROM-TO", spec)
	}
	props := []string{"P1", "P2", "P3", "P4", "P5", "P6", "premise"}
	for _, sc := range k8s.Scenarios() {
		counts := map[string]map[checker.Status]int{}
		first := map[string]uint64{}
		verified, unclean := 0, []string{}
		for seed := lo; seed <= hi; seed++ {
			out := k8s.Execute(t, sc, seed, gohost.Options{Verify: true})
			if out.Result.Level.Determinism == history.Verified {
				verified++
			}
			if err := out.Result.Err(); err != nil {
				unclean = append(unclean, fmt.Sprintf("seed %d: %v", seed, err))
			}
			for _, c := range out.Checks {
				if counts[c.Property] == nil {
					counts[c.Property] = map[checker.Status]int{}
				}
				counts[c.Property][c.Status]++
				if c.Status == checker.Violated && first[c.Property] == 0 {
					first[c.Property] = seed
					t.Logf("%s seed %d %s: %s", sc.Name, seed, c.Property, c.Summary)
				}
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d seeds, %d verified\n", sc.Name, hi-lo+1, verified)
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
		if s := first["P2"]; s != 0 {
			shrunk, err := gohost.Shrink(t, sc, s, 100)
			if err != nil {
				fmt.Fprintf(&b, "  shrink seed %d: %v\n", s, err)
			} else {
				again := k8s.Execute(t, sc, s, gohost.Options{Schedule: &shrunk.Schedule, Verify: true})
				fmt.Fprintf(&b, "  shrunk seed %d (%s): %d -> %d faults: %s; replay hash %x == %x: %v, %s, %s %s\n", s,
					shrunk.Target.Property, len(shrunk.Original.Events), len(shrunk.Schedule.Events), shrunk.Schedule,
					again.Result.Hash, shrunk.Hash, again.Result.Hash == shrunk.Hash, again.Result.Level,
					shrunk.Target.Property, again.Verdict(shrunk.Target.Property))
			}
		}
		t.Log("\n" + b.String())
	}
}
