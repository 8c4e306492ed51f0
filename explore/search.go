package explore

import (
	"fmt"
	"math/rand/v2"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// Tuning of the search.
const (
	// drawsFirst is how many runs are fresh draws of the scenario before
	// any mutation: the corpus needs a few seeds of its own.
	drawsFirst = 3
	// drawEvery makes one run in drawEvery a fresh draw afterwards.
	drawEvery = 3
	// seedMax bounds the seeds the explorer draws, so replay lines stay
	// short.
	seedMax = 1_000_000
)

// search is the state of one exploration.
type search struct {
	sc             scenarios.Scenario
	impl           lease.Impl
	seed           uint64
	budget         int
	shrinkAttempts int
	progress       func(Step)

	rng    *rand.Rand
	mut    mutator
	feat   *features
	corpus []entry
	steps  []Step
	runs   int
}

// entry is one corpus input with the coverage of its run.
type entry struct {
	in  Input
	cov checker.Coverage
}

func newSearch(cfg Config) (*search, error) {
	switch {
	case cfg.Budget < 0 || cfg.Budget > MaxBudget:
		return nil, fmt.Errorf("%w: budget %d: must lie in [1, %d]", ErrInvalid, cfg.Budget, MaxBudget)
	case cfg.ShrinkAttempts < 0:
		return nil, fmt.Errorf("%w: shrink attempts %d: must not be negative", ErrInvalid, cfg.ShrinkAttempts)
	case cfg.Scenario.Goroutines != nil:
		return nil, fmt.Errorf("%w: scenario %s runs on the goroutine host, which explore does not search yet",
			ErrInvalid, cfg.Scenario.Name)
	}
	if err := cfg.Scenario.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	impl := cfg.Impl.OrCorrect()
	if err := scenarios.Supports(cfg.Scenario, impl); err != nil {
		return nil, err
	}
	s := &search{sc: cfg.Scenario, impl: impl, seed: cfg.Seed, budget: cfg.Budget,
		shrinkAttempts: cfg.ShrinkAttempts, progress: cfg.Progress, rng: newRand(cfg.Seed), feat: newFeatures()}
	if s.budget == 0 {
		s.budget = DefaultBudget
	}
	if s.shrinkAttempts == 0 {
		s.shrinkAttempts = DefaultShrinkAttempts
	}
	s.mut = newMutator(s.sc, impl, s.rng)
	return s, nil
}

// next returns the next run's input and how it was made. A fresh draw has
// a zero schedule: the scenario draws its own for the seed.
func (s *search) next() (Input, string) {
	if s.runs < drawsFirst || len(s.corpus) == 0 || s.rng.IntN(drawEvery) == 0 {
		return Input{Seed: s.drawSeed()}, "draw"
	}
	parent := s.corpus[s.pick()].in
	var other *Input
	if len(s.corpus) > 1 {
		other = &s.corpus[s.pick()].in
	}
	in, origin, ok := s.mut.mutate(parent, other, s.drawSeed)
	if !ok {
		return Input{Seed: s.drawSeed()}, "draw"
	}
	return in, origin
}

// drawSeed draws a seed of the scenario.
func (s *search) drawSeed() uint64 { return 1 + s.rng.Uint64N(seedMax) }

// pick draws a corpus index, weighted toward entries that reached the
// behaviours fewest runs reached.
func (s *search) pick() int {
	weights := make([]int, len(s.corpus))
	total := 0
	for i, e := range s.corpus {
		weights[i] = s.feat.weight(e.cov)
		total += weights[i]
	}
	x := s.rng.IntN(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	panic("explore: pick fell off the corpus")
}

// record counts a finished run: its features, the corpus, the step.
func (s *search) record(in Input, origin string, out *scenarios.Outcome) {
	s.runs++
	first, novel := s.feat.add(out.Coverage)
	if novel {
		s.corpus = append(s.corpus, entry{in: in, cov: out.Coverage})
	}
	st := Step{Run: s.runs, Seed: in.Seed, Origin: origin, Corpus: len(s.corpus), Reached: s.feat.reached(), New: first}
	s.steps = append(s.steps, st)
	if s.progress != nil {
		s.progress(st)
	}
}

// result is the search's result so far, without a failure.
func (s *search) result() Result {
	r := Result{Scenario: s.sc.Name, Impl: s.impl.Name, Seed: s.seed, Runs: s.runs, Steps: s.steps}
	for _, e := range s.corpus {
		r.Corpus = append(r.Corpus, e.in)
	}
	tasks := s.impl.Capabilities.Checkpoints && s.impl.Capabilities.SideEffects &&
		(s.sc.Workers > 0 || s.sc.TaskSource != nil)
	for i, b := range checker.Behaviours() {
		switch {
		case !b.Applies(s.impl.Spec, tasks):
			r.NotApplicable = append(r.NotApplicable, b.Name)
		case s.feat.hits[i] > 0:
			r.Reached = append(r.Reached, b.Name)
		default:
			r.Unreached = append(r.Unreached, b.Name)
		}
	}
	return r
}
