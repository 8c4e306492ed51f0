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
// --shard I/N` on several machines) into the summary of their union, as a
// Merger does one part at a time.
func Merge(parts ...Summary) (Summary, error) {
	var m Merger
	for _, p := range parts {
		if err := m.Add(p); err != nil {
			return Summary{}, err
		}
	}
	return m.Summary()
}

// Merger combines shard summaries one at a time, so that a merge holds
// one part and the running total, never every part: its memory does not
// grow with the number of parts or of runs.
//
// The parts must agree on schema, scenarios, implementation and seeds,
// and their shards must be of the same N and must not overlap (a shard
// given twice is an error); otherwise Add returns a *MergeError (which
// matches ErrInvalid) naming the part at fault.
//
// The result covers the union of the parts' shards: "1/1" once every
// shard is there, otherwise the indices it has, such as "1,3/4" (Merge
// reads that form back, so merged summaries merge again). It is Partial,
// and lists MissingShards, when a shard of N is missing; it is Partial
// too if any part is. Counts, events, simulated time and histograms add
// up exactly; failures and seeds come in (scenario, seed) order, as in a
// single sweep, within their bounds. WallSeconds is the longest part's
// (shards run at the same time on different machines), CPUSeconds and
// Parallel add up, and the rates are recomputed from the totals.
type Merger struct {
	out      Summary
	set      shardSet
	parts    int
	accelSum float64
}

// Add merges part p in.
func (m *Merger) Add(p Summary) error {
	m.parts++
	fail := func(err error) error { return &MergeError{Part: m.parts, Err: err} }
	other, err := parseShardSet(p.Shard)
	if err != nil {
		return fail(err)
	}
	if m.parts == 1 {
		if p.Schema != SummarySchema {
			return fail(fmt.Errorf("schema_version %d, want %d: make the summary again with this simrun", p.Schema, SummarySchema))
		}
		m.set = other
		m.out = Summary{Schema: p.Schema, Scenarios: p.Scenarios, Impl: p.Impl, Knobs: p.Knobs, Skipped: p.Skipped, Adapted: p.Adapted,
			CoverageNotApplicable: p.CoverageNotApplicable, Seeds: p.Seeds,
			SeedFirst: p.SeedFirst, SeedLast: p.SeedLast, Rerun: p.Rerun, VerifyDeterminism: true}.withEmpty()
	} else {
		if err := compatible(m.out, p); err != nil {
			return fail(err)
		}
		if err := m.set.add(other); err != nil {
			return fail(err)
		}
	}
	m.out.fold(p)
	m.accelSum += p.MeanAcceleration * float64(p.Runs)
	return nil
}

// Summary returns the merged summary of the parts added so far.
func (m *Merger) Summary() (Summary, error) {
	if m.parts == 0 {
		return Summary{}, invalidf("nothing to merge")
	}
	out := m.out
	out.Shard = m.set.String()
	out.MissingShards = m.set.missing()
	if len(out.MissingShards) > 0 {
		out.Partial = true
		out.RunsExpected += out.runsOfShards(m.set.missingIndices(), m.set.count)
	}
	if out.Runs > 0 {
		out.MeanAcceleration = m.accelSum / float64(out.Runs)
	}
	out.rates()
	out.derive()
	return out, nil
}

// runsOfShards counts the runs of shards indices of count, when the seed
// set says (a rerun's seeds differ per scenario: they count 0).
func (s Summary) runsOfShards(indices []int, count int) int {
	seeds, err := ParseSeeds(s.Seeds)
	if err != nil || s.Rerun != "" {
		return 0
	}
	n := 0
	for _, i := range indices {
		n += Shard{Index: i, Count: count}.Len(seeds) * len(s.Scenarios)
	}
	return n
}

// ownExpected is how many runs p's own shards hold: RunsExpected without
// the runs of the shards it lists as missing (a merged partial summary
// counts them, so that it says "12 of 24 runs").
func (p Summary) ownExpected() int {
	if len(p.MissingShards) == 0 {
		return p.RunsExpected
	}
	set, err := parseShardSet(p.Shard)
	if err != nil {
		return p.RunsExpected
	}
	return p.RunsExpected - p.runsOfShards(set.missingIndices(), set.count)
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
	case p.Schema != first.Schema:
		return fmt.Errorf("schema_version %d differs from part 1's %d", p.Schema, first.Schema)
	case !slices.Equal(first.Scenarios, p.Scenarios):
		return fmt.Errorf("scenarios [%s] differ from part 1's [%s]",
			strings.Join(p.Scenarios, " "), strings.Join(first.Scenarios, " "))
	case p.Impl != first.Impl:
		return fmt.Errorf("impl %q differs from part 1's %q", p.Impl, first.Impl)
	case !slices.Equal(first.Knobs, p.Knobs):
		return fmt.Errorf("knobs [%s] differ from part 1's [%s]", strings.Join(p.Knobs, " "), strings.Join(first.Knobs, " "))
	case p.Seeds != first.Seeds:
		return fmt.Errorf("seeds %s differ from part 1's %s", p.Seeds, first.Seeds)
	case p.Rerun != first.Rerun:
		return fmt.Errorf("rerun of %q differs from part 1's %q", p.Rerun, first.Rerun)
	case !slices.Equal(first.Skipped, p.Skipped), !slices.Equal(first.Adapted, p.Adapted),
		!slices.Equal(first.CoverageNotApplicable, p.CoverageNotApplicable):
		return fmt.Errorf("the scenarios skipped or adapted, or the behaviours that do not apply, differ from " +
			"part 1's: make every part with the same simrun")
	}
	return nil
}

// fold adds part p's counts, lists and histograms to s, keeping the
// failures in (scenario, seed) order and within their bound.
func (s *Summary) fold(p Summary) {
	own := p.ownExpected()
	s.Runs += p.Runs
	s.RunsExpected += own
	s.Partial = s.Partial || p.Runs < own // interrupted: a missing shard is the merge's to say
	s.VerifyDeterminism = s.VerifyDeterminism && p.VerifyDeterminism
	s.mergeFailures(p)
	for _, prop := range slices.Sorted(maps.Keys(p.ByProperty)) {
		for _, sc := range slices.Sorted(maps.Keys(p.ByProperty[prop])) {
			s.addSeeds(prop, sc, p.ByProperty[prop][sc])
		}
	}
	for prop, n := range p.Unknown {
		s.Unknown[prop] += n
	}
	s.UnknownRuns += p.UnknownRuns
	for _, reason := range slices.Sorted(maps.Keys(p.UnknownReasons)) {
		s.addReason(reason, p.UnknownReasons[reason])
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
	s.Metrics.Merge(withoutSamples(p.Metrics))
	s.Coverage.merge(p.Coverage)
	for i, h := range p.histograms() {
		s.histograms()[i].Merge(*h)
	}
}

// mergeFailures merges p's failures into s's, in (scenario, seed) order,
// keeping the first MaxFailures and counting the rest.
func (s *Summary) mergeFailures(p Summary) {
	rank := make(map[string]int, len(s.Scenarios))
	for i, name := range s.Scenarios {
		rank[name] = i
	}
	all := append(slices.Clip(s.Failures), p.Failures...)
	slices.SortStableFunc(all, func(a, b Failure) int {
		return cmp.Or(cmp.Compare(rank[a.Scenario], rank[b.Scenario]), cmp.Compare(a.Seed, b.Seed))
	})
	s.FailuresOmitted += p.FailuresOmitted
	if len(all) > MaxFailures {
		s.FailuresOmitted += len(all) - MaxFailures
		all = all[:MaxFailures]
	}
	s.Failures = all
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

// missingIndices returns the indices of the shards of N not in set.
func (set shardSet) missingIndices() []int {
	var out []int
	for i := 1; i <= set.count; i++ {
		if !set.has[i] {
			out = append(out, i)
		}
	}
	return out
}

// missing names the shards not in set, such as "2/4", or nil.
func (set shardSet) missing() []string {
	var out []string
	for _, i := range set.missingIndices() {
		out = append(out, fmt.Sprintf("%d/%d", i, set.count))
	}
	return out
}

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
