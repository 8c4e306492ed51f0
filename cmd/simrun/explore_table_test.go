package main

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// exploreTableShrinkAttempts bounds the shrinking of each failure the
// table's explorer finds: simrun explore's default --max-attempts.
const exploreTableShrinkAttempts = explore.DefaultShrinkAttempts

// tableRow is one implementation's line of the explore table.
type tableRow struct {
	impl string
	// scenario is the scenario the explorer searched and whose seeds the
	// swarm column counts, "" for swarm (the event host's rows).
	scenario string
	// catalogue and swarm are the runs to the first failure of the random
	// catalogue sweep and of swarm seeds 1..budget; 0 is none within the
	// budget.
	catalogue, swarm int
	// explored are the explorer's runs to the first failure, one per
	// explorer seed (0: none within the budget), shrunk the faults of the
	// shrunk schedules of those it found (faults.Schedule.Faults: a crash
	// and its restart count once), exhausted how many of those shrinks stopped at
	// their attempt limit.
	explored, shrunk []int
	exhausted        int
	// mutated counts the failures found by a mutated input rather than a
	// fresh draw of the scenario.
	mutated int
	// unshrunk counts the failures the goroutine host's worker did not
	// reproduce when it ran them again to shrink them.
	unshrunk int
}

// TestExploreTable measures, for each public mutant and each zoo mutant or
// variant of the event host, the runs to the first failure of the random
// catalogue sweep (seed-major: seed 1 of every catalogue scenario the
// implementation supports, then seed 2, ...), of the swarm's own draws
// (seeds 1, 2, ...), and of simrun explore on swarm for explorer seeds
// 1..EXPLORE_SEEDS, all within the budget EXPLORE_BUDGET, and writes the
// table to EXPLORE_TABLE (EXPLORE_IMPLS, a comma-separated list, measures
// only those rows). With EXPLORE_SCENARIO=all the explorer searches every
// catalogue scenario the implementation supports at once (simrun explore
// --scenario all) instead of swarm. make explore-table runs it (minutes);
// without EXPLORE_TABLE it is skipped.
func TestExploreTable(t *testing.T) {
	path := os.Getenv("EXPLORE_TABLE")
	if path == "" {
		t.Skip("set EXPLORE_TABLE=FILE (make explore-table) to measure the explorer against random sweeps")
	}
	budget, seeds := envInt(t, "EXPLORE_BUDGET", 100), envInt(t, "EXPLORE_SEEDS", 3)
	swarm, err := scenarios.Lookup("swarm")
	require.NoError(t, err)
	var only []string // EXPLORE_IMPLS: measure only these rows
	if v := os.Getenv("EXPLORE_IMPLS"); v != "" {
		only = strings.Split(v, ",")
	}
	var impls []lease.Impl
	for _, impl := range implementations() {
		if tabled(impl.Name) && (only == nil || slices.Contains(only, impl.Name)) {
			impls = append(impls, impl)
		}
	}
	rows := make([]tableRow, len(impls))
	// The replicated store's rows run for longest (a second a run): start
	// them first, so the parallel rows end together.
	order := make([]int, len(impls))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(impls[b].Members, impls[a].Members)
	})
	t.Run("impl", func(t *testing.T) { // returns when every parallel row is done
		for _, i := range order {
			impl := impls[i]
			t.Run(impl.Name, func(t *testing.T) {
				t.Parallel()
				rows[i] = measureRow(t, swarm, impl, budget, seeds, exploreAll(t))
				t.Logf("%s", rows[i].markdown(budget))
			})
		}
	})
	require.NoError(t, os.WriteFile(path, []byte(exploreTable(rows, budget, seeds, exploreAll(t))), 0o644))
}

// exploreAll reports whether EXPLORE_SCENARIO asks the table's explorer
// to search every scenario at once (all) rather than one.
func exploreAll(t *testing.T) bool {
	switch v := os.Getenv("EXPLORE_SCENARIO"); v {
	case "":
		return false
	case allScenarios:
		return true
	default:
		t.Fatalf("EXPLORE_SCENARIO=%s: only %q is known", v, allScenarios)
		return false
	}
}

// measureRow measures one implementation's row, exploring swarm or, with
// all, every catalogue scenario impl supports at once.
func measureRow(t *testing.T, swarm scenarios.Scenario, impl lease.Impl, budget, seeds int, all bool) tableRow {
	cat := scenarios.CatalogFor(impl)
	row := tableRow{impl: impl.Name,
		catalogue: seedMajorRuns(len(cat), budget, func(i int, seed uint64) bool { return failed(t, cat[i], seed, impl) }),
		swarm:     seedMajorRuns(1, budget, func(_ int, seed uint64) bool { return failed(t, swarm, seed, impl) })}
	var hosts []explore.Host
	if all {
		var err error
		hosts, err = eventExploreHosts(impl)
		require.NoError(t, err, impl.Name)
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r, err := explore.Explore(explore.Config{Scenario: swarm, Impl: impl, Hosts: hosts, Seed: seed, Budget: budget,
			ShrinkAttempts: exploreTableShrinkAttempts})
		require.NoError(t, err, impl.Name)
		row.addExplored(r)
	}
	return row
}

// addExplored adds one explorer seed's result to the row.
func (r *tableRow) addExplored(res explore.Result) {
	if res.Failure == nil {
		r.explored = append(r.explored, 0)
		return
	}
	r.explored = append(r.explored, res.Failure.Run)
	r.shrunk = append(r.shrunk, res.Failure.Shrunk.Faults())
	if res.Steps[len(res.Steps)-1].Origin != "draw" {
		r.mutated++
	}
	if res.Failure.ShrinkExhausted {
		r.exhausted++
	}
}

// bugFree are the zoo variants that carry no known bug (another member
// count, no lease checkpoints): left out of the table, where they would
// only run the whole budget three times over.
var bugFree = []string{"zoo/etcdraft/5-members", "zoo/etcdraft/no-checkpoints"}

// tabled reports whether the table measures impl: a public mutant, or a
// zoo mutant or variant (a name below a zoo system's).
func tabled(name string) bool {
	variant := strings.HasPrefix(name, "zoo/") && strings.Count(name, "/") >= 2 && !slices.Contains(bugFree, name)
	return strings.HasPrefix(name, "mutant/") || variant
}

// seedMajorRuns returns the runs to the first failure of seed 1 of each
// of n scenarios in order, then seed 2 of each, ..., as failed (the
// scenario's index and the seed) says, or 0 within budget: the catalogue
// sweep's order, and with n = 1 one scenario's seeds 1, 2, ....
func seedMajorRuns(n, budget int, failed func(i int, seed uint64) bool) int {
	for k := 1; k <= budget; k++ {
		if failed((k-1)%n, uint64((k-1)/n+1)) {
			return k
		}
	}
	return 0
}

// failed reports whether one run fails as the explorer counts failures.
func failed(t *testing.T, sc scenarios.Scenario, seed uint64, impl lease.Impl) bool {
	out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: impl})
	require.NoError(t, err, "%s seed %d %s", sc.Name, seed, impl.Name)
	return explore.Violation(out) != nil
}

// markdown is the row as a line of the table.
func (r tableRow) markdown(budget int) string {
	found := 0
	var each []string
	for _, n := range r.explored {
		each = append(each, runsCell(n, budget))
		if n > 0 {
			found++
		}
	}
	shrunk := "-"
	if len(r.shrunk) > 0 {
		shrunk = strconv.Itoa(median(r.shrunk, 0))
	}
	if r.exhausted > 0 {
		shrunk += fmt.Sprintf(" (%d at the limit)", r.exhausted)
	}
	if r.unshrunk > 0 {
		shrunk += fmt.Sprintf(" (%d not reproduced to shrink)", r.unshrunk)
	}
	impl := fmt.Sprintf("`%s`", r.impl)
	if r.scenario != "" {
		impl += fmt.Sprintf(" | `%s`", r.scenario)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %d/%d | %s | %d | %s |", impl, runsCell(r.catalogue, budget),
		runsCell(r.swarm, budget), runsCell(median(r.explored, budget+1), budget), found, len(r.explored),
		strings.Join(each, ", "), r.mutated, shrunk)
}

// runsCell prints a run count, or "> budget" for none (0 or beyond).
func runsCell(n, budget int) string {
	if n == 0 || n > budget {
		return fmt.Sprintf("> %d", budget)
	}
	return strconv.Itoa(n)
}

// median returns the median of ns (the lower middle of an even count),
// each 0 counted as none, which sorts as none.
func median(ns []int, none int) int {
	s := slices.Clone(ns)
	for i, n := range s {
		if n == 0 {
			s[i] = none
		}
	}
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// exploreTable is the whole table, with its header: the event host's
// (every row explores swarm) or, when the rows name their scenario, the
// goroutine host's.
func exploreTable(rows []tableRow, budget, seeds int, all bool) string {
	var b strings.Builder
	explored, first, seedsCol := "--scenario swarm", "| implementation |", "swarm seeds"
	if len(rows) > 0 && rows[0].scenario != "" {
		explored, first, seedsCol = "--scenario (the row's)", "| implementation | explored scenario |", "scenario seeds"
	}
	if all {
		explored = "--scenario all"
		if seedsCol == "scenario seeds" {
			seedsCol = "primary's seeds"
		}
	}
	fmt.Fprintf(&b, "Runs to the first failure within %d runs (> %d: none). Explorer: simrun explore %s, "+
		"explorer seeds 1-%d, shrinking at most %d runs.\n\n", budget, budget, explored, seeds, exploreTableShrinkAttempts)
	b.WriteString(first + " catalogue sweep | " + seedsCol + " | explore (median) | explore found | explore per seed | found by a mutation | shrunk faults (median) |\n")
	b.WriteString(strings.Repeat("|---", strings.Count(first, "|")+6) + "|\n")
	for _, r := range rows {
		b.WriteString(r.markdown(budget) + "\n")
	}
	return b.String()
}

// envInt reads a positive integer from the environment, or def.
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	require.Positive(t, n, name)
	return n
}
