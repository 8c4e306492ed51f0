package seeds

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Max bounds how many seeds a set may hold, so that counts fit in an int
// on any platform and a typo cannot ask for a run that never ends.
const Max = 1 << 30

// Set is a set of seeds, in increasing order. It is written, and read by
// Parse, as one seed "N", an inclusive range "A-B", or a list of those
// separated by commas, such as "1-5,9". Every command that takes seeds
// reads them this way.
//
// First and Last are the smallest and the largest seed. The literal
// Set{First: a, Last: b} is the range a-b; a set with gaps comes from
// Parse or List.
type Set struct {
	First, Last uint64
	// parts are the set's disjoint ranges, in order, when there are gaps;
	// nil means every seed from First to Last.
	parts []seedRange
}

// seedRange is the inclusive range first-last; before counts the seeds of
// the set's earlier ranges.
type seedRange struct {
	first, last, before uint64
}

// Parse reads a seed set: "N", "A-B" (inclusive, A <= B), or a comma
// separated list of those, in any order ("1-5,9", "2,5,9"). Overlapping
// items are merged: it is a set. Errors name the input and the item.
func Parse(s string) (Set, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return Set{}, fmt.Errorf("seeds %q: want N, A-B or a list such as 1-5,9", s)
	}
	var items []seedRange
	for item := range strings.SplitSeq(in, ",") {
		item = strings.TrimSpace(item)
		r, err := parseSeedItem(item)
		switch {
		case err == nil:
		case item == in && r.last < r.first: // one range, backwards: name it as written
			return Set{}, fmt.Errorf("seeds %s: %s", in, err.Error())
		case item == in:
			return Set{}, fmt.Errorf("seeds %q: %s", s, err.Error())
		default:
			return Set{}, fmt.Errorf("seeds %q: %s: %s", s, item, err.Error())
		}
		items = append(items, r)
	}
	set := newSet(items)
	if err := set.Validate(); err != nil { // items are ordered: only the count can be wrong
		return Set{}, fmt.Errorf("seeds %q: more than %d seeds", s, Max)
	}
	return set, nil
}

// parseSeedItem reads one item of a list: "N" or "A-B".
func parseSeedItem(item string) (seedRange, error) {
	a, b, isRange := strings.Cut(item, "-")
	first, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return seedRange{}, fmt.Errorf("want N or A-B with non-negative integers, and %q is not one", a)
	}
	if !isRange {
		return seedRange{first: first, last: first}, nil
	}
	last, err := strconv.ParseUint(b, 10, 64)
	if err != nil {
		return seedRange{}, fmt.Errorf("want A-B with non-negative integers, and %q is not one", b)
	}
	if last < first {
		return seedRange{first: first, last: last}, errors.New("the last seed is below the first")
	}
	return seedRange{first: first, last: last}, nil
}

// List returns the set of the given seeds (in any order, repeats
// allowed), such as the failing seeds of a summary. It returns the zero
// Seeds, which is seed 0 alone, for no seeds: check len first.
func List(seeds ...uint64) Set {
	items := make([]seedRange, len(seeds))
	for i, s := range seeds {
		items[i] = seedRange{first: s, last: s}
	}
	return newSet(items)
}

// newSeeds sorts and merges ranges into a set.
func newSet(items []seedRange) Set {
	if len(items) == 0 {
		return Set{}
	}
	slices.SortFunc(items, func(x, y seedRange) int {
		switch {
		case x.first < y.first:
			return -1
		case x.first > y.first:
			return 1
		}
		return 0
	})
	merged := items[:1]
	for _, r := range items[1:] {
		top := &merged[len(merged)-1]
		if r.first <= top.last || r.first-top.last == 1 { // overlapping or adjacent
			top.last = max(top.last, r.last)
			continue
		}
		merged = append(merged, r)
	}
	set := Set{First: merged[0].first, Last: merged[len(merged)-1].last}
	if len(merged) == 1 {
		return set
	}
	var before uint64
	for i := range merged {
		merged[i].before = before
		before += merged[i].last - merged[i].first + 1
	}
	set.parts = slices.Clip(merged)
	return set
}

// ranges returns the set's disjoint ranges, in order.
func (r Set) ranges() []seedRange {
	if r.parts == nil {
		return []seedRange{{first: r.First, last: r.Last}}
	}
	return r.parts
}

// Validate reports whether the set is ordered and small enough.
func (r Set) Validate() error {
	if r.Last < r.First {
		return fmt.Errorf("seeds %d-%d: the last seed is below the first", r.First, r.Last)
	}
	var n uint64
	for _, p := range r.ranges() {
		n += p.last - p.first
		if n >= Max {
			return fmt.Errorf("seeds %s: more than %d seeds", r, Max)
		}
		n++
	}
	return nil
}

// Count is how many seeds the set holds. Call it on a valid set only.
func (r Set) Count() int {
	last := r.ranges()[len(r.ranges())-1]
	return int(last.before + last.last - last.first + 1)
}

// At returns the k-th seed of the set, from 0, in increasing order; k must
// be below Count.
func (r Set) At(k int) uint64 {
	parts := r.ranges()
	i := sort.Search(len(parts), func(i int) bool { return parts[i].before > uint64(k) }) - 1
	return parts[i].first + (uint64(k) - parts[i].before)
}

// Has reports whether seed is in the set.
func (r Set) Has(seed uint64) bool {
	_, ok := r.Index(seed)
	return ok
}

// Index returns the position of seed in the set, from 0, and whether the
// set holds it.
func (r Set) Index(seed uint64) (int, bool) {
	parts := r.ranges()
	i := sort.Search(len(parts), func(i int) bool { return parts[i].last >= seed })
	if i == len(parts) || seed < parts[i].first {
		return 0, false
	}
	return int(parts[i].before + seed - parts[i].first), true
}

// Contiguous reports whether the set is one range, First to Last.
func (r Set) Contiguous() bool { return r.parts == nil }

// String writes the set as Parse reads it: "7", "1-500", "1-5,9".
func (r Set) String() string {
	var b strings.Builder
	for i, p := range r.ranges() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(p.first, 10))
		if p.last != p.first {
			b.WriteByte('-')
			b.WriteString(strconv.FormatUint(p.last, 10))
		}
	}
	return b.String()
}

// Range is the inclusive range First-Last of seeds.
type Range struct{ First, Last uint64 }

// FromRanges returns the set of the seeds in rs (in any order, overlapping
// or not).
func FromRanges(rs []Range) Set {
	items := make([]seedRange, len(rs))
	for i, r := range rs {
		items[i] = seedRange{first: r.First, last: r.Last}
	}
	return newSet(items)
}

// Ranges returns the set's disjoint ranges, in increasing order.
func (r Set) Ranges() []Range {
	parts := r.ranges()
	out := make([]Range, len(parts))
	for i, p := range parts {
		out[i] = Range{First: p.first, Last: p.last}
	}
	return out
}
