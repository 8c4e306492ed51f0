package explore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// Limits and defaults of a search.
const (
	// DefaultBudget is the number of runs a search makes when Config.Budget
	// is zero.
	DefaultBudget = 100
	// MaxBudget bounds Config.Budget.
	MaxBudget = 100_000
	// DefaultShrinkAttempts bounds the runs that shrinking a failure makes
	// when Config.ShrinkAttempts is zero.
	DefaultShrinkAttempts = 200
)

// ErrInvalid is returned for a Config that cannot be explored.
var ErrInvalid = errors.New("explore: invalid input")

// Config says what to explore and how far.
type Config struct {
	// Scenario and Impl are what every run runs; the zero Impl is
	// lease.Correct(). The scenario must run on the event host.
	Scenario scenarios.Scenario
	Impl     lease.Impl
	// Host, when set, runs the inputs instead, and Scenario and Impl are
	// not used: simrun's worker processes for goroutine code, say.
	Host Host
	// Hosts, when set, are several scenarios' hosts of one implementation,
	// explored together: the search divides its budget between them, each
	// with a corpus of its own, and Scenario, Impl and Host are not used.
	// The first is the primary, the scenario whose faults are the most
	// varied (simrun explore --scenario all puts swarm first): it takes
	// every other run; the others run once each, in order, and are then
	// picked with a weight that follows how often their runs reached
	// something new (portfolio.go).
	Hosts []Host
	// Seed is the explorer's own seed: every choice the search makes
	// (run seeds, parents, mutations) is drawn from it.
	Seed uint64
	// Budget is how many runs the search makes at most, shrinking not
	// counted; zero means DefaultBudget.
	Budget int
	// ShrinkAttempts bounds the runs spent shrinking the failure; zero
	// means DefaultShrinkAttempts.
	ShrinkAttempts int
	// Progress, when set, is called after every run with its Step.
	Progress func(Step)
}

// Input is what one run runs: a seed of the scenario and the fault
// schedule that replaces the scenario's own.
type Input struct {
	// Scenario names the input's scenario when the search explores
	// several (Config.Hosts); a host ignores it.
	Scenario string          `json:"scenario,omitempty"`
	Seed     uint64          `json:"seed"`
	Schedule faults.Schedule `json:"schedule"`
}

// Step is what the search had reached after one run.
type Step struct {
	Run  int    `json:"run"` // 1 for the first run
	Seed uint64 `json:"seed"`
	// Scenario is the scenario the run ran, when the search explores
	// several (Config.Hosts).
	Scenario string `json:"scenario,omitempty"`
	Origin   string `json:"origin"` // how the run's input was made: "draw" or the mutations applied
	// Corpus is the corpus size after the run, Reached the behaviours
	// reached by some run so far.
	Corpus  int `json:"corpus"`
	Reached int `json:"reached"`
	// New are the behaviours this run reached first.
	New []string `json:"new,omitempty"`
}

// Failure is the first violation a search found, shrunk.
type Failure struct {
	// Run is the number of the run that violated (1 for the first).
	Run int
	// Input is what that run ran; Violated its first violated property.
	Input    Input
	Violated checker.Result
	// Shrunk is the smallest schedule found with which Input.Seed still
	// violates the same property; ShrinkRuns the runs that took, and
	// ShrinkExhausted says shrinking stopped at Config.ShrinkAttempts
	// (more may go).
	Shrunk          faults.Schedule
	ShrinkRuns      int
	ShrinkExhausted bool
	// Hash is the trace hash of the seed run with Shrunk.
	Hash uint64
}

// Result is what a search did and found.
type Result struct {
	// Scenario is the scenario explored; with several, the one whose run
	// failed, or their names joined by commas when none did. Scenarios
	// are those several, in Config.Hosts order.
	Scenario, Impl string
	Scenarios      []string
	Seed           uint64 // the explorer's seed
	// Runs is how many runs the search made before it stopped.
	Runs  int
	Steps []Step
	// Corpus are the inputs that reached something new, in the order they
	// did.
	Corpus []Input
	// Reached and Unreached are the behaviours some run did and no run
	// did, in checker.Behaviours order; NotApplicable those the
	// implementation cannot reach (another spec, no checkpointed tasks).
	Reached, Unreached, NotApplicable []string
	// Failure is the first violation, or nil when none was found within
	// the budget.
	Failure *Failure
}

// Replay returns the simrun line that replays an event-host failure with
// the shrunk schedule read from scheduleFile ("-" for standard input).
func (r Result) Replay(scheduleFile string) string {
	if r.Failure == nil {
		panic("explore: Replay of a result without a failure")
	}
	return repro.Simrun("run", "--scenario", r.Scenario, "--seed", strconv.FormatUint(r.Failure.Input.Seed, 10),
		"--impl", r.Impl, "--schedule", scheduleFile)
}

// Explore runs the search cfg describes. An error means bad input (it
// matches ErrInvalid, or is the scenario's own error from
// scenarios.Execute, such as a *scenarios.UnsupportedError) or a bug of the
// harness (a *scenarios.HarnessPanic, or the host's own error); a
// violation is a Result with a Failure.
func Explore(cfg Config) (Result, error) {
	s, err := newSearch(cfg)
	if err != nil {
		return Result{}, err
	}
	for s.runs < s.budget {
		a, in, origin := s.next()
		run, err := a.host.Run(in)
		if err != nil {
			return s.result(), fmt.Errorf("explore: run %d (%s, seed %d): %w", s.runs+1, scenarioOf(a), in.Seed, err)
		}
		if in.Schedule.Version == 0 { // a fresh draw: keep the schedule it drew
			in.Schedule = run.Schedule
		}
		s.record(a, in, origin, run)
		if a.mut == nil {
			if err := a.newMutator(s.rng); err != nil {
				return s.result(), err
			}
		}
		if origin == originDraw {
			a.mut.drawn(in.Schedule)
		}
		if run.Violated != nil {
			return s.fail(a, in, *run.Violated)
		}
	}
	return s.result(), nil
}

// scenarioOf is the name of a's scenario.
func scenarioOf(a *arm) string {
	name, _ := a.host.Names()
	return name
}

// fail shrinks the violating input and returns the result with its
// Failure; the result names a's scenario.
func (s *search) fail(a *arm, in Input, v checker.Result) (Result, error) {
	shrunk, err := a.host.Shrink(in, v, s.shrinkAttempts)
	if err != nil {
		return s.result(), fmt.Errorf("explore: shrinking run %d (%s, seed %d): %w", s.runs, scenarioOf(a), in.Seed, err)
	}
	r := s.result()
	r.Scenario = scenarioOf(a)
	r.Failure = &Failure{Run: s.runs, Input: in, Violated: v, Shrunk: shrunk.Schedule,
		ShrinkRuns: shrunk.Runs, ShrinkExhausted: shrunk.Exhausted, Hash: shrunk.Hash}
	if shrunk.Target.Property != v.Property { // ShrinkSeed keeps the first violated property
		r.Failure.Violated = shrunk.Target
	}
	return r, nil
}

// newRand is the explorer's one random stream.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6578706c6f7265)) } // "explore"
