package consul

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// TestMeasure runs every scenario (whose name starts with one of the
// comma-separated prefixes of CONSUL_ONLY, if set) over seeds 1..CONSUL_SEEDS (each seed twice, Verify) and writes the
// tables of RESULTS.md to CONSUL_RESULTS (or the test log). Skipped unless
// CONSUL_SEEDS is set:
//
//	CONSUL_SEEDS=200 CONSUL_RESULTS=/tmp/results.md go test -run TestMeasure -timeout 60m .
func TestMeasure(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CONSUL_SEEDS"))
	if n <= 0 {
		t.Skip("set CONSUL_SEEDS to measure")
	}
	var b strings.Builder
	for _, sc := range Scenarios() {
		if !selected(sc.Name, os.Getenv("CONSUL_ONLY")) {
			continue
		}
		counts := map[string]map[checker.Status]int{}
		first := map[string]string{}
		exceeded := map[string]int{} // unknowns that only say drift exceeded rho
		var verified, clean int
		var shrinkSeed uint64
		var shrinkPreferred bool
		start := time.Now()
		for seed := uint64(1); seed <= uint64(n); seed++ {
			out := executeOrFail(t, sc, seed, scenarios.Options{T: t, Verify: true})
			if out.Goroutine.Level.Determinism == history.Verified {
				verified++
			}
			if out.Goroutine.Err() == nil {
				clean++
			} else {
				t.Errorf("%s seed %d: %v", sc.Name, seed, out.Goroutine.Err())
			}
			for _, c := range out.Checks {
				if counts[c.Property] == nil {
					counts[c.Property] = map[checker.Status]int{}
				}
				counts[c.Property][c.Status]++
				if c.AssumptionExceeded {
					exceeded[c.Property]++
				}
				if c.Status != checker.OK && c.Status != checker.NotApplicable && first[c.Property] == "" {
					first[c.Property] = fmt.Sprintf("seed %d: %s", seed, c.Summary)
				}
			}
			// Shrink the first seed whose first violation is P1 or P2 (the
			// stories are about them), else the first failing seed.
			if v := out.Violated(); len(v) > 0 && (shrinkSeed == 0 || !shrinkPreferred) {
				if p := v[0].Property; shrinkSeed == 0 || p == "P1" || p == "P2" {
					shrinkSeed, shrinkPreferred = seed, p == "P1" || p == "P2"
				}
			}
		}
		wall := time.Since(start)
		// P1–P4 and the premise always; P5 and P6 only when some run was
		// not n/a (these stories have no handoff and no tasks).
		props := []string{"P1", "P2", "P3", "P4"}
		for _, p := range []string{"P5", "P6"} {
			if c := counts[p]; c[checker.NotApplicable] != n {
				props = append(props, p)
			}
		}
		props = append(props, "premise")
		fmt.Fprintf(&b, "### %s\n\n%s. %d seeds, %d verified, %d clean (no leak, no node error), %v wall (two runs a seed and the checkers).\n\n",
			sc.Name, sc.Doc, n, verified, clean, wall.Round(time.Millisecond))
		fmt.Fprintf(&b, "| property | ok | violated | unknown | n/a | first not ok |\n|---|---|---|---|---|---|\n")
		for _, p := range props {
			c := counts[p]
			unknown := strconv.Itoa(c[checker.Unknown])
			if exceeded[p] > 0 {
				unknown += fmt.Sprintf(" (%d assumption exceeded)", exceeded[p])
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %d | %s |\n", p, c[checker.OK], c[checker.Violated], unknown,
				c[checker.NotApplicable], strings.ReplaceAll(first[p], "|", "\\|"))
		}
		if shrinkSeed != 0 {
			s, err := scenarios.ShrinkSeed(sc, shrinkSeed, scenarios.Options{T: t}, 100)
			if err != nil {
				fmt.Fprintf(&b, "\nShrinking seed %d: %v\n", shrinkSeed, err)
			} else {
				again := executeOrFail(t, sc, shrinkSeed, scenarios.Options{T: t, Schedule: &s.Schedule, Verify: true})
				fmt.Fprintf(&b, "\nFailing seed %d (%s) shrinks from %d to %d fault(s) in %d runs: `%s`; replay: hash %#x %s, %s, %s %s.\n",
					shrinkSeed, s.Target.Property, len(s.Original.Events), len(s.Schedule.Events), s.Stats.Attempts,
					strings.ReplaceAll(strings.TrimSpace(s.Schedule.String()), "\n", "; "), again.Goroutine.Hash, sameWord(again.Goroutine.Hash == s.Hash),
					again.Goroutine.Level, s.Target.Property, again.Verdict(s.Target.Property))
			}
		}
		b.WriteString("\n")
	}
	if path := os.Getenv("CONSUL_RESULTS"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Log("\n" + b.String())
}

func sameWord(same bool) string {
	if same {
		return "the same as the shrink's"
	}
	return "DIFFERENT from the shrink's"
}

// selected reports whether name starts with one of the comma-separated
// prefixes (every name when there are none).
func selected(name, prefixes string) bool {
	if prefixes == "" {
		return true
	}
	for _, p := range strings.Split(prefixes, ",") {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
