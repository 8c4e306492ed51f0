package hraft

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

// TestMeasure runs every scenario over seeds 1..HRAFT_SEEDS, each seed
// twice (Verify), and writes the tables of RESULTS.md to HRAFT_RESULTS
// (or the test log), with every seed's determinism level. Skipped unless
// HRAFT_SEEDS is set. HRAFT_SHARD=i/n runs only the scenarios whose index
// is i modulo n, so that n processes can share the table:
//
//	HRAFT_SEEDS=200 HRAFT_RESULTS=/tmp/results.md go test -run TestMeasure -timeout 120m .
func TestMeasure(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HRAFT_SEEDS"))
	if n <= 0 {
		t.Skip("set HRAFT_SEEDS to measure")
	}
	shard, shards := 0, 1
	if s := os.Getenv("HRAFT_SHARD"); s != "" {
		if _, err := fmt.Sscanf(s, "%d/%d", &shard, &shards); err != nil || shards < 1 || shard < 0 || shard >= shards {
			t.Fatalf("HRAFT_SHARD=%q: want i/n with 0 <= i < n", s)
		}
	}
	var b strings.Builder
	for i, sc := range Scenarios() {
		if i%shards != shard {
			continue
		}
		counts := map[string]map[checker.Status]int{}
		first := map[string]string{}
		var verified, diverged []uint64
		var unclean []string
		start := time.Now()
		for seed := uint64(1); seed <= uint64(n); seed++ {
			out := executeOrFail(t, sc, seed, scenarios.Options{T: t, Verify: true})
			if out.Goroutine.Level.Determinism == history.Verified {
				verified = append(verified, seed)
			} else {
				diverged = append(diverged, seed)
			}
			if len(out.Goroutine.Leaks) > 0 || len(out.Goroutine.Problems) > 0 {
				unclean = append(unclean, fmt.Sprintf("seed %d: %d leak(s), problems %q", seed, len(out.Goroutine.Leaks), out.Goroutine.Problems))
			}
			for _, c := range out.Checks {
				if counts[c.Property] == nil {
					counts[c.Property] = map[checker.Status]int{}
				}
				counts[c.Property][c.Status]++
				if c.Status != checker.OK && c.Status != checker.NotApplicable && first[c.Property] == "" {
					first[c.Property] = fmt.Sprintf("seed %d: %s", seed, c.Summary)
				}
			}
		}
		fmt.Fprintf(&b, "### %s\n\n%s. %d seeds, %v wall (two runs a seed and the checkers).\n\n",
			sc.Name, sc.Doc, n, time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(&b, "Determinism: %d verified %s, %d diverged %s.\n\n", len(verified), seedList(verified),
			len(diverged), seedList(diverged))
		if len(unclean) > 0 {
			fmt.Fprintf(&b, "Leaks or node errors: %s.\n\n", strings.Join(unclean, "; "))
		}
		fmt.Fprintf(&b, "| property | ok | violated | unknown | n/a | first not ok |\n|---|---|---|---|---|---|\n")
		for _, p := range []string{"P1", "P2", "P3", "P4", "premise"} {
			c := counts[p]
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", p, c[checker.OK], c[checker.Violated], c[checker.Unknown],
				c[checker.NotApplicable], strings.ReplaceAll(first[p], "|", "\\|"))
		}
		b.WriteString("\n")
		// Written after each scenario, so that a long measurement cut
		// short keeps the scenarios it finished.
		if path := os.Getenv("HRAFT_RESULTS"); path != "" {
			if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Log("\n" + b.String())
}

// seedList writes seeds as ranges in brackets ("[1-3, 7]"), or nothing
// for none.
func seedList(seeds []uint64) string {
	if len(seeds) == 0 {
		return ""
	}
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if i == j {
			parts = append(parts, strconv.FormatUint(seeds[i], 10))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		}
		i = j + 1
	}
	return "(seeds " + strings.Join(parts, ", ") + ")"
}
