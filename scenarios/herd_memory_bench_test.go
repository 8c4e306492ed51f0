//go:build linux

package scenarios_test

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/leasesim/leasesim/scenarios"
)

// BenchmarkHerd500 runs the thundering herd with 500 contenders, checked,
// seed after seed, and reports its cost per kernel event (as
// BenchmarkScenario does) and its memory: the process's peak resident set
// while it ran (peak-RSS-MB: Linux's high-water mark, reset when the
// benchmark starts, so earlier benchmarks do not count) and the heap one
// outcome keeps alive, nearly all of it the history (outcome-MB), and the
// resident set before the first run (base-RSS-MB: the test process, its
// packages and earlier benchmarks' leftovers), which the runs' peak
// includes. What the runs add to it should stay within about twice what
// the history needs. The base is read after a 20-contender herd has paged
// the program's code in (about 1 MB, which the first sample's peak
// counted otherwise). The first sample in a fresh process still reads a
// little higher than the rest (1.85-1.96x against 1.70-1.77x its history
// under simrun's policy): its base does not yet hold the runtime's own
// metadata for the heap the runs grow (about 1.3 MB, kept after
// FreeOSMemory), which later samples' bases do. It runs
// under simrun's garbage collector policy (batch-gc, internal/batchgc) and
// under Go's default GOGC (default-gc, what a Go test of the herd gets).
func BenchmarkHerd500(b *testing.B) {
	for _, gc := range gcPolicies {
		b.Run(gc.name, func(b *testing.B) {
			defer gc.apply()()
			benchmarkHerd500(b)
		})
	}
}

// benchmarkHerd500 is BenchmarkHerd500 under the collector's current
// settings.
func benchmarkHerd500(b *testing.B) {
	// The catalogue's 20-contender herd runs the same code: run once, it
	// pages that code in before the base is read, so the base holds the
	// program and the peak what the runs' data adds.
	if _, err := scenarios.Execute(scenarios.ThunderingHerd(), 1, scenarios.Options{}); err != nil {
		b.Fatal(err)
	}
	sc := scenarios.ThunderingHerd()
	sc.Name, sc.Contenders = "thundering-herd-500", 500
	debug.FreeOSMemory() // what earlier benchmarks left resident does not count
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("cannot reset the peak resident set: %v", err)
	}
	base := statusKB(b, "VmRSS")
	benchmarkPerEvent(b, sc, scenarios.Options{})
	b.ReportMetric(float64(statusKB(b, "VmHWM"))/1e3, "peak-RSS-MB")
	b.ReportMetric(float64(base)/1e3, "base-RSS-MB")

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := scenarios.Execute(sc, 1, scenarios.Options{})
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(out)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "outcome-MB")
}

// statusKB returns a "… kB" field of /proc/self/status.
func statusKB(b *testing.B, field string) int64 {
	b.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			b.Fatalf("%s: %v", field, err)
		}
		return kb
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}
