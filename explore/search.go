package explore

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// Tuning of the search.
const (
	// drawsFirst is how many runs are fresh draws of a scenario before
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
	seed           uint64
	budget         int
	shrinkAttempts int
	progress       func(Step)

	rng   *rand.Rand
	arms  []*arm // one per scenario explored; the first is the primary (portfolio.go)
	steps []Step
	runs  int
}

// arm is one scenario's part of a search: its host, and the corpus and
// features of its runs.
type arm struct {
	host    Host
	mut     *mutator // made after the arm's first run (Host.Vocabulary)
	feat    *features
	moments *momentCounts
	corpus  []entry
	runs    int
	finds   int // runs that joined the corpus
	// spec and tasks are the arm's first run's: which behaviours apply.
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
	hosts := cfg.Hosts
	switch {
	case len(hosts) > 0:
	case cfg.Host != nil:
		hosts = []Host{cfg.Host}
	default:
		h, err := EventHost(cfg.Scenario, cfg.Impl)
		if err != nil {
			return nil, err
		}
		hosts = []Host{h}
	}
	s := &search{seed: cfg.Seed, budget: cfg.Budget,
		shrinkAttempts: cfg.ShrinkAttempts, progress: cfg.Progress, rng: newRand(cfg.Seed)}
	for _, h := range hosts {
		s.arms = append(s.arms, &arm{host: h, feat: newFeatures(), moments: newMomentCounts()})
	}
	if s.budget == 0 {
		s.budget = DefaultBudget
	}
	if s.shrinkAttempts == 0 {
		s.shrinkAttempts = DefaultShrinkAttempts
	}
	return s, nil
}

// EventHost is the Host that runs sc against impl on the event host, in
// process (the zero Impl is lease.Correct()): what Explore uses for
// Config.Scenario and Config.Impl, and for each scenario of Config.Hosts
// when they are the event host's. An error matches ErrInvalid, or is
// scenarios.Supports's.
func EventHost(sc scenarios.Scenario, impl lease.Impl) (Host, error) {
	if sc.Goroutines != nil {
		return nil, fmt.Errorf("%w: scenario %s runs on the goroutine host: give Config.Host, which runs it "+
			"(simrun explore does)", ErrInvalid, sc.Name)
	}
	if err := sc.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	impl = impl.OrCorrect()
	if err := scenarios.Supports(sc, impl); err != nil {
		return nil, err
	}
	return eventHost{sc: sc, impl: impl}, nil
}

// newMutator asks the arm's host for its vocabulary, once its first run
// is in.
func (a *arm) newMutator(rng *rand.Rand) error {
	v, err := a.host.Vocabulary()
	if err != nil {
		return fmt.Errorf("explore: the scenario's fault vocabulary: %w", err)
	}
	a.mut = newMutator(v, rng, a.moments)
	return nil
}

// next returns the next run's arm, input and how the input was made. A
// fresh draw has a zero schedule: the scenario draws its own for the seed.
func (s *search) next() (*arm, Input, string) {
	a := s.pickArm()
	in, origin := s.nextOf(a)
	if len(s.arms) > 1 {
		in.Scenario = scenarioOf(a)
	}
	return a, in, origin
}

// nextOf returns the next input of arm a.
func (s *search) nextOf(a *arm) (Input, string) {
	if a.runs < drawsFirst || len(a.corpus) == 0 || s.rng.IntN(drawEvery) == 0 {
		return Input{Seed: s.drawSeed()}, originDraw
	}
	parent := a.corpus[a.pick(s.rng)].in
	var other *Input
	if len(a.corpus) > 1 {
		other = &a.corpus[a.pick(s.rng)].in
	}
	in, origin, ok := a.mut.mutate(parent, other, s.drawSeed)
	if !ok {
		return Input{Seed: s.drawSeed()}, originDraw
	}
	return in, origin
}

// drawSeed draws a seed of a scenario.
func (s *search) drawSeed() uint64 { return 1 + s.rng.Uint64N(seedMax) }

// pick draws a corpus index, weighted toward entries that reached the
// behaviours fewest of the arm's runs reached.
func (a *arm) pick(rng *rand.Rand) int {
	weights := make([]int, len(a.corpus))
	total := 0
	for i, e := range a.corpus {
		weights[i] = a.feat.weight(e.cov)
		total += weights[i]
	}
	return weighted(rng, weights, total)
}

// weighted draws an index with the given weights, whose sum is total.
func weighted(rng *rand.Rand, weights []int, total int) int {
	x := rng.IntN(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	panic("explore: a weighted draw fell off its weights")
}

// record counts a finished run: its features, the arm's corpus, the step.
func (s *search) record(a *arm, in Input, origin string, run Run) {
	s.runs++
	a.runs++
	if a.runs == 1 {
		a.spec, a.tasks = run.Spec, run.Tasks
	}
	a.moments.add(run.Schedule, run.Moments)
	if a.feat.add(run.Coverage) {
		a.corpus = append(a.corpus, entry{in: in, cov: run.Coverage})
		a.finds++
	}
	st := Step{Run: s.runs, Seed: in.Seed, Scenario: in.Scenario, Origin: origin, Corpus: s.corpusLen(),
		Reached: s.reached()}
	for i, b := range checker.Behaviours() {
		if run.Coverage[i] > 0 && s.hits(i) == 1 { // this run is the only one of any arm that reached it
			st.New = append(st.New, b.Name)
		}
	}
	s.steps = append(s.steps, st)
	if s.progress != nil {
		s.progress(st)
	}
}

// corpusLen is the size of every arm's corpus together.
func (s *search) corpusLen() int {
	n := 0
	for _, a := range s.arms {
		n += len(a.corpus)
	}
	return n
}

// reached counts the behaviours some run of some arm reached.
func (s *search) reached() int {
	n := 0
	for i := range checker.Behaviours() {
		if s.hits(i) > 0 {
			n++
		}
	}
	return n
}

// hits is how many runs of every arm reached behaviour i.
func (s *search) hits(i int) int {
	n := 0
	for _, a := range s.arms {
		n += a.feat.hits[i]
	}
	return n
}

// result is the search's result so far, without a failure.
func (s *search) result() Result {
	r := Result{Seed: s.seed, Runs: s.runs, Steps: s.steps}
	var names []string
	for _, a := range s.arms {
		scenario, impl := a.host.Names()
		names = append(names, scenario)
		r.Impl = impl
		for _, e := range a.corpus {
			r.Corpus = append(r.Corpus, e.in)
		}
	}
	r.Scenario = strings.Join(names, ",")
	if len(s.arms) > 1 {
		r.Scenarios = names
	}
	for i, b := range checker.Behaviours() {
		switch {
		case !s.applies(b):
			r.NotApplicable = append(r.NotApplicable, b.Name)
		case s.hits(i) > 0:
			r.Reached = append(r.Reached, b.Name)
		default:
			r.Unreached = append(r.Unreached, b.Name)
		}
	}
	return r
}

// applies reports whether b applies to some arm that ran.
func (s *search) applies(b checker.Behaviour) bool {
	ran := false
	for _, a := range s.arms {
		if a.runs > 0 {
			ran = true
			if b.Applies(a.spec, a.tasks) {
				return true
			}
		}
	}
	return !ran && b.Applies("", false)
}
