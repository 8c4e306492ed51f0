package etcdraft

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// catalogSeeds are the seeds every applicable scenario runs in go test;
// RESULTS.md has seeds 1-300.
const catalogSeeds = 3

// execute runs sc for seed against impl, skipping the test if impl lacks
// what sc needs.
func execute(t *testing.T, sc scenarios.Scenario, seed uint64, impl lease.Impl) *scenarios.Outcome {
	t.Helper()
	out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: impl})
	var unsupported *scenarios.UnsupportedError
	if errors.As(err, &unsupported) {
		t.Skip(unsupported.Reason())
	}
	require.NoError(t, err)
	return out
}

// TestCatalog runs every catalogue scenario the store supports: P1, P2
// and P4 must never be violated (P1 may only be unknown when drift went
// beyond rho), and the premise must hold.
func TestCatalog(t *testing.T) {
	for _, sc := range scenarios.Catalog() {
		for seed := uint64(1); seed <= catalogSeeds; seed++ {
			t.Run(fmt.Sprintf("%s/%d", sc.Name, seed), func(t *testing.T) {
				out := execute(t, sc, seed, Impl())
				for _, prop := range []string{"P1", "P2", "P4", "P5", "P6"} {
					assert.Contains(t, []checker.Status{checker.OK, checker.NotApplicable, checker.Unknown},
						out.Verdict(prop), "%s", prop)
				}
				assert.NotEqual(t, checker.Violated, out.Verdict(scenarios.PanicProperty))
				for _, p := range out.History.Premises {
					assert.True(t, p.Held, "premise %s: %s", p.Name, p.Detail)
				}
				assert.NoError(t, out.Sim.Err)
			})
		}
	}
}

// TestMutantsCaught runs each mutant on a scenario that catches it, from
// seed 1 up to the first seed that violates P1 or P3 (RESULTS.md has the
// rates over seeds 1-100 of every scenario).
func TestMutantsCaught(t *testing.T) {
	byName := make(map[string]lease.Impl)
	for _, m := range Mutants() {
		byName[m.Name] = m
	}
	tests := []struct {
		mutant, scenario string
		first, last      uint64 // the mutant is caught within seeds first..last
	}{
		{Name + "/follower-keepalive", "partition-heal", 1, 5},
		{Name + "/revoke-after-stall", "leader-stall", 1, 3},
		{Name + "/lease-reads-deposed-leader", "leader-change-load", 1, 1},
		{Name + "/no-promote-extension", "leader-change-load", 1, 1},
		{Name + "/checkpoint-first-leader-only", "leader-churn", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.mutant, func(t *testing.T) {
			sc, err := scenarios.Lookup(tt.scenario)
			require.NoError(t, err)
			for seed := tt.first; seed <= tt.last; seed++ {
				out := execute(t, sc, seed, byName[tt.mutant])
				if out.Verdict("P1") == checker.Violated || out.Verdict("P3") == checker.Violated {
					return
				}
			}
			t.Fatalf("%s not caught by %s in seeds %d-%d", tt.mutant, tt.scenario, tt.first, tt.last)
		})
	}
}

// TestDeterministicInParallel runs seeds one after another and then all at
// once in goroutines: raft's draws from crypto/rand come from each run's
// seeded stream, found by the goroutine that runs it, so the trace hashes
// agree.
func TestDeterministicInParallel(t *testing.T) {
	sc, err := scenarios.Lookup("leader-stall")
	require.NoError(t, err)
	const seeds = 6
	run := func(seed uint64) uint64 {
		out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: Impl(), Check: checker.Options{Skip: true}})
		require.NoError(t, err)
		return out.Sim.TraceHash
	}
	serial := make([]uint64, seeds)
	for i := range serial {
		serial[i] = run(uint64(i + 1))
	}
	parallel := make([]uint64, seeds)
	var wg sync.WaitGroup
	for i := range parallel {
		wg.Go(func() { parallel[i] = run(uint64(i + 1)) })
	}
	wg.Wait()
	assert.Equal(t, serial, parallel)
	assert.NotEqual(t, serial[0], serial[1], "different seeds should differ")
}

// TestHashDigest prints one digest of the trace hashes of the replicated
// scenarios over ETCDRAFT_SEEDS seeds (skipped without it), so that runs
// under different GOMAXPROCS can be compared.
func TestHashDigest(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("ETCDRAFT_SEEDS"))
	if err != nil || n <= 0 {
		t.Skip("set ETCDRAFT_SEEDS to the number of seeds")
	}
	var d uint64
	for _, name := range []string{"swarm", "leader-stall", "rolling-restart"} {
		sc, err := scenarios.Lookup(name)
		require.NoError(t, err)
		hashes := make([]uint64, n)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i := range hashes {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				out, err := scenarios.Execute(sc, uint64(i+1), scenarios.Options{Impl: Impl(), Check: checker.Options{Skip: true}})
				if err == nil {
					hashes[i] = out.Sim.TraceHash
				}
			})
		}
		wg.Wait()
		for _, h := range hashes {
			require.NotZero(t, h)
			d = sim.Digest(d, h)
		}
	}
	t.Logf("digest of %d seeds x 3 scenarios: %016x", n, d)
}
