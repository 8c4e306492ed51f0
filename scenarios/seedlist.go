package scenarios

import (
	"fmt"
	"strconv"
	"strings"
)

// maxCommandLineSeeds bounds the seeds -leasesim.seeds may ask for, so that
// a typo cannot start a test that never ends.
const maxCommandLineSeeds = 1 << 24

// seedList is a list of inclusive seed ranges, in the order written. It is
// the flag.Value of -leasesim.seeds and reads what `simrun sweep --seeds`
// reads: "N", "A-B" or a comma-separated list of those. A nil seedList is
// unset.
//
// The parser is here and not sweep.ParseSeeds because package sweep imports
// this one.
type seedList []seedRange

type seedRange struct{ first, last uint64 }

// Set parses s, replacing the list.
func (l *seedList) Set(s string) error {
	var out seedList
	total := uint64(0)
	for _, item := range strings.Split(s, ",") {
		r, err := parseSeedRange(strings.TrimSpace(item))
		if err != nil {
			return fmt.Errorf("seeds %q: %w", s, err)
		}
		total += r.last - r.first + 1
		if total > maxCommandLineSeeds || r.last-r.first >= maxCommandLineSeeds {
			return fmt.Errorf("seeds %q: more than %d seeds", s, maxCommandLineSeeds)
		}
		out = append(out, r)
	}
	*l = out
	return nil
}

// parseSeedRange reads "N" or "A-B" with A <= B.
func parseSeedRange(item string) (seedRange, error) {
	a, b, isRange := strings.Cut(item, "-")
	first, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return seedRange{}, fmt.Errorf("want N, A-B or a list such as 1-5,9 with non-negative integers, and %q is not one", a)
	}
	if !isRange {
		return seedRange{first, first}, nil
	}
	last, err := strconv.ParseUint(b, 10, 64)
	if err != nil {
		return seedRange{}, fmt.Errorf("want A-B with non-negative integers, and %q is not one", b)
	}
	if last < first {
		return seedRange{}, fmt.Errorf("%s: the last seed is below the first", item)
	}
	return seedRange{first, last}, nil
}

// String writes the list as Set reads it.
func (l *seedList) String() string {
	if l == nil {
		return ""
	}
	items := make([]string, len(*l))
	for i, r := range *l {
		items[i] = strconv.FormatUint(r.first, 10)
		if r.last != r.first {
			items[i] += "-" + strconv.FormatUint(r.last, 10)
		}
	}
	return strings.Join(items, ",")
}

// each calls f with every seed in order, each once even where ranges
// overlap, until f returns false.
func (l seedList) each(f func(seed uint64) bool) {
	seen := map[uint64]bool{} // looked up, never iterated
	for _, r := range l {
		for seed := r.first; ; seed++ {
			if !seen[seed] {
				seen[seed] = true
				if !f(seed) {
					return
				}
			}
			if seed == r.last {
				break
			}
		}
	}
}
