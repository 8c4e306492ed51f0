package explore

import (
	"fmt"
	"math/rand/v2"

	"github.com/leasesim/leasesim/checker"
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
	// originDraw is Step.Origin of a fresh draw.
	originDraw = "draw"
)

// search is the state of one exploration.
type search struct {
	host           Host
	seed           uint64
	budget         int
	shrinkAttempts int
	progress       func(Step)

	rng    *rand.Rand
	mut    *mutator // made after the first run (Host.Vocabulary)
	feat   *features
	corpus []entry
	steps  []Step
	runs   int
	// spec and tasks are the first run's: which behaviours apply.
	spec  string
	tasks bool
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
	}
	host := cfg.Host
	if host == nil {
		h, err := newEventHost(cfg)
		if err != nil {
			return nil, err
		}
		host = h
	}
	s := &search{host: host, seed: cfg.Seed, budget: cfg.Budget,
		shrinkAttempts: cfg.ShrinkAttempts, progress: cfg.Progress, rng: newRand(cfg.Seed), feat: newFeatures()}
	if s.budget == 0 {
		s.budget = DefaultBudget
	}
	if s.shrinkAttempts == 0 {
		s.shrinkAttempts = DefaultShrinkAttempts
	}
	return s, nil
}

// newEventHost checks that cfg's scenario and implementation can run on
// the event host.
func newEventHost(cfg Config) (eventHost, error) {
	if cfg.Scenario.Goroutines != nil {
		return eventHost{}, fmt.Errorf("%w: scenario %s runs on the goroutine host: give Config.Host, which runs it "+
			"(simrun explore does)", ErrInvalid, cfg.Scenario.Name)
	}
	if err := cfg.Scenario.Validate(); err != nil {
		return eventHost{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	impl := cfg.Impl.OrCorrect()
	if err := scenarios.Supports(cfg.Scenario, impl); err != nil {
		return eventHost{}, err
	}
	return eventHost{sc: cfg.Scenario, impl: impl}, nil
}

// newMutator asks the host for its vocabulary, once the first run is in.
func (s *search) newMutator() error {
	v, err := s.host.Vocabulary()
	if err != nil {
		return fmt.Errorf("explore: the scenario's fault vocabulary: %w", err)
	}
	s.mut = newMutator(v, s.rng)
	return nil
}

// next returns the next run's input and how it was made. A fresh draw has
// a zero schedule: the scenario draws its own for the seed.
func (s *search) next() (Input, string) {
	if s.runs < drawsFirst || len(s.corpus) == 0 || s.rng.IntN(drawEvery) == 0 {
		return Input{Seed: s.drawSeed()}, originDraw
	}
	parent := s.corpus[s.pick()].in
	var other *Input
	if len(s.corpus) > 1 {
		other = &s.corpus[s.pick()].in
	}
	in, origin, ok := s.mut.mutate(parent, other, s.drawSeed)
	if !ok {
		return Input{Seed: s.drawSeed()}, originDraw
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
func (s *search) record(in Input, origin string, run Run) {
	s.runs++
	if s.runs == 1 {
		s.spec, s.tasks = run.Spec, run.Tasks
	}
	first, novel := s.feat.add(run.Coverage)
	if novel {
		s.corpus = append(s.corpus, entry{in: in, cov: run.Coverage})
	}
	st := Step{Run: s.runs, Seed: in.Seed, Origin: origin, Corpus: len(s.corpus), Reached: s.feat.reached(), New: first}
	s.steps = append(s.steps, st)
	if s.progress != nil {
		s.progress(st)
	}
}

// result is the search's result so far, without a failure.
func (s *search) result() Result {
	scenario, impl := s.host.Names()
	r := Result{Scenario: scenario, Impl: impl, Seed: s.seed, Runs: s.runs, Steps: s.steps}
	for _, e := range s.corpus {
		r.Corpus = append(r.Corpus, e.in)
	}
	for i, b := range checker.Behaviours() {
		switch {
		case !b.Applies(s.spec, s.tasks):
			r.NotApplicable = append(r.NotApplicable, b.Name)
		case s.feat.hits[i] > 0:
			r.Reached = append(r.Reached, b.Name)
		default:
			r.Unreached = append(r.Unreached, b.Name)
		}
	}
	return r
}
