package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/gohost"
)

// TestExploreTableGoHost measures the explore table's rows of the
// goroutine host: for every goroutine-host implementation of the zoo's
// modules (EXPLORE_IMPLS, a comma-separated list, measures only those),
// the runs to the first failure of its catalogue sweep (seed-major over
// the scenarios its worker lists, in their order), and for each scenario
// the rule exploredScenarios picks, of that scenario's seeds 1, 2, ... and
// of simrun explore on it for explorer seeds 1..EXPLORE_SEEDS, all within
// EXPLORE_BUDGET runs. Every run goes through simrun explore's own
// goroutine-host code (goExploreHost: worker processes, histories judged as
// simrun check judges them). With EXPLORE_SCENARIO=all each implementation
// has one row, whose explorer searches all its scenarios at once (simrun
// explore --scenario all) and whose scenario seeds are the primary's. It
// writes the table to EXPLORE_TABLE_GOHOST;
// make explore-table-gohost runs it (tens of minutes); without
// EXPLORE_TABLE_GOHOST it is skipped.
func TestExploreTableGoHost(t *testing.T) {
	path := os.Getenv("EXPLORE_TABLE_GOHOST")
	if path == "" {
		t.Skip("set EXPLORE_TABLE_GOHOST=FILE (make explore-table-gohost) to measure the explorer on the goroutine host")
	}
	budget, seeds := envInt(t, "EXPLORE_BUDGET", 100), envInt(t, "EXPLORE_SEEDS", 3)
	var only []string // EXPLORE_IMPLS: measure only these implementations
	if v := os.Getenv("EXPLORE_IMPLS"); v != "" {
		only = strings.Split(v, ",")
	}
	cmd := &cobra.Command{}
	cmd.SetContext(context.Background())
	h := &goHost{a: &app{stdout: io.Discard, stderr: os.Stderr}}
	impls, err := h.impls()
	require.NoError(t, err)
	type subject struct {
		g     *goImpl
		infos []gohost.ScenarioInfo
	}
	var subjects []subject
	for i := range impls {
		g := &impls[i]
		if only != nil && !slices.Contains(only, g.Name) {
			continue
		}
		infos, err := h.scenarioInfos(cmd, g) // builds the worker binary: one at a time, before the parallel rows
		require.NoError(t, err, g.Name)
		subjects = append(subjects, subject{g, infos})
	}
	require.NotEmpty(t, subjects, "EXPLORE_IMPLS names no goroutine-host implementation")
	rows := make([][]tableRow, len(subjects))
	t.Run("impl", func(t *testing.T) { // returns when every parallel implementation is done
		for i, s := range subjects {
			t.Run(s.g.Name, func(t *testing.T) {
				t.Parallel()
				rows[i] = measureGoRows(t, h, cmd, s.g, s.infos, budget, seeds, exploreAll(t))
				for _, r := range rows[i] {
					t.Logf("%s", goRowLine(r, budget))
				}
			})
		}
	})
	var measured, unexplored []tableRow
	for _, rs := range rows {
		for _, r := range rs {
			if r.scenario == "" {
				unexplored = append(unexplored, r)
			} else {
				measured = append(measured, r)
			}
		}
	}
	var b strings.Builder
	b.WriteString(exploreTable(measured, budget, seeds, exploreAll(t)))
	for _, r := range unexplored {
		b.WriteString("\n" + goRowLine(r, budget))
	}
	require.NoError(t, os.WriteFile(path, []byte(b.String()+"\n"), 0o644))
}

// goRowLine is a row as a line of the table, or for an implementation the
// rule explores no scenario of, a list item that says so.
func goRowLine(r tableRow, budget int) string {
	if r.scenario != "" {
		return r.markdown(budget)
	}
	return fmt.Sprintf("- `%s`: catalogue sweep %s; not explored: no scenario of its own has a nemesis, so the rule "+
		"picks none (the explorer would only re-time its scripted faults).", r.impl, runsCell(r.catalogue, budget))
}

// measureGoRows measures g's rows: one per scenario exploredScenarios
// picks, each with g's catalogue sweep; or, where it picks none, one row
// with the catalogue sweep alone and no scenario. With all, one row whose
// explorer searches every scenario at once, primary first.
func measureGoRows(t *testing.T, h *goHost, cmd *cobra.Command, g *goImpl, infos []gohost.ScenarioInfo, budget, seeds int, all bool) []tableRow {
	bin, err := h.start(cmd, g)
	require.NoError(t, err, g.Name)
	pool := newWorkerPool(cmd.Context(), g, bin, 1)
	defer pool.close()
	host := func(i int) *goExploreHost {
		return &goExploreHost{ctx: cmd.Context(), g: g, info: infos[i], pool: pool}
	}
	hosts := make([]*goExploreHost, len(infos)) // one a scenario, sharing the serving worker
	for i := range infos {
		hosts[i] = host(i)
	}
	catalogue := seedMajorRuns(len(hosts), budget, func(i int, seed uint64) bool { return goFailed(t, hosts[i], seed) })
	// Each row explores arms, the first its primary, whose seeds its
	// scenario-seeds column counts.
	type plan struct {
		scenario string
		arms     []int
	}
	plans := []plan{{allScenarios, primaryFirst(scenarioKinds(infos))}}
	if !all {
		plans = nil
		for _, i := range exploredScenarios(infos) {
			plans = append(plans, plan{infos[i].Name, []int{i}})
		}
	}
	if len(plans) == 0 {
		return []tableRow{{impl: g.Name, catalogue: catalogue}}
	}
	var rows []tableRow
	for _, p := range plans {
		row := tableRow{impl: g.Name, scenario: p.scenario, catalogue: catalogue,
			swarm: seedMajorRuns(1, budget, func(_ int, seed uint64) bool { return goFailed(t, hosts[p.arms[0]], seed) })}
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			var sx []explore.Host // fresh hosts a search: each lease is the one its own first run declares
			for _, i := range p.arms {
				sx = append(sx, host(i))
			}
			r, err := explore.Explore(explore.Config{Hosts: sx, Seed: seed, Budget: budget, ShrinkAttempts: exploreTableShrinkAttempts})
			if errors.Is(err, errNotReproducible) { // found, but the worker did not fail again to shrink it
				row.explored = append(row.explored, r.Runs)
				row.unshrunk++
				continue
			}
			require.NoError(t, err, "%s %s explorer seed %d", g.Name, p.scenario, seed)
			row.addExplored(r)
		}
		rows = append(rows, row)
	}
	return rows
}

// goFailed reports whether seed's fresh run of x's scenario fails as the
// explorer counts failures.
func goFailed(t *testing.T, x *goExploreHost, seed uint64) bool {
	r, err := x.Run(explore.Input{Seed: seed})
	require.NoError(t, err, "%s %s seed %d", x.g.Name, x.info.Name, seed)
	return r.Violated != nil
}

// exploredScenarios is the rule for the scenarios the explorer searches on
// the goroutine host, which knows nothing of any bug: those whose nemesis
// draws the most fault kinds (the swarm-like stories; every one of them
// when configurations of a story tie), none when no scenario has a
// nemesis. It returns their indexes in infos.
func exploredScenarios(infos []gohost.ScenarioInfo) []int {
	most := 0
	for _, info := range infos {
		most = max(most, len(info.FaultKinds))
	}
	var picked []int
	for i, info := range infos {
		if most > 0 && len(info.FaultKinds) == most {
			picked = append(picked, i)
		}
	}
	return picked
}

func TestExploredScenarios(t *testing.T) {
	info := func(kinds ...string) gohost.ScenarioInfo { return gohost.ScenarioInfo{FaultKinds: kinds} }
	for _, tt := range []struct {
		name  string
		infos []gohost.ScenarioInfo
		want  []int
	}{
		{"the most kinds", []gohost.ScenarioInfo{info("pause"), info("pause", "crash", "isolate"), info()}, []int{1}},
		{"ties: each", []gohost.ScenarioInfo{info(), info("pause", "crash"), info("crash", "isolate")}, []int{1, 2}},
		{"no nemesis: none", []gohost.ScenarioInfo{info(), info()}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, exploredScenarios(tt.infos))
		})
	}
}

// The catalogue's order is seed-major: seed 1 of every scenario, then
// seed 2; nothing failing within the budget is 0.
func TestSeedMajorRuns(t *testing.T) {
	var order []string
	failAt := func(scenario int, seed uint64) func(int, uint64) bool {
		return func(i int, s uint64) bool {
			order = append(order, fmt.Sprintf("%d/%d", i, s))
			return i == scenario && s == seed
		}
	}
	assert.Equal(t, 5, seedMajorRuns(3, 10, failAt(1, 2)))
	assert.Equal(t, []string{"0/1", "1/1", "2/1", "0/2", "1/2"}, order)
	assert.Equal(t, 0, seedMajorRuns(3, 4, failAt(1, 2)), "beyond the budget")
	assert.Equal(t, 3, seedMajorRuns(1, 10, failAt(0, 3)), "one scenario: its seeds in order")
}

// Both tables' rows have as many cells as their header, and a goroutine-host
// row names its scenario and the failures its worker did not reproduce.
func TestExploreTableColumns(t *testing.T) {
	event := tableRow{impl: "mutant/x", catalogue: 3, swarm: 2, explored: []int{4, 0, 7}, shrunk: []int{1, 2}}
	gor := tableRow{impl: "redsync", scenario: "redsync-swarm/volatile", catalogue: 1, swarm: 3, explored: []int{26, 1, 21},
		shrunk: []int{1, 1}, unshrunk: 1}
	for _, tc := range []struct {
		rows []tableRow
		all  bool
	}{{[]tableRow{event}, false}, {[]tableRow{gor}, false}, {[]tableRow{event}, true}} {
		lines := strings.Split(strings.TrimSpace(exploreTable(tc.rows, 100, 3, tc.all)), "\n")
		require.Len(t, lines, 5)
		cells := strings.Count(lines[2], "|")
		assert.Equal(t, cells, strings.Count(lines[3], "|"), lines[3])
		assert.Equal(t, cells, strings.Count(lines[4], "|"), lines[4])
	}
	line := gor.markdown(100)
	assert.Contains(t, line, "| `redsync` | `redsync-swarm/volatile` | 1 | 3 | 21 | 3/3 | 26, 1, 21 |")
	assert.Contains(t, line, "(1 not reproduced to shrink)")
	assert.Contains(t, goRowLine(tableRow{impl: "k8s/nodelease", catalogue: 1}, 100), "not explored")
}
