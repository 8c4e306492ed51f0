package batchgc

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// heapInUse are the runtime/metrics names whose sum is the heap in use
// (runtime.MemStats.HeapInuse): the spans that hold objects, live or not
// yet swept, and their free slots. The policy was measured with it: the
// heap the last collection marked live (/gc/heap/live:bytes) is smaller
// by what is not yet swept and by fragmentation, and tuning to it raised
// the peak resident set of `simrun sweep --scenario all --seeds 1-200
// --parallel 2` from 53-55 to 94-97 MB.
var heapInUse = [...]string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}

// tuner sets GOGC after each collection, so that the next one comes when
// the heap reaches Threshold (gcPercent). It runs in the finalizer
// goroutine, which runs one finalizer at a time, so its state needs no
// lock; stop may be called from any goroutine.
type tuner struct {
	stopped atomic.Bool
	runs    atomic.Int64 // runs that share the heap at once (RunsAtOnce)
	sample  [len(heapInUse)]metrics.Sample
	percent int // the GOGC last set
}

// sentinel is an object that only the collector frees: its finalizer runs
// once per collection, and re-arms itself.
type sentinel struct{ t *tuner }

// startTuner starts tuning at MaxGCPercent and returns the tuner.
func startTuner() *tuner {
	t := &tuner{percent: MaxGCPercent}
	t.runs.Store(1)
	for i, name := range heapInUse {
		t.sample[i].Name = name
	}
	t.arm()
	return t
}

// arm sets a sentinel that the next collection finds unreachable.
func (t *tuner) arm() {
	runtime.SetFinalizer(&sentinel{t: t}, afterCollection)
}

// stop ends the tuning; the last GOGC set stays until the caller sets
// another.
func (t *tuner) stop() { t.stopped.Store(true) }

// afterCollection sets GOGC for the live heap the collection left, and
// re-arms for the next one, unless the tuner was stopped.
func afterCollection(s *sentinel) {
	t := s.t
	if t.stopped.Load() {
		return
	}
	metrics.Read(t.sample[:])
	inUse := uint64(0)
	for _, s := range t.sample {
		if s.Value.Kind() != metrics.KindUint64 {
			panic("batchgc: runtime/metrics has no " + s.Name) // both exist since Go 1.16
		}
		inUse += s.Value.Uint64()
	}
	if p := gcPercent(inUse, t.runs.Load()); p != t.percent && !t.stopped.Load() {
		debug.SetGCPercent(p)
		t.percent = p
	}
	t.arm()
}

// gcPercent is the GOGC at which a heap of inUse bytes grows to Threshold
// for each of the runs that share it (RunsAtOnce) before the next
// collection, within MinGCPercent and MaxGCPercent times those runs.
func gcPercent(inUse uint64, runs int64) int {
	runs = max(runs, 1)
	most := float64(MaxGCPercent * runs)
	if inUse == 0 {
		return int(most)
	}
	p := math.Floor(float64(Threshold*runs)/float64(inUse)*100) - 100
	return int(min(max(p, MinGCPercent), most))
}
