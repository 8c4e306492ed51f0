package explore

import (
	"math/bits"

	"github.com/leasesim/leasesim/checker"
)

// bucketCount is the number of count buckets per behaviour.
const bucketCount = 8

// bucket maps how often a run reached a behaviour to its AFL-style bucket:
// 1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128 and more (0 is not reached).
func bucket(n uint64) int {
	switch {
	case n == 0:
		panic("explore: bucket of a count of zero")
	case n <= 3:
		return int(n) - 1
	case n < 32:
		return bits.Len64(n) // 4-7: 3, 8-15: 4, 16-31: 5
	case n < 128:
		return 6
	}
	return 7
}

// features is what every run so far reached: each behaviour, and each of
// its count buckets, with how many runs reached the behaviour.
type features struct {
	hits    []int // runs that reached each behaviour, by checker.Behaviours index
	buckets [][bucketCount]bool
}

func newFeatures() *features {
	n := len(checker.Behaviours())
	return &features{hits: make([]int, n), buckets: make([][bucketCount]bool, n)}
}

// add records one run's coverage and reports whether it reached anything
// new (a new behaviour or a new count bucket).
func (f *features) add(c checker.Coverage) (novel bool) {
	for i := range checker.Behaviours() {
		if c[i] == 0 {
			continue
		}
		f.hits[i]++
		k := bucket(c[i])
		if !f.buckets[i][k] {
			f.buckets[i][k], novel = true, true
		}
	}
	return novel
}

// rarityScale is the weight of a behaviour reached by a single run; the
// weight falls as the inverse of the runs that reached it. Integers keep
// the weights, and so the picks, the same on every machine.
const rarityScale = 1 << 16

// weight is how strongly the search favours an entry that reached c: the
// sum, over the behaviours it reached, of rarityScale over the runs that
// reached each, plus one so that every entry can be picked.
func (f *features) weight(c checker.Coverage) int {
	w := 1
	for i := range f.hits {
		if c[i] > 0 && f.hits[i] > 0 {
			w += rarityScale / f.hits[i]
		}
	}
	return w
}
