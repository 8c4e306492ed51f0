package scenarios

import (
	"encoding/json"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// A run's history does not depend on the runs before it in the process,
// whose recorder tables it may reuse (recorderScratch): the same run, before
// and after a larger one, records the same history.
func TestRecorderScratchLeavesNoTrace(t *testing.T) {
	history := func(sc Scenario, seed uint64) []byte {
		out, err := Execute(sc, seed, Options{})
		require.NoError(t, err)
		return historyJSON(t, out.History)
	}
	small := ThunderingHerd()
	small.Contenders = 3
	want := history(small, 1)
	big := history(Swarm(), 2)
	for range 3 {
		require.Equal(t, want, history(small, 1))
	}
	assert.Equal(t, big, history(Swarm(), 2))
}

// A released outcome's operation tables are reused by the next run
// (putHistory), and that history is the one a new table gives: the same run
// records the same history, and the same verdicts, after a larger or a
// smaller released run.
func TestReleasedOutcomeLeavesNoTrace(t *testing.T) {
	type run struct {
		history []byte
		checks  []byte
	}
	execute := func(sc Scenario, seed uint64, release bool) run {
		out, err := Execute(sc, seed, Options{})
		require.NoError(t, err)
		h := historyJSON(t, out.History)
		c, err := json.Marshal(out.Checks)
		require.NoError(t, err)
		if release {
			out.Release()
			assert.Nil(t, out.History, "a released outcome has no history")
		}
		return run{h, c}
	}
	small := ThunderingHerd()
	small.Contenders = 3
	want, big := execute(small, 1, false), execute(Swarm(), 2, false)
	for range 3 {
		execute(Swarm(), 2, true)
		require.Equal(t, want, execute(small, 1, true), "after a larger released run")
		require.Equal(t, big, execute(Swarm(), 2, true), "after a smaller released run")
	}
}

// A released outcome's operation tables (recordedOps) are handed on to the
// next run, even after collections; a large history's are not, and the
// next run collects them before it starts, once.
func TestReleasedOpTablesAreHandedOn(t *testing.T) {
	opTableSpares.Drop() // earlier tests' tables
	small := ThunderingHerd()
	small.Contenders = 3
	out, err := Execute(small, 1, Options{})
	require.NoError(t, err)
	src, ok := out.History.OpSource().(*recordedOps)
	require.True(t, ok, "the simulator's history gives its operations from the recorder's tables")
	first := src.ops.chunks[0]
	out.Release()
	runtime.GC()
	runtime.GC() // a sync.Pool would be empty now
	var r recorder
	r.takeScratch()
	require.NotEmpty(t, r.ops.chunks)
	assert.Same(t, &first[0], &r.ops.chunks[0][0], "the released tables are reused")
	assert.Empty(t, r.msgs.text, "emptied")

	forced := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumForcedGC
	}
	opTableSpares.Put(&opTables{})
	var h history.History
	h.SetOpSource(&recordedOps{opTables: opTables{ops: chunked[opRec]{chunks: make([][]opRec, maxScratch/(chunkSize*int(unsafe.Sizeof(opRec{})))+1)}}})
	putHistory(&h)
	assert.Zero(t, h.NumOps(), "a released history gives no operations")
	require.True(t, largeReleased.Load())
	assert.Zero(t, opTableSpares.Len(), "a large run lets the spares go")
	before := forced()
	r.takeScratch()
	assert.Equal(t, before+1, forced(), "collected before the run")
	before = forced()
	r.takeScratch()
	assert.Equal(t, before, forced(), "once")

	// Foreign operations are whole history.Operations: they count, and a
	// spare keeps only the tables a run records in, not its source.
	var foreign history.History
	foreign.SetOpSource(&recordedOps{foreign: chunked[history.Operation]{
		chunks: make([][]history.Operation, maxScratch/(chunkSize*int(unsafe.Sizeof(history.Operation{})))+1)}})
	putHistory(&foreign)
	assert.True(t, largeReleased.Swap(false), "a history of many foreign operations is large")
	src = &recordedOps{opTables: opTables{ops: chunked[opRec]{chunks: [][]opRec{make([]opRec, chunkSize)}}},
		foreign: chunked[history.Operation]{chunks: [][]history.Operation{make([]history.Operation, 1)}}}
	var kept history.History
	kept.SetOpSource(src)
	putHistory(&kept)
	spare, ok := opTableSpares.Get()
	require.True(t, ok)
	assert.NotSame(t, &src.opTables, spare, "the spare does not point into the source, which would keep it alive")
	assert.Same(t, &src.ops.chunks[0][0], &spare.ops.chunks[0][0])
}

// A released history's effects, units and beliefs are handed on cleared
// (putHistory), for the next run's history to be built in (sized); a
// large one is not kept.
func TestReleasedTablesAreRecycled(t *testing.T) {
	units := make([]history.UnitDone, 3, 10)
	units[0].Task = "t1"
	got := recycled(units)
	require.Len(t, got, 0)
	require.Equal(t, 10, cap(got))
	assert.Equal(t, make([]history.UnitDone, 10), got[:10], "cleared whole: no string of its run kept alive")
	assert.Nil(t, recycled([]history.UnitDone{}), "an empty table is not kept")
	huge := maxRecycledTable/int(unsafe.Sizeof(history.UnitDone{})) + 1
	assert.Nil(t, recycled(make([]history.UnitDone, huge)), "a large table is not kept")
}

// historyJSON returns h as JSON, with its operations.
func historyJSON(t *testing.T, h *history.History) []byte {
	t.Helper()
	j, err := json.Marshal(struct {
		*history.History
		Ops []history.Operation
	}{h, h.CopyOps()})
	require.NoError(t, err)
	return j
}
