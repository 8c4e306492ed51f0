package checker

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"
)

// orderByGrantorTime narrows the lease-store operations by grantor time and
// breaks ties in their calls in grantor-time order, without changing any
// verdict (see narrowByGrantorTime and breakTies). It returns the factor by
// which it scaled time, for annotations.
//
// This is what keeps porcupine fast on these histories. porcupine tries the
// pending operations in order of call and backtracks when an operation it
// passed by returns; the specification orders each resource's operations by
// grantor time. Without narrowing, porcupine tries a request that the
// network delayed before those the grantor processed first, and an
// operation whose reply never returned stays open to the end of the run, so
// the search, having passed it by, learns that only there: exponential in
// the number of such operations. With it, the first legal pending operation
// is the next one in grantor time, and a history that is linearizable is
// found so in about one pass.
func orderByGrantorTime(ops []porcupine.Operation) int64 {
	return breakTies(ops, narrowByGrantorTime(ops))
}

// narrowByGrantorTime narrows each lease-store operation to the part of its
// interval where the specification can place it: after every call of an
// operation on its resource with an earlier grantor reading, and before
// every return of one with a later reading. The specification orders a
// resource's operations by reading, so in every legal order an operation
// comes after each one with an earlier reading, itself placed after its own
// call, and before each one with a later reading, placed before its return:
// the narrowed history is linearizable exactly when the original is. Where
// the two bounds cross, no order is legal, and the operation keeps its
// interval.
//
// It returns each operation's rank: the index of its reading among the
// distinct readings on its resource, 0 for fenced-register operations.
func narrowByGrantorTime(ops []porcupine.Operation) []int {
	ranks := make([]int, len(ops))
	byResource := make(map[string][]int) // looked up and visited in any order: resources are independent
	for i, op := range ops {
		if in := &inputOf(op.Input).Input; !isRegisterOp(in.Kind) {
			byResource[in.Resource] = append(byResource[in.Resource], i)
		}
	}
	g := func(i int) time.Duration { return outputOf(ops[i].Output).Clock }
	var groups [][]int // runs of equal readings, earliest first; reused per resource
	var lo, hi []int64 // the latest call at an earlier reading; the earliest return at a later one
	for _, idx := range byResource {
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(g(a), g(b)) })
		groups = groups[:0]
		for start, i := 0, 1; i <= len(idx); i++ {
			if i == len(idx) || g(idx[i]) != g(idx[start]) {
				groups, start = append(groups, idx[start:i]), i
			}
		}
		lo, hi = slices.Grow(lo[:0], len(groups))[:len(groups)], slices.Grow(hi[:0], len(groups))[:len(groups)]
		lo[0], hi[len(groups)-1] = math.MinInt64, math.MaxInt64
		for k := 1; k < len(groups); k++ {
			lo[k] = lo[k-1]
			for _, i := range groups[k-1] {
				lo[k] = max(lo[k], ops[i].Call)
			}
		}
		for k := len(groups) - 2; k >= 0; k-- {
			hi[k] = hi[k+1]
			for _, i := range groups[k+1] {
				hi[k] = min(hi[k], ops[i].Return)
			}
		}
		for k, group := range groups {
			for _, i := range group {
				ranks[i] = k
				if call, ret := max(ops[i].Call, lo[k]), min(ops[i].Return, hi[k]); call <= ret {
					ops[i].Call, ops[i].Return = call, ret
				}
			}
		}
	}
	return ranks
}

// breakTies scales time by a factor above every rank and adds each
// operation's rank to its call and its return, so that among calls at the
// same instant, porcupine tries the earlier reading first. It changes no
// verdict: scaling keeps every strict order of times, and the offsets order
// a return and a call at the same instant only as the specification does
// anyway, the earlier reading first. It returns the factor, 1 if scaling
// would overflow (ties are then left to porcupine).
func breakTies(ops []porcupine.Operation, ranks []int) int64 {
	if len(ops) == 0 {
		return 1
	}
	scale := int64(slices.Max(ranks)) + 1
	var latest int64
	for _, op := range ops {
		latest = max(latest, abs(op.Call), abs(op.Return))
	}
	if latest > (math.MaxInt64-scale)/scale {
		return 1
	}
	for i := range ops {
		ops[i].Call = ops[i].Call*scale + int64(ranks[i])
		ops[i].Return = ops[i].Return*scale + int64(ranks[i])
	}
	return scale
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
