package zootable

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

// Measure runs every scenario of scs over seeds 1..PREFIX_SEEDS (each seed
// twice, Verify) and writes the tables of RESULTS.md to PREFIX_RESULTS, or
// the test log. PREFIX_ONLY, a comma-separated list, keeps the scenarios
// whose name contains one of its parts. It skips t unless PREFIX_SEEDS is
// set:
//
//	PREFIX_SEEDS=200 PREFIX_RESULTS=/tmp/results.md go test -run TestMeasure -timeout 60m .
func Measure(t *testing.T, prefix string, scs []scenarios.Scenario) {
	n, _ := strconv.Atoi(os.Getenv(prefix + "_SEEDS"))
	if n <= 0 {
		t.Skip("set " + prefix + "_SEEDS to measure")
	}
	var b strings.Builder
	for _, sc := range scs {
		if selected(sc.Name, os.Getenv(prefix+"_ONLY")) {
			table(t, &b, sc, n)
		}
	}
	if path := os.Getenv(prefix + "_RESULTS"); path != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Log("\n" + b.String())
}

// selected reports whether name contains one of the comma-separated parts
// of only (every name when only is empty).
func selected(name, only string) bool {
	if only == "" {
		return true
	}
	for _, p := range strings.Split(only, ",") {
		if strings.Contains(name, p) {
			return true
		}
	}
	return false
}

// tally is one scenario's verdicts over its seeds.
type tally struct {
	counts          map[string]map[checker.Status]int
	first           map[string]string
	exceeded        map[string]int // unknowns that only say drift exceeded rho
	verified, clean int
	shrinkSeed      uint64
	shrinkPreferred bool
}

// table measures sc over seeds 1..n and writes its table to b.
func table(t *testing.T, b *strings.Builder, sc scenarios.Scenario, n int) {
	tl := tally{counts: map[string]map[checker.Status]int{}, first: map[string]string{}, exceeded: map[string]int{}}
	start := time.Now()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		tl.add(t, sc, seed, execute(t, sc, seed, scenarios.Options{T: t, Verify: true}))
	}
	wall := time.Since(start)
	// P1–P4 and the premise always; P5 and P6 only when some run was not
	// n/a (these stories have no handoff and no tasks).
	props := []string{"P1", "P2", "P3", "P4"}
	for _, p := range []string{"P5", "P6"} {
		if c := tl.counts[p]; c[checker.NotApplicable] != n {
			props = append(props, p)
		}
	}
	props = append(props, "premise")
	fmt.Fprintf(b, "### %s\n\n%s. %d seeds, %d verified, %d clean (no leak, no node error), %v wall (two runs a seed and the checkers).\n\n",
		sc.Name, sc.Doc, n, tl.verified, tl.clean, wall.Round(time.Millisecond))
	fmt.Fprintf(b, "| property | ok | violated | unknown | n/a | first not ok |\n|---|---|---|---|---|---|\n")
	for _, p := range props {
		c := tl.counts[p]
		unknown := strconv.Itoa(c[checker.Unknown])
		if tl.exceeded[p] > 0 {
			unknown += fmt.Sprintf(" (%d assumption exceeded)", tl.exceeded[p])
		}
		fmt.Fprintf(b, "| %s | %d | %d | %s | %d | %s |\n", p, c[checker.OK], c[checker.Violated], unknown,
			c[checker.NotApplicable], strings.ReplaceAll(tl.first[p], "|", "\\|"))
	}
	if tl.shrinkSeed != 0 {
		shrink(t, b, sc, tl.shrinkSeed)
	}
	b.WriteString("\n")
}

// add counts one seed's outcome.
func (tl *tally) add(t *testing.T, sc scenarios.Scenario, seed uint64, out *scenarios.Outcome) {
	if out.Goroutine.Level.Determinism == history.Verified {
		tl.verified++
	}
	if err := out.Goroutine.Err(); err == nil {
		tl.clean++
	} else {
		t.Errorf("%s seed %d: %v", sc.Name, seed, err)
	}
	for _, c := range out.Checks {
		if tl.counts[c.Property] == nil {
			tl.counts[c.Property] = map[checker.Status]int{}
		}
		tl.counts[c.Property][c.Status]++
		if c.AssumptionExceeded {
			tl.exceeded[c.Property]++
		}
		if c.Status != checker.OK && c.Status != checker.NotApplicable && tl.first[c.Property] == "" {
			tl.first[c.Property] = fmt.Sprintf("seed %d: %s", seed, c.Summary)
		}
	}
	// Shrink the first seed whose first violation is P1 or P2 (the stories
	// are about them), else the first failing seed.
	if v := out.Violated(); len(v) > 0 && (tl.shrinkSeed == 0 || !tl.shrinkPreferred) {
		if p := v[0].Property; tl.shrinkSeed == 0 || p == "P1" || p == "P2" {
			tl.shrinkSeed, tl.shrinkPreferred = seed, p == "P1" || p == "P2"
		}
	}
}

// shrink shrinks seed's schedule, replays the smallest and writes both.
func shrink(t *testing.T, b *strings.Builder, sc scenarios.Scenario, seed uint64) {
	s, err := scenarios.ShrinkSeed(sc, seed, scenarios.Options{T: t}, 100)
	if err != nil {
		fmt.Fprintf(b, "\nShrinking seed %d: %v\n", seed, err)
		return
	}
	again := execute(t, sc, seed, scenarios.Options{T: t, Schedule: &s.Schedule, Verify: true})
	same := "DIFFERENT from the shrink's"
	if again.Goroutine.Hash == s.Hash {
		same = "the same as the shrink's"
	}
	fmt.Fprintf(b, "\nFailing seed %d (%s) shrinks from %d to %d fault(s) in %d runs: `%s`; replay: hash %#x %s, %s, %s %s.\n",
		seed, s.Target.Property, len(s.Original.Events), len(s.Schedule.Events), s.Stats.Attempts,
		strings.ReplaceAll(strings.TrimSpace(s.Schedule.String()), "\n", "; "), again.Goroutine.Hash, same,
		again.Goroutine.Level, s.Target.Property, again.Verdict(s.Target.Property))
}

// execute runs sc for seed and fails t if the run could not be made.
func execute(t *testing.T, sc scenarios.Scenario, seed uint64, opts scenarios.Options) *scenarios.Outcome {
	out, err := scenarios.Execute(sc, seed, opts)
	if err != nil {
		t.Fatalf("%s seed %d: %v", sc.Name, seed, err)
	}
	return out
}
