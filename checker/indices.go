package checker

import (
	"cmp"
	"slices"
)

// sortedIndices returns the indices 0..n-1 of a table ordered by compare
// (which compares the elements at two indices), equal elements in index
// order: an order of a history's large records that moves none of them.
func sortedIndices(n int, compare func(a, b int32) int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Or(compare(a, b), cmp.Compare(a, b)) })
	return order
}
