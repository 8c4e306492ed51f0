package sweep

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/leasesim/leasesim/internal/seeds"
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
const MaxRuns = seeds.Max

// Seeds is a set of seeds, written "N", "A-B" or a list such as "1-5,9"
// (package internal/seeds, the one reader of seed sets).
type Seeds = seeds.Set

// ParseSeeds reads a seed set as every command reads seeds; a malformed one
// is an *InputError.
func ParseSeeds(s string) (Seeds, error) {
	set, err := seeds.Parse(s)
	if err != nil {
		return Seeds{}, &InputError{Msg: err.Error()}
	}
	return set, nil
}

// SeedList returns the set of the given seeds (in any order, repeats
// allowed); see seeds.List.
func SeedList(list ...uint64) Seeds { return seeds.List(list...) }

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
	i, ok := r.Index(seed)
	return ok && i%s.Count == s.Index-1
}
