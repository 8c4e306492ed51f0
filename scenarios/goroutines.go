package scenarios

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/sim"
)

// Host names, as Outcome.Host gives them.
const (
	// HostEvent is the event host: lease.Impl callbacks on the kernel.
	HostEvent = "event"
	// HostGoroutine is the goroutine host: ordinary Go code in a
	// testing/synctest bubble (package gohost).
	HostGoroutine = "goroutine"
)

// ErrNeedsTest is Execute's error for a goroutine-host scenario run
// without Options.T: testing/synctest runs a bubble only inside a test.
var ErrNeedsTest = errors.New("scenarios: a goroutine-host scenario runs inside a Go test: set Options.T (Run does)")

// validateGoroutines checks a goroutine-host scenario: the roles of the
// event host are left zero, and the run it builds for seed 0 is usable.
func (s Scenario) validateGoroutines() error {
	switch {
	case s.Name == "":
		return errors.New("scenario: name is empty")
	case s.Contenders != 0 || s.Workers != 0 || s.Registrants != 0 || s.Readers != 0 || len(s.Tasks) != 0 ||
		s.TaskSource != nil:
		return fmt.Errorf("scenario %s: goroutines: the event host's roles (contenders, workers, registrants, "+
			"readers, tasks) must be zero: the nodes are the goroutine host's", s.Name)
	case len(s.Faults.Events) != 0 || s.RandomFaults != nil:
		return fmt.Errorf("scenario %s: goroutines: explicit faults belong in the run's own schedule "+
			"(gohost.Config.Schedule)", s.Name)
	}
	cfg := s.Goroutines(0)
	if len(cfg.Nodes) == 0 || cfg.Duration <= 0 {
		return fmt.Errorf("scenario %s: goroutines: the run needs nodes and a positive duration", s.Name)
	}
	return nil
}

// goroutinePlan returns the goroutine-host run for seed with its fault plan:
// override if given, else the run's own schedule with the nemesis's draw
// for seed merged in.
func (s Scenario) goroutinePlan(seed uint64, override *faults.Schedule) (gohost.Config, error) {
	cfg := s.Goroutines(seed)
	if override != nil {
		if err := override.Validate(cfg.NodeNames()); err != nil {
			return cfg, fmt.Errorf("scenario %s: schedule: %w", s.Name, err)
		}
		cfg.Schedule = *override
		return cfg, nil
	}
	if s.Nemesis == nil {
		return cfg, nil
	}
	if err := s.Nemesis.Validate(); err != nil {
		return cfg, fmt.Errorf("scenario %s: nemesis: %w", s.Name, err)
	}
	nemesis := sim.DigestString("nemesis")
	r := rand.New(rand.NewPCG(sim.Digest(seed, nemesis, 0), sim.Digest(seed, nemesis, 1)))
	plan := cfg.Schedule
	plan.Version = max(plan.Version, faults.Version)
	if plan.HealAt == 0 {
		plan.HealAt = s.Nemesis.Phase
	}
	merged, err := faults.Merge(plan, s.Nemesis.Draw(r).Events, cfg.NodeNames())
	if err != nil {
		return cfg, fmt.Errorf("scenario %s: fault plan: %w", s.Name, err)
	}
	cfg.Schedule = merged
	return cfg, nil
}

// executeGoroutines is Execute on the goroutine host.
func executeGoroutines(sc Scenario, seed uint64, opts Options) (*Outcome, error) {
	if opts.T == nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, ErrNeedsTest)
	}
	opts.T.Helper()
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	cfg, err := sc.goroutinePlan(seed, opts.Schedule)
	if err != nil {
		return nil, err
	}
	cfg.Verify = cfg.Verify || opts.Verify
	res := gohost.Run(opts.T, cfg, seed)
	res.History.Premises = EvaluatePremises(sc.Premises, res.History)
	out := &Outcome{Scenario: sc.Name, Impl: opts.Impl.Name, Seed: seed, Host: HostGoroutine, Schedule: cfg.Schedule,
		History: res.History, Goroutine: &res}
	if !opts.Check.Skip {
		j := checker.Judge(res.History, sc.checkOptions(opts.Check))
		out.Checks, out.Metrics, out.Coverage = j.Checks, j.Metrics, j.Coverage
	}
	return out, nil
}

// checkOptions is the scenario's Check with every field that override
// sets put over it.
func (s Scenario) checkOptions(override checker.Options) checker.Options {
	c := s.Check
	o, v := reflect.ValueOf(&c).Elem(), reflect.ValueOf(override)
	for i := range v.NumField() {
		if !v.Field(i).IsZero() {
			o.Field(i).Set(v.Field(i))
		}
	}
	return c
}
