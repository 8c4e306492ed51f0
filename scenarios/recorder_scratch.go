package scenarios

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/leasesim/leasesim/history"
)

// This file keeps the event host's recorder tables from one run for the
// next in the same process (a sweep runs thousands, one after another on
// each processor), so that a run does not allocate, clear and fault in the
// same memory again. It is the host's own business: no caller is told of
// it, and nothing a caller can hold is ever reused. The recorder's scratch
// tables are handed on when it has built the history from them
// (putScratch); the tables a history's operations are read from
// (recordedOps) only once the runtime finds the source unreachable
// (handOnWhenUnreachable). A run's history does not depend on earlier runs
// (TestEarlierRunsLeaveNoTrace).

// recorderScratch is a recorder's compact tables that the history does not
// keep: they hold no pointers (but the beliefs' chunks, cleared when
// handed on).
type recorderScratch struct {
	calls     callIndex
	units     [][]unitRec
	effects   [][]effectRec
	sightings [][]sightRec
	beliefs   [][]history.BeliefInterval
}

var (
	scratchSpares spareList[*recorderScratch]
	opTableSpares spareList[*opTables]
)

// maxScratch is the most memory a run's tables (its opTables, or the rest)
// may hold to be handed on: a large run's would stay in memory beside the
// next run's and raise its peak.
const maxScratch = 2 << 20

// takeScratch gives r an earlier run's tables, emptied, if there are any.
func (r *recorder) takeScratch() {
	if o, ok := opTableSpares.get(); ok {
		r.requests.chunks, r.ops.chunks, r.msgs.chunks, r.msgs.text = o.requests.chunks, o.ops.chunks, o.msgs.chunks, o.msgs.text[:0]
	}
	if s, ok := scratchSpares.get(); ok {
		r.units.chunks, r.effects.chunks, r.beliefs.beliefs.chunks = s.units, s.effects, s.beliefs
		r.sightings.chunks = s.sightings
		r.calls = s.calls.emptied()
	}
}

// putScratch hands r's tables but its opTables on, once the history is
// built from them, unless they are large.
func (r *recorder) putScratch() {
	s := &recorderScratch{calls: r.calls, units: r.units.chunks, effects: r.effects.chunks,
		sightings: r.sightings.chunks, beliefs: r.beliefs.beliefs.chunks}
	size := (len(s.units)*int(unsafe.Sizeof(unitRec{}))+len(s.effects)*int(unsafe.Sizeof(effectRec{}))+
		len(s.sightings)*int(unsafe.Sizeof(sightRec{}))+
		len(s.beliefs)*int(unsafe.Sizeof(history.BeliefInterval{})))*chunkSize + s.calls.bytes()
	if size > maxScratch {
		return
	}
	for _, c := range s.beliefs {
		clear(c) // they hold the run's strings
	}
	scratchSpares.put(s, size)
}

// handOnWhenUnreachable hands src's tables on to a later run once src is
// unreachable (runtime.AddCleanup), unless they are large. Only the
// tables a run records in go, never src itself: what src gives its
// readers (strings cut from src.text, names, registrations) is never in
// them, so no value a caller kept changes.
func handOnWhenUnreachable(src *recordedOps) {
	t := &opTables{ops: src.ops, requests: src.requests, msgs: msgTable{chunks: src.msgs.chunks, text: src.msgs.text}}
	if t.bytes() > maxScratch {
		return
	}
	runtime.AddCleanup(src, putOpTables, t)
}

// putOpTables keeps t, an unreachable run's tables, for a later run.
func putOpTables(t *opTables) { opTableSpares.put(t, t.bytes()) }

// bytes returns the memory the tables hold.
func (t *opTables) bytes() int {
	size := (len(t.requests.chunks)*int(unsafe.Sizeof(call{})) + len(t.ops.chunks)*int(unsafe.Sizeof(opRec{}))) * chunkSize
	size += cap(t.msgs.text)
	for _, c := range t.msgs.chunks {
		size += int(unsafe.Sizeof(*c)) + cap(c.data)
	}
	return size
}

// spareList keeps spares up to sparesBytesPerProc of memory per processor
// (GOMAXPROCS). Unlike a sync.Pool it keeps them through collections (a
// pool empties at the second collection after a put, and a swarm run in
// five or more missed the tables the run before it had left). Safe for
// concurrent use; the zero value is empty.
type spareList[T any] struct {
	mu    sync.Mutex
	free  []spare[T]
	bytes int // the memory the spares hold
}

// spare is a value kept and the memory it holds.
type spare[T any] struct {
	v     T
	bytes int
}

// get takes a spare, if there is one.
func (s *spareList[T]) get() (v T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.free)
	if n == 0 {
		return v, false
	}
	e := s.free[n-1]
	clear(s.free[n-1:])
	s.free = s.free[:n-1]
	s.bytes -= e.bytes
	return e.v, true
}

// sparesBytesPerProc bounds a spare list by memory, not by count.
// Operation tables come back in a burst, every run's since the last
// collection at once (handOnWhenUnreachable), and the runs after it take
// them one by one; a small run's tables are a few tens of kilobytes, and
// at the default GOGC tens of small runs pass between collections. Kept by
// count, four per processor, clock-drift and thundering-herd went 22 and 2
// runs of 40 without tables; by memory they take what the runs between
// two collections left (the Scenario benchmarks' summed B/op fell by 7%).
// The bound is what four of the largest tables kept (maxScratch) would
// hold.
const sparesBytesPerProc = 4 * maxScratch

// put keeps v, which holds bytes of memory, unless the spares hold enough.
func (s *spareList[T]) put(v T, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes+bytes <= sparesBytesPerProc*runtime.GOMAXPROCS(0) {
		s.free = append(s.free, spare[T]{v, bytes})
		s.bytes += bytes
	}
}
