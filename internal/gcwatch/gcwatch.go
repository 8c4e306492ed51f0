package gcwatch

import (
	"math"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
)

// The runtime/metrics names read; both exist since Go 1.21.
const (
	cyclesMetric  = "/gc/cycles/total:gc-cycles"
	liveMetric    = "/gc/heap/live:bytes"
	goalMetric    = "/gc/heap/goal:bytes"
	objectsMetric = "/memory/classes/heap/objects:bytes"
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

// SettledLiveHeap brings about collections by allocating (Churn) and
// returns the smallest live heap any of them found. Each reading counts
// what is reachable plus what was allocated while that cycle marked, which
// scales with the heap goal, so after a large object dies the readings
// fall over a few cycles. It runs at least n collections and goes on until
// settleCycles in a row found nothing smaller, at most maxCycles; the
// smallest reading is the closest to what is reachable. ok is false when
// no collection runs (GOGC=off).
func SettledLiveHeap(n int) (live uint64, ok bool) {
	live = math.MaxUint64
	sinceLower := 0
	for i := 0; i < maxCycles && (i < n || sinceLower < settleCycles); i++ {
		if !Churn(1) {
			return 0, false
		}
		if r := LiveHeap(); r < live {
			live, sinceLower = r, 0
		} else {
			sinceLower++
		}
	}
	return live, true
}

// settleCycles and maxCycles bound SettledLiveHeap: readings that stopped
// falling for settleCycles cycles have settled, and maxCycles cycles of a
// small heap cost a few milliseconds.
const (
	settleCycles = 6
	maxCycles    = 64
)

// churnMaxBytes bounds what Churn allocates: far more than any heap goal a
// test runs with, unless collection is off (GOGC=off).
const churnMaxBytes = 4 << 30

// sink keeps Churn's allocations on the heap and from being optimised
// away.
var sink atomic.Pointer[[]byte]

// Churn allocates short-lived garbage until n more cycles have completed,
// as ordinary work would, and reports whether they did before it had
// allocated churnMaxBytes (false when collection is off). Once the heap
// has reached its goal a cycle is marking, and Churn yields until it ends
// rather than allocating on: what is allocated while a cycle marks counts
// as live in its reading, and on a loaded machine, with the collector's
// threads descheduled, unchecked allocation added hundreds of MiB.
func Churn(n uint64) bool {
	want := Cycles() + n
	for allocated := 0; allocated < churnMaxBytes; {
		if Cycles() >= want {
			return true
		}
		if heapObjects() >= read(goalMetric) {
			runtime.Gosched()
			continue
		}
		b := make([]byte, 64<<10)
		sink.Store(&b)
		allocated += len(b)
	}
	sink.Store(nil)
	return Cycles() >= want
}

// heapObjects returns the bytes of heap objects, live or not yet swept.
func heapObjects() uint64 { return read(objectsMetric) }
