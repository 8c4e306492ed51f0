// Package batchgc is the garbage collector's policy for leasesim's batch
// work: simrun's sweeps, runs and tuning, and the benchmarks that measure
// them as simrun runs them.
//
// A sweep's runs each build and drop a history, so the collector runs often
// at the default GOGC=100. Measured on `simrun sweep --scenario all --seeds
// 1-300` (2 cores, 3 alternating rounds, medians): GOGC=100 32.3 s and 37-43
// MB peak RSS, GOGC=200 25.6 s and 53-59 MB, GOGC=400 16.0 s and 88-98 MB.
// A fixed GOGC=400 is about twice as fast, but a run with a large history
// then peaks at five times the heap it keeps live.
//
// So GOGC follows the live heap (after Uber's GC tuning, as
// github.com/bytedance/gopkg's gctuner did until 2026-11-28): after each
// collection it is set so that the next one comes when the heap reaches
// Threshold, between MinGCPercent and MaxGCPercent. While the live heap is small (a sweep's runs: a few
// megabytes each) the collector runs at MaxGCPercent, as fast as the fixed
// GOGC=400 was; once it is large (a run with a history of tens of megabytes)
// the heap's peak stays within 1.5 times what is live. A soft memory limit
// keeps a large run from growing without bound.
//
// The threshold was chosen by measurement (`simrun sweep --scenario all
// --seeds 1-300 --parallel 2`, CPU seconds and peak RSS, 3 alternating
// rounds, medians, on a loaded 2-core machine): the fixed GOGC=400 7.65 s
// and 78-95 MB; Threshold 32 MiB 9.41 s and 43-49 MB; 64 MiB 8.39 s and
// 56-61 MB; 96 MiB 7.94 s and 67-75 MB; 128 MiB 7.89 s and 77-80 MB. 64 MiB
// costs a sweep about a tenth more CPU for two thirds of the memory (the
// catalogue's 12,000-run sweep stays well under its 25 s), and kept the
// 500-contender herd, whose history was then 34 MB, near its 1.5× goal; 96
// MiB and more let the herd's heap grow to the threshold first. Its
// history is now 7.1 MB, so its heap stays below the threshold and peaks
// at what a run allocates: 11.3 MB, 1.7-1.8 times its history in resident
// set (BenchmarkHerd500).
//
// The tuner reads the live heap through runtime/metrics, which stops no
// goroutine. gctuner read it with runtime.ReadMemStats, which stops the
// world, once per collection: a sweep of zoo/etcdraft collects about 25
// times a second, and on two busy cores each such stop waits for both
// workers to be preempted (tuner.go).
package batchgc

import (
	"os"
	"runtime/debug"
	"sync/atomic"
)

const (
	// Threshold is the heap, in bytes, at which the collector aims to run
	// while the live heap is between Threshold/(1+MaxGCPercent/100) and
	// Threshold/(1+MinGCPercent/100).
	Threshold = 64 << 20
	// MaxGCPercent is the GOGC of a small live heap (a sweep's runs).
	MaxGCPercent = 400
	// MinGCPercent is the GOGC of a live heap past Threshold/1.5: the heap
	// then peaks at 1.5 times what is live.
	MinGCPercent = 50
	// MemoryLimit is the batch soft memory limit, in bytes: the collector
	// works harder near it.
	MemoryLimit = 2 << 30
)

// Apply sets the batch policy, unless the environment sets its own GOGC or
// GOMEMLIMIT, which then wins (GOGC turns the tuning off). It returns a
// function that restores the previous settings (for benchmarks).
func Apply() (restore func()) {
	percent, limit := debug.SetGCPercent(-1), debug.SetMemoryLimit(-1)
	debug.SetGCPercent(percent)
	var t *tuner
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(MaxGCPercent)
		t = startTuner()
		active.Store(t)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
	return func() {
		if t != nil {
			t.stop()
			active.CompareAndSwap(t, nil)
		}
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// active is the tuner Apply started, if it runs.
var active atomic.Pointer[tuner]

// RunsAtOnce tells the policy that n runs share the heap at once (a
// sweep's --parallel), from the next collection on: the heap then grows to
// n times Threshold, at up to n times MaxGCPercent, so that each run has
// the headroom of a run alone. The runtime's floor for the heap goal (4 MB
// × GOGC/100) is one heap's, not one run's: at one run's policy, two runs
// of a sweep of zoo/etcdraft, whose live heap is 2-5 MB, shared a 16 MB
// goal and collected about twice as often per run as one run alone
// (docs/performance.md). It does nothing when the environment's GOGC
// turned the tuning off.
func RunsAtOnce(n int) {
	if t := active.Load(); t != nil {
		t.runs.Store(int64(max(n, 1)))
	}
}
