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
		j, err := json.Marshal(out.History)
		require.NoError(t, err)
		return j
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

// A released outcome's operation table is reused by the next run's history
// (takeOps), and that history is the one a new table gives: the same run
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
		h, err := json.Marshal(out.History)
		require.NoError(t, err)
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

// takeOps reuses a released table large enough, whole and cleared, even
// after collections, and allocates when none is.
func TestTakeOpsReusesReleasedTables(t *testing.T) {
	opsSpares.drop() // earlier tests' tables
	ops := make([]history.Operation, 10)
	ops[7].Client, ops[7].Input.Kind = "h1", "acquire"
	putOps(ops[:8])
	runtime.GC()
	runtime.GC() // a sync.Pool would be empty now
	got := takeOps(9)
	require.Len(t, got, 9)
	assert.Same(t, &ops[0], &got[0], "the released table is reused")
	assert.Equal(t, make([]history.Operation, 9), got, "cleared")
	assert.NotSame(t, &ops[0], &takeOps(3)[0], "a table is taken once")
	putOps(make([]history.Operation, 4))
	assert.Len(t, takeOps(5), 5, "a table too small is not used")
	putOps(make([]history.Operation, maxRecycledOps/int(unsafe.Sizeof(history.Operation{}))+1))
	_, kept := opsSpares.get()
	assert.False(t, kept, "a large table is not kept")
	for range runtime.GOMAXPROCS(0) + 1 {
		putOps(make([]history.Operation, 2))
	}
	assert.Len(t, opsSpares.free, runtime.GOMAXPROCS(0), "one spare per processor")
	takeOps(maxRecycledOps/int(unsafe.Sizeof(history.Operation{})) + 1)
	assert.Empty(t, opsSpares.free, "a large run lets the spares go")
}

// A released large table is not handed on: the next run collects it before
// it starts, once.
func TestLargeReleasedTableIsCollectedBeforeTheNextRun(t *testing.T) {
	forced := func() uint32 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.NumForcedGC
	}
	putOps(make([]history.Operation, maxRecycledOps/int(unsafe.Sizeof(history.Operation{}))+1))
	require.True(t, largeReleased.Load())
	before := forced()
	var r recorder
	r.takeScratch()
	assert.Equal(t, before+1, forced(), "collected before the run")
	before = forced()
	r.takeScratch()
	assert.Equal(t, before, forced(), "once")
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
