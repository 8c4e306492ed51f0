package checker

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

func TestBehavioursAreNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range Behaviours() {
		require.NotEmpty(t, b.Name)
		require.NotEmpty(t, b.Doc, b.Name)
		require.False(t, seen[b.Name], "%s listed twice", b.Name)
		seen[b.Name] = true
	}
	assert.Len(t, Behaviours(), int(behaviourCount))
}

// Each crafted history reaches exactly the behaviours it was built for.
func TestCover(t *testing.T) {
	tests := []struct {
		name string
		h    *hb
		want []string
	}{
		{"empty", newHistory(), nil},
		{"a grant, then a stale write fenced", newHistory().
			acquire("h1", "lock", 1, at(0)).
			acquire("h2", "lock", 2, at(6000)).
			write("h2", "lock", 2, at(6100), lease.CodeOK).
			write("h1", "lock", 1, at(6200), lease.CodeFenced),
			[]string{"acquire-granted", "write-accepted", "write-fenced"}},
		{"a held lease refuses, a lost reply", newHistory().
			acquire("h1", "lock", 1, at(0)).
			refused("h2", "lock", at(100), lease.CodeHeld).lost(),
			[]string{"acquire-granted", "acquire-refused-held", "reply-lost"}},
		{"a grant arriving after its TTL", newHistory().
			acquire("h1", "lock", 1, at(7000)).calledAt(at(0)),
			[]string{"acquire-granted", "reply-after-deadline"}},
		{"a belief ended at its deadline while its holder was paused", newHistory().
			beliefEnded("h1", "lock", 1, at(0), at(5000), history.EndDeadline).
			fault(history.FaultPause, "h1", at(3000), at(9000)),
			[]string{"belief-ended-deadline", "expiry-during-pause"}},
		{"the grantor crashed under a live lease", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			fault(history.FaultCrash, "grantor", at(2000), at(4000)),
			[]string{"belief-ended-deadline", "grantor-crash-live-lease"}},
		{"a crash with no live lease is not counted", newHistory().
			belief("h1", "lock", 1, at(0), at(1000)).
			fault(history.FaultCrash, "grantor", at(2000), at(4000)),
			[]string{"belief-ended-deadline"}},
		{"a task moved and a unit ran twice", newHistory().
			units("t1", "w1", 1, 0, 3, at(1000)).
			units("t1", "w2", 2, 2, 4, at(9000)),
			[]string{"handoff", "unit-reexecuted"}},
		{"a duplicate effect", newHistory().effect("lock", "mail-1", at(1)).effect("lock", "mail-1", at(2)),
			[]string{"duplicate-effect"}},
		{"drift beyond rho", newHistory().drift(30_000_000), []string{"drift-beyond-rho"}},
		{"a holder believed through its pause", newHistory().
			belief("h1", "lock", 1, at(0), at(9000)).
			fault(history.FaultPause, "h1", at(2000), at(4000)),
			[]string{"belief-ended-deadline", "belief-through-fault"}},
		{"a holder believed through a partition that named it", newHistory().
			belief("h1", "lock", 1, at(0), at(9000)).
			faultDetail(history.FaultPartition, "", "", "[h1] | [grantor h2]", at(1000), at(3000)),
			[]string{"belief-ended-deadline", "belief-through-fault"}},
		{"a partition of others is not the holder's", newHistory().
			belief("h1", "lock", 1, at(0), at(9000)).
			faultDetail(history.FaultPartition, "", "", "[h2] | [grantor]", at(1000), at(3000)),
			[]string{"belief-ended-deadline"}},
		{"another holder began to believe while the first was paused", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			fault(history.FaultPause, "h1", at(2000), at(6000)).
			belief("h2", "lock", 2, at(3000), at(8000)),
			[]string{"belief-ended-deadline", "expiry-during-pause", "grant-while-paused"}},
		{"the lease changed hands while a write was in flight", newHistory().
			writeSent("h1", "lock", 1, at(1000), at(3000)).
			belief("h2", "lock", 2, at(2000), at(4000)),
			[]string{"write-accepted", "belief-ended-deadline", "hands-changed-mid-write"}},
		{"the writer's own new belief is no change of hands", newHistory().
			writeSent("h1", "lock", 1, at(1000), at(3000)).
			belief("h1", "lock", 2, at(2000), at(4000)),
			[]string{"write-accepted", "belief-ended-deadline"}},
		{"a stale write at a key the later token had not written", newHistory().
			writeKey("h2", "ledger", "k1", 2, at(100), lease.CodeOK).
			writeKey("h1", "ledger", "k2", 1, at(200), lease.CodeFenced),
			[]string{"write-accepted", "write-fenced", "stale-write-untouched-key"}},
		{"a stale write at a key the later token wrote is not", newHistory().
			writeKey("h2", "ledger", "k1", 2, at(100), lease.CodeOK).
			writeKey("h2", "ledger", "k2", 2, at(150), lease.CodeOK).
			writeKey("h1", "ledger", "k2", 1, at(200), lease.CodeFenced),
			[]string{"write-accepted", "write-fenced"}},
		{"a store that accepts the stale write reaches it too", newHistory().
			writeKey("h2", "ledger", "k1", 2, at(100), lease.CodeOK).
			writeKey("h1", "ledger", "k2", 1, at(200), lease.CodeOK),
			[]string{"write-accepted", "stale-write-untouched-key"}},
		{"a read of a key whose latest write was refused", newHistory().
			writeKey("h2", "ledger", "k1", 2, at(100), lease.CodeOK).
			writeKey("h1", "ledger", "k1", 1, at(200), lease.CodeFenced).
			read("h2", "ledger", "k1", 2, at(300), "v", 2),
			[]string{"write-accepted", "write-fenced", "read-after-fenced-write"}},
		{"an accepted write after the refused one ends it", newHistory().
			writeKey("h2", "ledger", "k1", 2, at(100), lease.CodeOK).
			writeKey("h1", "ledger", "k1", 1, at(200), lease.CodeFenced).
			writeKey("h2", "ledger", "k1", 2, at(250), lease.CodeOK).
			read("h2", "ledger", "k1", 2, at(300), "v", 2).
			read("h2", "ledger", "k2", 2, at(300), "", 0),
			[]string{"write-accepted", "write-fenced"}},
		{"an inferred belief counts for none of them", newHistory().
			writeSent("h1", "lock", 1, at(1000), at(3000)).
			inferred("h2", "lock", 2, at(2000)),
			[]string{"write-accepted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Cover(tc.h.build()).Reached())
		})
	}
}

// A request from an earlier incarnation processed after a later one's.
func TestCoverEarlierIncarnation(t *testing.T) {
	h := newHistory().acquire("h1", "lock", 1, at(0)).acquire("h1", "lock", 2, at(100)).build()
	editOp(h, 0, func(op *history.Operation) { op.Incarnation, op.ID = 2, 1 }) // incarnation 2, processed first
	editOp(h, 1, func(op *history.Operation) { op.Incarnation, op.ID = 1, 9 }) // incarnation 1, processed after
	assert.Contains(t, Cover(h).Reached(), "earlier-incarnation")
}

// A request processed twice or more counts once, whatever the order of its
// operations; the same id from another client or incarnation is another
// request.
func TestProcessedTwice(t *testing.T) {
	op := func(client string, inc, id uint64) history.Operation {
		return history.Operation{Client: client, Incarnation: inc, ID: id}
	}
	for _, tc := range []struct {
		name string
		ops  []history.Operation
		want int
	}{
		{"none", nil, 0},
		{"distinct", []history.Operation{op("h1", 1, 1), op("h2", 1, 1), op("h1", 2, 1), op("h1", 1, 2)}, 0},
		{"twice apart", []history.Operation{op("h1", 1, 1), op("h2", 1, 1), op("h1", 1, 1)}, 1},
		{"three times", []history.Operation{op("h1", 1, 7), op("h1", 1, 7), op("h1", 1, 7)}, 1},
		{"two requests", []history.Operation{op("h2", 3, 1), op("h1", 1, 1), op("h2", 3, 1), op("h1", 1, 1)}, 2},
		{"out of order, none twice", []history.Operation{op("h1", 1, 5), op("h1", 1, 3), op("h1", 1, 4)}, 0},
		{"out of order, then twice", []history.Operation{op("h1", 1, 5), op("h1", 1, 3), op("h1", 1, 3),
			op("h1", 1, 5), op("h1", 1, 4)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, processedTwice(opRows(withOps(&history.History{}, tc.ops))))
		})
	}
	// Against a plain count of every request, on random histories: ids
	// dense (counted in bits) and spread across the id space (sorted).
	spread := []uint64{0, 5, 1 << 40, 1<<63 + 2, math.MaxUint64}
	r := rand.New(rand.NewPCG(14, 2))
	paths := map[bool]int{} // by whether twiceByBits counted
	for round := range 1000 {
		ops := make([]history.Operation, r.IntN(40))
		times := make(map[[3]uint64]int)
		for i := range ops {
			id := uint64(r.IntN(12))
			if round%2 == 1 {
				id = spread[r.IntN(len(spread))]
			}
			ops[i] = op(fmt.Sprint("h", r.IntN(3)), uint64(r.IntN(2)), id)
			times[[3]uint64{uint64(ops[i].Client[1]), ops[i].Incarnation, ops[i].ID}]++
		}
		want := 0
		for _, n := range times { // counted: order does not matter
			if n >= 2 {
				want++
			}
		}
		rows, lives := opRows(withOps(&history.History{}, ops))
		require.Equal(t, want, processedTwice(rows, lives), "%v", ops)
		if ids, noted := noteLives(rows, lives); noted {
			_, ok := twiceByBits(rows, ids)
			paths[ok]++
		}
	}
	assert.Greater(t, paths[true], 100, "histories counted in bits")
	assert.Greater(t, paths[false], 100, "histories sorted")
}

// coverWork counts re-executed units and handoffs as a plain count of
// every (task, index) and each task's previous worker would, on random
// units, indices far apart among them.
func TestCoverWorkCountsUnits(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 3))
	indices := []int{0, 1, 2, 3, 7, maxDenseUnit - 1, maxDenseUnit, 1 << 40, -1}
	for range 300 {
		h := &history.History{}
		type key struct {
			task  string
			index int
		}
		done, last := map[key]bool{}, map[string]string{}
		var want Coverage
		for range r.IntN(30) {
			u := history.UnitDone{Task: fmt.Sprint("t", r.IntN(3)), Index: indices[r.IntN(len(indices))],
				Worker: fmt.Sprint("w", r.IntN(3))}
			h.Units = append(h.Units, u)
			k := key{u.Task, u.Index}
			if done[k] {
				want[bUnitReexecuted]++
			}
			done[k] = true
			if w, ok := last[u.Task]; ok && w != u.Worker {
				want[bHandoff]++
			}
			last[u.Task] = u.Worker
		}
		var got Coverage
		coverWork(newAnalysis(h), &got)
		require.Equal(t, want, got, "%v", h.Units)
	}
}
