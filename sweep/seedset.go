package sweep

import (
	"encoding/json"
	"fmt"
	"github.com/leasesim/leasesim/internal/strictjson"
	"sort"
	"strconv"
	"strings"

	"github.com/leasesim/leasesim/internal/seeds"
)

// MaxSeedRanges bounds the ranges a SeedSet lists, so that a summary stays
// small however many seeds fail.
const MaxSeedRanges = 64

// SeedSet is a bounded set of seeds, such as the seeds on which one
// property failed in one scenario: up to MaxSeedRanges ranges of
// consecutive seeds, listed, and an exact count of every seed added,
// listed or not. The zero SeedSet is empty.
//
// Its JSON form is {"count": 12, "seeds": "3-9,15", "omitted": 4}; seeds
// is written as --seeds reads it.
type SeedSet struct {
	ranges  []seeds.Range // sorted, disjoint, not adjacent
	count   int64
	omitted int64
}

// SeedSetOf returns the set of seeds, which must be distinct.
func SeedSetOf(seeds ...uint64) SeedSet {
	var set SeedSet
	for _, seed := range seeds {
		set.Add(seed)
	}
	return set
}

// Add adds seed, which must not be in the set yet.
func (s *SeedSet) Add(seed uint64) { s.addRange(seed, seed) }

// Merge adds every seed of o, which must not share a seed with s.
func (s *SeedSet) Merge(o SeedSet) {
	for _, r := range o.ranges {
		s.addRange(r.First, r.Last)
	}
	s.omitted += o.omitted
	s.count += o.omitted
}

// addRange adds first..last, coalescing with its neighbours, then drops
// the highest ranges beyond the cap (counted as omitted).
func (s *SeedSet) addRange(first, last uint64) {
	s.count += int64(last - first + 1)
	i := sort.Search(len(s.ranges), func(i int) bool { return s.ranges[i].First > first })
	s.ranges = append(s.ranges, seeds.Range{})
	copy(s.ranges[i+1:], s.ranges[i:])
	s.ranges[i] = seeds.Range{First: first, Last: last}
	if i > 0 && s.ranges[i-1].Last+1 >= first { // joins the one before
		s.ranges[i-1].Last = max(s.ranges[i-1].Last, last)
		s.ranges = append(s.ranges[:i], s.ranges[i+1:]...)
		i--
	}
	if i+1 < len(s.ranges) && s.ranges[i].Last+1 >= s.ranges[i+1].First { // joins the one after
		s.ranges[i].Last = max(s.ranges[i].Last, s.ranges[i+1].Last)
		s.ranges = append(s.ranges[:i+1], s.ranges[i+2:]...)
	}
	for len(s.ranges) > MaxSeedRanges {
		top := s.ranges[len(s.ranges)-1]
		s.omitted += int64(top.Last - top.First + 1)
		s.ranges = s.ranges[:len(s.ranges)-1]
	}
}

// Count is how many seeds were added, listed or not.
func (s SeedSet) Count() int64 { return s.count }

// Omitted is how many of them are not listed.
func (s SeedSet) Omitted() int64 { return s.omitted }

// First returns the smallest listed seed, and false if none is listed.
func (s SeedSet) First() (uint64, bool) {
	if len(s.ranges) == 0 {
		return 0, false
	}
	return s.ranges[0].First, true
}

// Seeds returns the listed seeds as a set that a sweep can run.
func (s SeedSet) Seeds() Seeds {
	if len(s.ranges) == 0 {
		return Seeds{}
	}
	return seeds.FromRanges(s.ranges)
}

// String writes the listed seeds as --seeds reads them: "3-9,15".
func (s SeedSet) String() string {
	var b strings.Builder
	for i, r := range s.ranges {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(r.First, 10))
		if r.Last != r.First {
			b.WriteByte('-')
			b.WriteString(strconv.FormatUint(r.Last, 10))
		}
	}
	return b.String()
}

type seedSetJSON struct {
	Count   int64  `json:"count"`
	Seeds   string `json:"seeds"`
	Omitted int64  `json:"omitted"`
}

// MarshalJSON writes the set's JSON form.
func (s SeedSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(seedSetJSON{Count: s.count, Seeds: s.String(), Omitted: s.omitted})
}

// UnmarshalJSON reads the set's JSON form; the listed seeds and omitted
// must add up to count.
func (s *SeedSet) UnmarshalJSON(data []byte) error {
	var j seedSetJSON
	if err := strictjson.Unmarshal(data, &j, strictjson.NoNulls); err != nil {
		return err
	}
	var out SeedSet
	if j.Seeds != "" {
		set, err := ParseSeeds(j.Seeds)
		if err != nil {
			return err
		}
		for _, r := range set.Ranges() {
			out.addRange(r.First, r.Last)
		}
	}
	if j.Omitted < 0 || out.count+j.Omitted != j.Count || out.omitted != 0 {
		return fmt.Errorf("seed set: %d listed and %d omitted seeds do not make count %d", out.count, j.Omitted, j.Count)
	}
	out.omitted, out.count = j.Omitted, j.Count
	*s = out
	return nil
}
