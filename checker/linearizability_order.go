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
	// Each resource's operations, gathered by a counting sort (resources in
	// the order they first appear; they are independent): a history's
	// operations are mostly on a few resources, and a table per resource
	// grown by appending would allocate each several times over.
	ids := make(map[string]int32) // looked up, never iterated
	var starts []int32            // per resource, then where its operations start in byResource
	res := make([]int32, len(ops))
	for i := range ops {
		in := &inputOf(ops[i].Input).Input
		if isRegisterOp(in.Kind) {
			res[i] = -1
			continue
		}
		id, ok := ids[in.Resource]
		if !ok {
			id = int32(len(starts))
			ids[in.Resource] = id
			starts = append(starts, 0)
		}
		res[i] = id
		starts[id]++
	}
	most, total := int32(0), int32(0)
	for r, n := range starts {
		starts[r], total, most = total, total+n, max(most, n)
	}
	starts = append(starts, total)
	byResource := make([]int32, total)
	next := slices.Clone(starts)
	for i, r := range res {
		if r >= 0 {
			byResource[next[r]] = int32(i)
			next[r]++
		}
	}
	g := func(i int32) time.Duration { return outputOf(ops[i].Output).Clock }
	ends := make([]int32, 0, most) // where each run of equal readings ends in a resource's operations, earliest first
	lo := make([]int64, 0, most)   // per run: the latest call at an earlier reading
	for r := range len(starts) - 1 {
		idx := byResource[starts[r]:starts[r+1]]
		slices.SortStableFunc(idx, func(a, b int32) int { return cmp.Compare(g(a), g(b)) })
		ends, lo = ends[:0], lo[:0]
		latest := int64(math.MinInt64)
		for start, i := int32(0), int32(1); i <= int32(len(idx)); i++ {
			if i < int32(len(idx)) && g(idx[i]) == g(idx[start]) {
				continue
			}
			ends, lo = append(ends, i), append(lo, latest)
			for _, j := range idx[start:i] {
				latest = max(latest, ops[j].Call)
			}
			start = i
		}
		// Latest first, the earliest return at a later reading, from the
		// returns as they were before this pass narrowed them.
		earliest := int64(math.MaxInt64)
		for k := len(ends) - 1; k >= 0; k-- {
			start := int32(0)
			if k > 0 {
				start = ends[k-1]
			}
			group, first := idx[start:ends[k]], int64(math.MaxInt64)
			for _, i := range group {
				first = min(first, ops[i].Return)
				ranks[i] = k
				if call, ret := max(ops[i].Call, lo[k]), min(ops[i].Return, earliest); call <= ret {
					ops[i].Call, ops[i].Return = call, ret
				}
			}
			earliest = min(earliest, first)
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
