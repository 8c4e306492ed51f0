package scenarios

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// Units and effects, recorded compactly while the run goes (unitRec,
// effectRec), come out as the workers did them: every effect that reached
// its sink is named "task/index" after a unit its sender's life did
// before, on that task, and the strings cut from the recorder's shared
// text are whole.
func TestRecorderWorkMatchesUnits(t *testing.T) {
	out, err := Execute(WorkerCrashHandoff(), 3, Options{})
	require.NoError(t, err)
	h := out.History
	require.NotEmpty(t, h.Units, "the scenario's workers did no work")
	require.NotEmpty(t, h.Effects, "no side effect reached its sink")
	type doer struct {
		id, worker  string
		incarnation uint64
	}
	done := make(map[doer]history.Time) // when each was first done
	for _, u := range h.Units {
		if d := (doer{u.Task + "/" + strconv.Itoa(u.Index), u.Worker, u.Incarnation}); done[d] == 0 {
			done[d] = u.At // the first time: a unit can be redone
		}
	}
	for i, e := range h.Effects {
		at, ok := done[doer{e.ID, e.From, e.Incarnation}]
		if assert.True(t, ok, "effect %d (%s by %s) names no unit its sender did", i, e.ID, e.From) {
			assert.LessOrEqual(t, at, e.At, "effect %d reached its sink before its unit was done", i)
		}
		assert.True(t, strings.HasPrefix(e.ID, e.Resource+"/"), "effect %d: id %q, resource %q", i, e.ID, e.Resource)
	}
}

// sized gives a table of the length asked for, nil when it is empty (as a
// history that recorded none has it).
func TestSized(t *testing.T) {
	for _, n := range []int{0, 1, 9} {
		got := sized[[]int](n)
		assert.Len(t, got, n)
		assert.Equal(t, n == 0, got == nil, "n=%d", n)
	}
}
