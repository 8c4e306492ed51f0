package sim

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestQueuePopsInTimeThenSequenceOrder drives the queue with random pushes
// (many at equal times), takes with and without a replacing push, pops and
// filters, against a reference that keeps every event and sorts. Whatever
// the operations, events leave in (time, insertion sequence) order.
func TestQueuePopsInTimeThenSequenceOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q queue
		var ref []event // every queued event, unordered
		now := Time(0)
		refPop := func() event {
			i := 0
			for j := range ref {
				if less(&ref[j], &ref[i]) == 1 {
					i = j
				}
			}
			e := ref[i]
			ref = slices.Delete(ref, i, i+1)
			return e
		}
		push := func(label string) {
			at := now + Time(rapid.Int64Range(0, 5).Draw(t, label)) // narrow: many ties
			kind := eventKind(rapid.IntRange(0, 1).Draw(t, "kind"))
			q.push(at, kind, 0, 0)
			ref = append(ref, event{at: at, key: q.seq<<1 | uint64(kind)})
		}
		for range rapid.IntRange(1, 300).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 4 || len(ref) == 0:
				push("at")
			case op < 6:
				got, want := q.pop(), refPop()
				require.Equal(t, want.key, got.key, "pop")
				now = got.at
			case op < 8:
				got, want := q.take(), refPop()
				require.Equal(t, want.key, got.key, "take")
				now = got.at
				if rapid.Bool().Draw(t, "replace") {
					push("replacement")
				}
				q.finish()
			default:
				drop := rapid.IntRange(0, 3).Draw(t, "drop_mod")
				keep := func(e *event) bool { return drop == 0 || e.key%uint64(drop+1) != 0 }
				q.filter(keep)
				ref = slices.DeleteFunc(ref, func(e event) bool { return !keep(&e) })
			}
			require.Equal(t, len(ref), q.len())
		}
		slices.SortFunc(ref, func(a, b event) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.key, b.key)) })
		for _, want := range ref {
			got := q.pop()
			require.Equal(t, want.at, got.at)
			require.Equal(t, want.key, got.key)
		}
		require.Zero(t, q.len())
	})
}

func TestLessIsLexicographic(t *testing.T) {
	tests := []struct {
		a, b event
		want int
	}{
		{event{at: 1, key: 9}, event{at: 2, key: 1}, 1},
		{event{at: 2, key: 1}, event{at: 1, key: 9}, 0},
		{event{at: 5, key: 2}, event{at: 5, key: 3}, 1},
		{event{at: 5, key: 3}, event{at: 5, key: 2}, 0},
		{event{at: 5, key: 3}, event{at: 5, key: 3}, 0},
		{event{at: Never, key: 1}, event{at: 0, key: 2}, 0},
		{event{at: 0, key: 1 << 63}, event{at: Never, key: 0}, 1},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, less(&tc.a, &tc.b), "%+v < %+v", tc.a, tc.b)
	}
}
