package sweep

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Merge combines the summaries of shards of one sweep (`simrun sweep
// --shard I/N` on several machines) into the summary of their union. The
// parts must agree on scenarios, implementation and seed range, and their
// shards must be of the same N and must not overlap; otherwise Merge
// returns a *MergeError (which matches ErrInvalid) naming the first part
// at fault.
//
// The result covers the union of the parts' shards: "1/1" once every shard
// is there, otherwise the indices it has, such as "1,3/4" (Merge reads that
// form back, so merged summaries merge again). It is partial if any part
// is. Counts, events and simulated time add up; failures and seeds come in
// (scenario, seed) order, as in a single sweep. WallSeconds is the longest
// part's (shards run at the same time on different machines), CPUSeconds
// and Parallel add up, and the rates are recomputed from the totals.
func Merge(parts ...Summary) (Summary, error) {
	if len(parts) == 0 {
		return Summary{}, invalidf("nothing to merge")
	}
	first := parts[0]
	set, err := parseShardSet(first.Shard)
	if err != nil {
		return Summary{}, &MergeError{Part: 1, Err: err}
	}
	for i, p := range parts[1:] {
		if err := compatible(first, p); err != nil {
			return Summary{}, &MergeError{Part: i + 2, Err: err}
		}
		other, err := parseShardSet(p.Shard)
		if err != nil {
			return Summary{}, &MergeError{Part: i + 2, Err: err}
		}
		if err := set.add(other); err != nil {
			return Summary{}, &MergeError{Part: i + 2, Err: err}
		}
	}
	out := Summary{Scenarios: first.Scenarios, Impl: first.Impl, SeedFirst: first.SeedFirst,
		SeedLast: first.SeedLast, Shard: set.String(), VerifyDeterminism: true}.withEmpty()
	var accelSum float64
	for _, p := range parts {
		out.fold(p)
		accelSum += p.MeanAcceleration * float64(p.Runs)
	}
	if out.Runs > 0 {
		out.MeanAcceleration = accelSum / float64(out.Runs)
	}
	out.order()
	out.rates()
	return out, nil
}

// MergeError says which part (from 1) of a Merge is at fault, and why. It
// matches ErrInvalid.
type MergeError struct {
	Part int
	Err  error
}

// Error formats the error as "part N: what".
func (e *MergeError) Error() string { return fmt.Sprintf("part %d: %v", e.Part, e.Err) }

// Unwrap returns why.
func (e *MergeError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *MergeError) Is(target error) bool { return target == ErrInvalid }

// compatible reports why p cannot be merged with first, if it cannot.
func compatible(first, p Summary) error {
	switch {
	case !slices.Equal(first.Scenarios, p.Scenarios):
		return fmt.Errorf("scenarios [%s] differ from part 1's [%s]",
			strings.Join(p.Scenarios, " "), strings.Join(first.Scenarios, " "))
	case p.Impl != first.Impl:
		return fmt.Errorf("impl %q differs from part 1's %q", p.Impl, first.Impl)
	case p.SeedFirst != first.SeedFirst || p.SeedLast != first.SeedLast:
		return fmt.Errorf("seeds %d-%d differ from part 1's %d-%d", p.SeedFirst, p.SeedLast, first.SeedFirst, first.SeedLast)
	}
	return nil
}

// fold adds part p's counts and lists to s.
func (s *Summary) fold(p Summary) {
	s.Runs += p.Runs
	s.RunsExpected += p.RunsExpected
	s.Partial = s.Partial || p.Partial
	s.VerifyDeterminism = s.VerifyDeterminism && p.VerifyDeterminism
	s.Failures = append(s.Failures, p.Failures...)
	s.FailuresOmitted += p.FailuresOmitted
	for prop, byScenario := range p.ByProperty {
		for sc, seeds := range byScenario {
			for _, seed := range seeds {
				addSeed(s.ByProperty, prop, sc, seed)
			}
		}
	}
	for prop, n := range p.Unknown {
		s.Unknown[prop] += n
	}
	for sc, c := range p.PerScenario {
		acc := s.PerScenario[sc]
		acc.Runs += c.Runs
		acc.Failed += c.Failed
		s.PerScenario[sc] = acc
	}
	s.AssumptionExceeded += p.AssumptionExceeded
	s.Events += p.Events
	s.SimSeconds += p.SimSeconds
	s.WallSeconds = max(s.WallSeconds, p.WallSeconds)
	s.CPUSeconds += p.CPUSeconds
	s.Parallel += p.Parallel
	s.Metrics = s.Metrics.Add(withoutSamples(p.Metrics))
	s.FailoverSeconds = append(s.FailoverSeconds, p.FailoverSeconds...)
	s.TaskLatencySeconds = append(s.TaskLatencySeconds, p.TaskLatencySeconds...)
	s.MarginSeconds = append(s.MarginSeconds, p.MarginSeconds...)
}

// order puts the merged lists in the order a single sweep gives them and
// applies the bounds.
func (s *Summary) order() {
	rank := make(map[string]int, len(s.Scenarios))
	for i, name := range s.Scenarios {
		rank[name] = i
	}
	slices.SortStableFunc(s.Failures, func(a, b Failure) int {
		return cmp.Or(cmp.Compare(rank[a.Scenario], rank[b.Scenario]), cmp.Compare(a.Seed, b.Seed))
	})
	if len(s.Failures) > MaxFailures {
		s.FailuresOmitted += len(s.Failures) - MaxFailures
		s.Failures = s.Failures[:MaxFailures]
	}
	for _, byScenario := range s.ByProperty {
		for sc := range byScenario {
			slices.Sort(byScenario[sc])
		}
	}
	for _, h := range []*[]float64{&s.FailoverSeconds, &s.TaskLatencySeconds, &s.MarginSeconds} {
		slices.Sort(*h)
		*h = (*h)[:min(len(*h), MaxSamples)]
	}
	s.Metrics = s.finalMetrics(s.Metrics)
}

// shardSet is the set of shards of N a summary covers.
type shardSet struct {
	count int
	has   map[int]bool // looked up, and iterated only through indices()
}

// parseShardSet reads "I/N" or "I,J,.../N".
func parseShardSet(s string) (shardSet, error) {
	list, n, ok := strings.Cut(s, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count < 1 {
		return shardSet{}, fmt.Errorf("shard %q: want I/N or I,J/N", s)
	}
	set := shardSet{count: count, has: map[int]bool{}}
	for _, f := range strings.Split(list, ",") {
		i, err := strconv.Atoi(f)
		if err != nil || i < 1 || i > count {
			return shardSet{}, fmt.Errorf("shard %q: %q is not an index from 1 to %d", s, f, count)
		}
		set.has[i] = true
	}
	return set, nil
}

// add adds other's shards to set, refusing another N and overlaps.
func (set shardSet) add(other shardSet) error {
	if other.count != set.count {
		if set.count == 1 || other.count == 1 {
			return fmt.Errorf("shard %s overlaps %s: one of them is the whole range", other, set)
		}
		return fmt.Errorf("shard %s is of %d shards, not %d", other, other.count, set.count)
	}
	for _, i := range other.indices() {
		if set.has[i] {
			return fmt.Errorf("shard %d/%d is already merged", i, set.count)
		}
		set.has[i] = true
	}
	return nil
}

func (set shardSet) indices() []int { return slices.Sorted(maps.Keys(set.has)) }

// String writes "1/1" for a complete set, otherwise "I,J/N".
func (set shardSet) String() string {
	if len(set.has) == set.count {
		return "1/1"
	}
	idx := set.indices()
	parts := make([]string, len(idx))
	for i, v := range idx {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ",") + "/" + strconv.Itoa(set.count)
}
