package sweep

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ErrInvalid matches, through errors.Is, every error that says a sweep's
// input is bad: a malformed seed set or shard, an unusable Config, or
// summaries that cannot be merged. A CLI maps it to exit code 2.
var ErrInvalid = errors.New("sweep: invalid input")

// InputError is bad input to a sweep. Its message names the input and
// says what is wrong, for example `seeds "5-2": the last seed is below the
// first`; it carries no package prefix, so that a CLI can put the flag or
// file it came from in front.
type InputError struct {
	Msg string
}

// Error returns the message.
func (e *InputError) Error() string { return e.Msg }

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *InputError) Is(target error) bool { return target == ErrInvalid }

// invalidf builds an *InputError.
func invalidf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// MaxRuns bounds the (scenario, seed) runs of one sweep, so that counts and
// progress fit in an int on any platform and a typo cannot start a sweep
// that never ends.
const MaxRuns = 1 << 30

// Seeds is a set of seeds, in increasing order. It is written, and read by
// ParseSeeds, as one seed "N", an inclusive range "A-B", or a list of those
// separated by commas, such as "1-5,9". Every command that takes seeds
// reads them this way.
//
// First and Last are the smallest and the largest seed. The literal
// Seeds{First: a, Last: b} is the range a-b; a set with gaps comes from
// ParseSeeds or SeedList.
type Seeds struct {
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

// ParseSeeds reads a seed set: "N", "A-B" (inclusive, A <= B), or a comma
// separated list of those, in any order ("1-5,9", "2,5,9"). Overlapping
// items are merged: it is a set. Errors name the input and the item.
func ParseSeeds(s string) (Seeds, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return Seeds{}, invalidf("seeds %q: want N, A-B or a list such as 1-5,9", s)
	}
	var items []seedRange
	for item := range strings.SplitSeq(in, ",") {
		item = strings.TrimSpace(item)
		r, err := parseSeedItem(item)
		switch {
		case err == nil:
		case item == in && r.last < r.first: // one range, backwards: name it as written
			return Seeds{}, invalidf("seeds %s: %s", in, err.Error())
		case item == in:
			return Seeds{}, invalidf("seeds %q: %s", s, err.Error())
		default:
			return Seeds{}, invalidf("seeds %q: %s: %s", s, item, err.Error())
		}
		items = append(items, r)
	}
	set := newSeeds(items)
	if err := set.Validate(); err != nil { // items are ordered: only the count can be wrong
		return Seeds{}, invalidf("seeds %q: more than %d seeds", s, MaxRuns)
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

// SeedList returns the set of the given seeds (in any order, repeats
// allowed), such as the failing seeds of a summary. It returns the zero
// Seeds, which is seed 0 alone, for no seeds: check len first.
func SeedList(seeds ...uint64) Seeds {
	items := make([]seedRange, len(seeds))
	for i, s := range seeds {
		items[i] = seedRange{first: s, last: s}
	}
	return newSeeds(items)
}

// newSeeds sorts and merges ranges into a set.
func newSeeds(items []seedRange) Seeds {
	if len(items) == 0 {
		return Seeds{}
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
	set := Seeds{First: merged[0].first, Last: merged[len(merged)-1].last}
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
func (r Seeds) ranges() []seedRange {
	if r.parts == nil {
		return []seedRange{{first: r.First, last: r.Last}}
	}
	return r.parts
}

// Validate reports whether the set is ordered and small enough.
func (r Seeds) Validate() error {
	if r.Last < r.First {
		return invalidf("seeds %d-%d: the last seed is below the first", r.First, r.Last)
	}
	var n uint64
	for _, p := range r.ranges() {
		n += p.last - p.first
		if n >= MaxRuns {
			return invalidf("seeds %s: more than %d seeds", r, MaxRuns)
		}
		n++
	}
	return nil
}

// Count is how many seeds the set holds. Call it on a valid set only.
func (r Seeds) Count() int {
	last := r.ranges()[len(r.ranges())-1]
	return int(last.before + last.last - last.first + 1)
}

// At returns the k-th seed of the set, from 0, in increasing order; k must
// be below Count.
func (r Seeds) At(k int) uint64 {
	parts := r.ranges()
	i := sort.Search(len(parts), func(i int) bool { return parts[i].before > uint64(k) }) - 1
	return parts[i].first + (uint64(k) - parts[i].before)
}

// Has reports whether seed is in the set.
func (r Seeds) Has(seed uint64) bool {
	_, ok := r.index(seed)
	return ok
}

// index returns the position of seed in the set, from 0.
func (r Seeds) index(seed uint64) (int, bool) {
	parts := r.ranges()
	i := sort.Search(len(parts), func(i int) bool { return parts[i].last >= seed })
	if i == len(parts) || seed < parts[i].first {
		return 0, false
	}
	return int(parts[i].before + seed - parts[i].first), true
}

// Contiguous reports whether the set is one range, First to Last.
func (r Seeds) Contiguous() bool { return r.parts == nil }

// String writes the set as ParseSeeds reads it: "7", "1-500", "1-5,9".
func (r Seeds) String() string {
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

// Shard selects one of Count interleaved parts of a seed set: shard I of
// N runs the seeds whose position in the set (from 0, in increasing
// order), modulo N, is I-1. So shard 1/3 of 1-10 runs 1, 4, 7, 10, and
// shard 2/3 runs 2, 5, 8. Interleaving (rather than contiguous blocks)
// spreads slow and fast seeds evenly across machines. The zero Shard means
// 1/1: every seed.
type Shard struct {
	Index, Count int // Index counts from 1
}

// ParseShard reads a shard written "I/N", with 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Shard{}, invalidf("shard %q: want I/N, for example 1/4", s)
	}
	i, errI := strconv.Atoi(a)
	n, errN := strconv.Atoi(b)
	if errI != nil || errN != nil {
		return Shard{}, invalidf("shard %q: want I/N with integers, for example 1/4", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.Validate()
}

// Validate reports whether 1 <= Index <= Count, or the Shard is zero.
func (s Shard) Validate() error {
	if s == (Shard{}) {
		return nil
	}
	switch {
	case s.Count < 1:
		return invalidf("shard %d/%d: the count must be at least 1", s.Index, s.Count)
	case s.Index < 1 || s.Index > s.Count:
		return invalidf("shard %d/%d: the index must be between 1 and %d", s.Index, s.Count, s.Count)
	}
	return nil
}

// norm returns s with the zero Shard written as 1/1.
func (s Shard) norm() Shard {
	if s == (Shard{}) {
		return Shard{Index: 1, Count: 1}
	}
	return s
}

// String writes the shard as ParseShard reads it; the zero Shard is "1/1".
func (s Shard) String() string {
	s = s.norm()
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Len is how many seeds of r the shard runs.
func (s Shard) Len(r Seeds) int {
	s = s.norm()
	total := r.Count()
	if total < s.Index {
		return 0
	}
	return (total-s.Index)/s.Count + 1
}

// Seed returns the k-th seed (from 0) of r that the shard runs.
func (s Shard) Seed(r Seeds, k int) uint64 {
	s = s.norm()
	return r.At(s.Index - 1 + k*s.Count)
}

// Has reports whether the shard runs seed, a seed of r.
func (s Shard) Has(r Seeds, seed uint64) bool {
	s = s.norm()
	i, ok := r.index(seed)
	return ok && i%s.Count == s.Index-1
}
