package scenarios

import (
	"math/bits"
	"runtime"
	"sync"
	"unsafe"

	"github.com/leasesim/leasesim/history"
)

// recorderScratch is the memory of a recorder's compact tables, which a
// finished run hands on to the next run in the process: they hold no
// pointers, and the history is built from them only once, so a run that
// reuses them allocates, clears and faults in none of that memory again.
// Only small tables are handed on (maxScratch), and the pool lets them go
// when the collector finds them unused.
type recorderScratch struct {
	requests [][]call
	ops      [][]opRec
	chunks   []*msgChunk
	text     []byte
	slots    []int32
}

var scratchPool sync.Pool // of *recorderScratch

// takeScratch gives r an earlier run's tables, emptied, if the pool has
// them.
func (r *recorder) takeScratch() {
	s, _ := scratchPool.Get().(*recorderScratch)
	if s == nil {
		return
	}
	clear(s.slots)
	r.requests.chunks, r.ops.chunks, r.msgs.chunks, r.msgs.text = s.requests, s.ops, s.chunks, s.text[:0]
	r.calls = callIndex{slots: s.slots}
	if len(s.slots) > 0 {
		r.calls.shift = uint(64 - bits.TrailingZeros(uint(len(s.slots))))
	}
}

// maxScratch is the most memory a run's tables may hold to be handed on:
// a large run's would stay in memory beside its own history while it is
// checked, and raise its peak (the 500-contender herd's by half).
const maxScratch = 2 << 20

// putScratch hands r's tables on, once the history is built from them,
// unless they are large.
func (r *recorder) putScratch() {
	s := &recorderScratch{requests: r.requests.chunks, ops: r.ops.chunks, chunks: r.msgs.chunks, text: r.msgs.text,
		slots: r.calls.slots}
	size := (len(s.requests)*int(unsafe.Sizeof(call{}))+len(s.ops)*int(unsafe.Sizeof(opRec{})))*chunkSize +
		cap(s.text) + 4*cap(s.slots)
	for _, c := range s.chunks {
		size += int(unsafe.Sizeof(*c)) + cap(c.data)
	}
	if size <= maxScratch {
		scratchPool.Put(s)
	}
}

// opsPool holds the operation tables of histories whose outcomes were
// released (Outcome.Release), cleared, for later runs' histories.
var opsPool sync.Pool // of *[]history.Operation

// maxRecycledOps is the largest operation table, in bytes, that a released
// outcome hands on: a large one would sit in memory through the next run
// (a large run's history is built once, and its run costs far more than
// the allocation).
const maxRecycledOps = 8 << 20

// takeOps returns a zero table of n operations: a released one if the pool
// has one large enough, else a new one. A new table that may be handed on
// has a quarter more room than it needs, so that the next run's history,
// which may be somewhat longer (another seed), fits in it too.
//
// A larger table is collected for first. It is the run's one large
// allocation, and it comes when the run's garbage may have brought the heap
// near the collector's goal: allocated on top of that, it raised the heap
// to the goal plus itself (the 500-contender herd's peak resident set was
// 130-165 MB on some runs, 100 MB on others, by where the cycles fell).
// Collecting first leaves only the live tables under it, and costs one
// collection of them, a few milliseconds against a run of a tenth of a
// second or more; the collection that the allocation would have started
// is not needed then.
func takeOps(n int) []history.Operation {
	if p, _ := opsPool.Get().(*[]history.Operation); p != nil && cap(*p) >= n {
		return (*p)[:n]
	}
	size := int(unsafe.Sizeof(history.Operation{}))
	if room := n + n/4; room*size <= maxRecycledOps {
		return make([]history.Operation, n, room)
	}
	runtime.GC()
	return make([]history.Operation, n)
}

// putOps hands ops on, cleared (whole, so that it keeps no string of its
// run alive), unless it is large.
func putOps(ops []history.Operation) {
	if cap(ops) == 0 || cap(ops)*int(unsafe.Sizeof(history.Operation{})) > maxRecycledOps {
		return
	}
	ops = ops[:cap(ops)]
	clear(ops)
	opsPool.Put(&ops)
}
