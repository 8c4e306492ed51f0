package scenarios

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/leasesim/leasesim/history"
)

// recorderScratch is the memory of a recorder's compact tables, which a
// finished run hands on to the next run in the process: they hold no
// pointers (but the beliefs' chunks, cleared when handed on), and the
// history is built from them only once, so a run that reuses them
// allocates, clears and faults in none of that memory again. Only small
// tables are handed on (maxScratch).
type recorderScratch struct {
	requests [][]call
	ops      [][]opRec
	chunks   []*msgChunk
	text     []byte
	calls    callIndex
	units    [][]unitRec
	effects  [][]effectRec
	beliefs  [][]history.BeliefInterval
}

var scratchSpares spares[*recorderScratch]

// spares keeps a few values that finished runs hand on, for later runs in
// the process: one per processor (GOMAXPROCS), as many as run at once.
// Unlike a sync.Pool it keeps them through collections (a pool empties at
// the second collection after a Put, and a Get on one processor does not
// see what another put in its private slot: one swarm run in five or more
// missed the table the run before it had released, and allocated its
// own). A run too large to hand its tables on lets the spares go (drop),
// so that they do not add to its peak.
type spares[T any] struct {
	mu   sync.Mutex
	free []T
}

// get takes a spare, if there is one.
func (s *spares[T]) get() (v T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.free)
	if n == 0 {
		return v, false
	}
	v = s.free[n-1]
	clear(s.free[n-1:])
	s.free = s.free[:n-1]
	return v, true
}

// put keeps v, unless there are spares enough.
func (s *spares[T]) put(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.free) < runtime.GOMAXPROCS(0) {
		s.free = append(s.free, v)
	}
}

// drop lets every spare go.
func (s *spares[T]) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.free)
	s.free = s.free[:0]
}

// largeReleased is set when an outcome released a large history table:
// the next run collects before it starts (takeScratch). Left to the
// collector's pace, the table (and the rest of its run) stayed in the heap
// through the whole next run, whose own allocations piled on top of it:
// the heap goal a large run leaves is twice its history, and the
// 500-contender herd's heap reached 61 MB for a 37 MB history.
var largeReleased atomic.Bool

// takeScratch gives r an earlier run's tables, emptied, if there are
// spares, once a large released history is collected (largeReleased).
func (r *recorder) takeScratch() {
	if largeReleased.Swap(false) {
		runtime.GC()
	}
	t, _ := tableSpares.get()
	r.spareEffects, r.spareUnits, r.beliefs.spare = t.effects, t.units, t.beliefs
	s, ok := scratchSpares.get()
	if !ok {
		return
	}
	r.requests.chunks, r.ops.chunks, r.msgs.chunks, r.msgs.text = s.requests, s.ops, s.chunks, s.text[:0]
	r.units.chunks, r.effects.chunks, r.beliefs.beliefs.chunks = s.units, s.effects, s.beliefs
	r.calls = s.calls.emptied()
}

// maxRecycledTable bounds, in bytes, a released history's effects, units
// or beliefs table that is handed on (recycled).
const maxRecycledTable = 256 << 10

// maxScratch is the most memory a run's tables may hold to be handed on:
// a large run's would stay in memory beside its own history while it is
// checked, and raise its peak (the 500-contender herd's by half).
const maxScratch = 2 << 20

// putScratch hands r's tables on, once the history is built from them,
// unless they are large.
func (r *recorder) putScratch() {
	s := &recorderScratch{requests: r.requests.chunks, ops: r.ops.chunks, chunks: r.msgs.chunks, text: r.msgs.text,
		calls: r.calls, units: r.units.chunks, effects: r.effects.chunks, beliefs: r.beliefs.beliefs.chunks}
	size := (len(s.requests)*int(unsafe.Sizeof(call{}))+len(s.ops)*int(unsafe.Sizeof(opRec{}))+
		len(s.units)*int(unsafe.Sizeof(unitRec{}))+len(s.effects)*int(unsafe.Sizeof(effectRec{}))+
		len(s.beliefs)*int(unsafe.Sizeof(history.BeliefInterval{})))*chunkSize + cap(s.text) + s.calls.bytes()
	for _, c := range s.chunks {
		size += int(unsafe.Sizeof(*c)) + cap(c.data)
	}
	if size > maxScratch {
		return
	}
	for _, c := range s.beliefs {
		clear(c) // they hold the run's strings
	}
	scratchSpares.put(s)
}

// opsSpares holds the operation tables of histories whose outcomes were
// released (Outcome.Release), cleared, for later runs' histories.
var opsSpares spares[[]history.Operation]

// maxRecycledOps is the largest operation table, in bytes, that a released
// outcome hands on: a large one would sit in memory through the next run
// (a large run's history is built once, and its run costs far more than
// the allocation).
const maxRecycledOps = 8 << 20

// takeOps returns a zero table of n operations: a released one if a spare
// is large enough, else a new one. A new table that may be handed on
// has a quarter more room than it needs, so that the next run's history,
// which may be somewhat longer (another seed), fits in it too.
//
// A larger table is collected for first, the spares let go. It is the
// run's one large allocation, and it comes when the run's garbage may have brought the heap
// near the collector's goal: allocated on top of that, it raised the heap
// to the goal plus itself (the 500-contender herd's peak resident set was
// 130-165 MB on some runs, 100 MB on others, by where the cycles fell).
// Collecting first leaves only the live tables under it, and costs one
// collection of them, a few milliseconds against a run of a tenth of a
// second or more; the collection that the allocation would have started
// is not needed then.
func takeOps(n int) []history.Operation {
	if ops, ok := opsSpares.get(); ok && cap(ops) >= n {
		return ops[:n]
	}
	size := int(unsafe.Sizeof(history.Operation{}))
	if room := n + n/4; room*size <= maxRecycledOps {
		return make([]history.Operation, n, room)
	}
	opsSpares.drop()
	scratchSpares.drop()
	runtime.GC()
	return make([]history.Operation, n)
}

// historyTables are a released history's effects, units and beliefs,
// cleared, for a later run's history to be built in (sized).
type historyTables struct {
	effects []history.SideEffect
	units   []history.UnitDone
	beliefs []history.BeliefInterval
}

var tableSpares spares[historyTables]

// putHistory hands the tables of h, a released outcome's history, on to
// later runs: its operations (putOps), and its effects, units and beliefs
// (tableSpares) unless one is larger than maxRecycledTable.
func putHistory(h *history.History) {
	putOps(h.Ops)
	t := historyTables{effects: recycled(h.Effects), units: recycled(h.Units), beliefs: recycled(h.Beliefs)}
	if t.effects != nil || t.units != nil || t.beliefs != nil {
		tableSpares.put(t)
	}
}

// recycled returns s whole and cleared (so that it keeps no string of its
// run alive), or nil if it is empty or larger than maxRecycledTable bytes.
func recycled[S ~[]E, E any](s S) S {
	var e E
	if cap(s) == 0 || cap(s)*int(unsafe.Sizeof(e)) > maxRecycledTable {
		return nil
	}
	s = s[:cap(s)]
	clear(s)
	return s[:0]
}

// putOps hands ops on, cleared (whole, so that it keeps no string of its
// run alive), unless it is large: then the next run to start collects it
// first (largeReleased).
func putOps(ops []history.Operation) {
	if cap(ops)*int(unsafe.Sizeof(history.Operation{})) > maxRecycledOps {
		largeReleased.Store(true)
		return
	}
	if cap(ops) == 0 {
		return
	}
	ops = ops[:cap(ops)]
	clear(ops)
	opsSpares.put(ops)
}
