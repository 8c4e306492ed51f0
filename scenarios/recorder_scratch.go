package scenarios

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/spares"
)

// recorderScratch is the memory of a recorder's compact tables, which a
// finished run hands on to the next run in the process (spares): they hold no
// pointers (but the beliefs' chunks, cleared when handed on), so a run
// that reuses them allocates, clears and faults in none of that memory
// again. Its operations' tables (opTables) go with its history, and are
// handed on when the history is released (putHistory). Only small tables
// are handed on (maxScratch).
type recorderScratch struct {
	calls   callIndex
	units   [][]unitRec
	effects [][]effectRec
	beliefs [][]history.BeliefInterval
}

var (
	scratchSpares spares.Spares[*recorderScratch]
	opTableSpares spares.Spares[*opTables]
)

// largeReleased is set when an outcome released a large history: the next
// run collects before it starts (takeScratch). Left to the collector's
// pace, the history (and the rest of its run) stayed in the heap through
// the whole next run, whose own allocations piled on top of it: the heap
// goal a large run leaves is twice its history, and the 500-contender
// herd's heap reached 61 MB for a 37 MB history.
var largeReleased atomic.Bool

// takeScratch gives r an earlier run's tables, emptied, if there are
// spares, once a large released history is collected (largeReleased).
func (r *recorder) takeScratch() {
	if largeReleased.Swap(false) {
		runtime.GC()
	}
	t, _ := tableSpares.Get()
	r.spareEffects, r.spareUnits, r.beliefs.spare = t.effects, t.units, t.beliefs
	if o, ok := opTableSpares.Get(); ok {
		r.requests.chunks, r.ops.chunks, r.msgs.chunks, r.msgs.text = o.requests.chunks, o.ops.chunks, o.msgs.chunks, o.msgs.text[:0]
	}
	if s, ok := scratchSpares.Get(); ok {
		r.units.chunks, r.effects.chunks, r.beliefs.beliefs.chunks = s.units, s.effects, s.beliefs
		r.calls = s.calls.emptied()
	}
}

// maxRecycledTable bounds, in bytes, a released history's effects, units
// or beliefs table that is handed on (recycled).
const maxRecycledTable = 256 << 10

// maxScratch is the most memory a run's tables (its opTables, or the rest)
// may hold to be handed on: a large run's would stay in memory beside its
// own history while it is checked, and raise its peak (the 500-contender
// herd's by half).
const maxScratch = 2 << 20

// putScratch hands r's tables but its opTables on, once the history is
// built from them, unless they are large.
func (r *recorder) putScratch() {
	s := &recorderScratch{calls: r.calls, units: r.units.chunks, effects: r.effects.chunks, beliefs: r.beliefs.beliefs.chunks}
	size := (len(s.units)*int(unsafe.Sizeof(unitRec{}))+len(s.effects)*int(unsafe.Sizeof(effectRec{}))+
		len(s.beliefs)*int(unsafe.Sizeof(history.BeliefInterval{})))*chunkSize + s.calls.bytes()
	if size > maxScratch {
		return
	}
	for _, c := range s.beliefs {
		clear(c) // they hold the run's strings
	}
	scratchSpares.Put(s)
}

// historyTables are a released history's effects, units and beliefs,
// cleared, for a later run's history to be built in (sized).
type historyTables struct {
	effects []history.SideEffect
	units   []history.UnitDone
	beliefs []history.BeliefInterval
}

var tableSpares spares.Spares[historyTables]

// putHistory hands the tables of h, a released outcome's history, on to
// later runs: its operations' (putOps), and its effects, units and beliefs
// (tableSpares) unless one is larger than maxRecycledTable.
func putHistory(h *history.History) {
	putOps(h)
	t := historyTables{effects: recycled(h.Effects), units: recycled(h.Units), beliefs: recycled(h.Beliefs)}
	if t.effects != nil || t.units != nil || t.beliefs != nil {
		tableSpares.Put(t)
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

// putOps hands the tables h's operations are built from on (recordedOps),
// unless they are large: then the next run to start collects them first
// (largeReleased), and the spares are let go, so that they do not add to
// the large run's peak either.
func putOps(h *history.History) {
	src, ok := h.OpSource().(*recordedOps)
	if !ok {
		return
	}
	h.SetOps(nil)
	if src.bytes() > maxScratch {
		largeReleased.Store(true)
		opTableSpares.Drop()
		scratchSpares.Drop()
		return
	}
	// Only the tables a run records in: the spare must not keep the rest of
	// the source (its foreign operations, names and strings) alive.
	opTableSpares.Put(&opTables{ops: src.ops, requests: src.requests, msgs: msgTable{chunks: src.msgs.chunks, text: src.msgs.text}})
}
