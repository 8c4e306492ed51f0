package explore

import (
	"math/rand/v2"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/scenarios"
)

// Host runs a search's inputs. The search (corpus, features, mutation,
// stop) is the same on every host; a Host only says how one input runs,
// what a mutation may use, and how a failing input shrinks. Explore runs
// the event host in process (Config.Scenario and Config.Impl) unless
// Config.Host names another, such as simrun's worker processes for
// goroutine code.
type Host interface {
	// Names are the scenario's and the implementation's names, as results
	// and replay lines give them.
	Names() (scenario, impl string)
	// Run runs in. A schedule of version zero asks for a fresh draw: the
	// seed with the scenario's own faults, and Run.Schedule is what was
	// applied. An error is bad input or the harness's.
	Run(in Input) (Run, error)
	// Vocabulary is what mutations may use. The search asks once, after
	// its first run, so a host may read it from that run.
	Vocabulary() (Vocabulary, error)
	// Shrink shrinks in's schedule, with which in.Seed violated target,
	// within attempts runs, with the one shrinker scenarios.ShrinkSeed.
	Shrink(in Input, target checker.Result, attempts int) (Shrunk, error)
}

// Run is what one run reached, drawn from its history.
type Run struct {
	// Schedule is the fault schedule the run applied.
	Schedule faults.Schedule
	// Coverage is the run's behaviour coverage (checker.Cover).
	Coverage checker.Coverage
	// Moments are the protocol moments at which a failpoint fired in the
	// run (Moments): the aim mutation favours those no run has hit.
	Moments []Moment
	// Violated is the first violation that counts for a search
	// (Counts), or nil.
	Violated *checker.Result
	// Hash is the run's trace hash.
	Hash uint64
	// Spec and Tasks say which behaviours the implementation can reach
	// (checker.Behaviour.Applies): the spec its history declares, and
	// whether it ran checkpointed tasks.
	Spec  string
	Tasks bool
}

// Shrunk is a failing input shrunk.
type Shrunk struct {
	// Schedule is the smallest schedule found with which the seed still
	// violates Target; Hash the trace hash of the seed run with it.
	Schedule faults.Schedule
	Target   checker.Result
	Hash     uint64
	// Runs are the runs shrinking took; Exhausted says it stopped at its
	// limit (more may go).
	Runs      int
	Exhausted bool
}

// Vocabulary is what mutations may use: the scenario's nodes, where its
// faults may act, the lease's boundaries, and where fresh events come
// from.
type Vocabulary struct {
	// Nodes are the nodes a schedule may name (faults.Schedule.Validate).
	Nodes []string
	// Targets are the nodes process faults (pause, crash, failpoint,
	// drift) may hit; a role among them is never crashed.
	Targets []string
	// Failpoints are the protocol moments a failpoint event may aim at.
	Failpoints []string
	// Boundaries are the lease's durations that a stretched pause may
	// land near (TTL, TTL×(1±ρ), renew interval, ...).
	Boundaries []time.Duration
	// Rho is the drift bound; zero turns the drift mutation off.
	Rho float64
	// PauseMax bounds a stretched pause.
	PauseMax time.Duration
	// Draw, when set, draws fresh fault events (the scenario's nemesis).
	// Without it, the add mutation takes events from the fresh draws the
	// search has run, which the host drew.
	Draw func(*rand.Rand) []faults.Event
}

// Counts reports whether a violated result counts as a failure for a
// search: P1..P8, or a panic of the implementation. Unknown never counts.
func Counts(r checker.Result) bool {
	return r.Status == checker.Violated && (r.Property == scenarios.PanicProperty ||
		(len(r.Property) == 2 && r.Property[0] == 'P' && r.Property[1] >= '1' && r.Property[1] <= '8'))
}

// FirstViolation returns the first of results that counts (Counts), or
// nil.
func FirstViolation(results []checker.Result) *checker.Result {
	for _, r := range results {
		if Counts(r) {
			return &r
		}
	}
	return nil
}
