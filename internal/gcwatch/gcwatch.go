package gcwatch

import (
	"math"
	"runtime/metrics"
	"sync/atomic"
)

// The runtime/metrics names read; both exist since Go 1.21.
const (
	cyclesMetric = "/gc/cycles/total:gc-cycles"
	liveMetric   = "/gc/heap/live:bytes"
)

// read returns the uint64 value of metric name, panicking if the runtime
// does not have it (a broken invariant of the supported Go versions).
func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		panic("gcwatch: runtime/metrics has no " + name)
	}
	return s[0].Value.Uint64()
}

// Cycles returns how many garbage collection cycles have completed since
// the program started.
func Cycles() uint64 { return read(cyclesMetric) }

// LiveHeap returns the bytes of heap objects the latest completed cycle
// marked live (0 before the first cycle). It is as old as that cycle, and
// it counts what was allocated while the cycle marked, garbage or not: on
// a loaded machine, with the program allocating fast, megabytes more than
// is reachable. SettledLiveHeap is the closer reading.
func LiveHeap() uint64 { return read(liveMetric) }

// SettledLiveHeap brings about n collections by allocating (Churn) and
// returns the smallest live heap any of them found: each counts what is
// reachable plus what was allocated while it marked, so the smallest is the
// closest to what is reachable. ok is false when no collection runs
// (GOGC=off).
func SettledLiveHeap(n int) (live uint64, ok bool) {
	live = math.MaxUint64
	for range n {
		if !Churn(1) {
			return 0, false
		}
		live = min(live, LiveHeap())
	}
	return live, true
}

// churnMaxBytes bounds what Churn allocates: far more than any heap goal a
// test runs with, unless collection is off (GOGC=off).
const churnMaxBytes = 4 << 30

// sink keeps Churn's allocations on the heap and from being optimised
// away.
var sink atomic.Pointer[[]byte]

// Churn allocates short-lived garbage until n more cycles have completed,
// as ordinary work would, and reports whether they did before it had
// allocated churnMaxBytes (false when collection is off).
func Churn(n uint64) bool {
	want := Cycles() + n
	for allocated := 0; allocated < churnMaxBytes; allocated += 64 << 10 {
		if Cycles() >= want {
			return true
		}
		b := make([]byte, 64<<10)
		sink.Store(&b)
	}
	sink.Store(nil)
	return Cycles() >= want
}
