package scenarios

import (
	"context"
	"errors"
	"fmt"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
)

// HostProcess is the real-time host, as Outcome.Host gives it: real
// processes on real TCP in real time (zoo/etcd runs etcd members and
// clientv3 holders this way). Its determinism is history.Statistical: the
// same schedule is replayed, and a story reports how often its verdicts
// came again.
const HostProcess = "process"

// Processes is what a real-time host runs a story with: the processes and
// what they do are the host's, the fault plan is the scenario's (or a
// replay's), and the history it returns is judged here like any other, by
// the scenario's premises and the checkers.
type Processes interface {
	// Nodes names the run's processes, as a schedule names them.
	Nodes() []string
	// Run runs the story once for seed under schedule (times since the
	// run's start) and returns the history it recorded. It must end every
	// process it started and remove what it created before it returns,
	// also when ctx ends or it fails. Premise records the host itself
	// observed may be in the history; the scenario's premises are added
	// after them.
	Run(ctx context.Context, seed uint64, schedule faults.Schedule) (*history.History, error)
}

// validateProcesses checks a real-time scenario: the roles of the event
// host are left zero, and its processes have names.
func (s Scenario) validateProcesses() error {
	switch {
	case s.Name == "":
		return errors.New("scenario: name is empty")
	case s.Goroutines != nil:
		return fmt.Errorf("scenario %s: processes and goroutines: a scenario runs on one host", s.Name)
	case s.Contenders != 0 || s.Workers != 0 || s.Registrants != 0 || s.Readers != 0 || len(s.Tasks) != 0 ||
		s.TaskSource != nil || s.Nemesis != nil || s.RandomFaults != nil:
		return fmt.Errorf("scenario %s: processes: the event host's roles (contenders, workers, registrants, "+
			"readers, tasks) and drawn faults must be zero: the processes are the real-time host's", s.Name)
	case len(s.Processes.Nodes()) == 0:
		return fmt.Errorf("scenario %s: processes: the run names no process", s.Name)
	}
	return nil
}

// executeProcesses is Execute on the real-time host: the schedule is
// opts.Schedule or the scenario's Faults (HealAt filled in), validated
// against the processes' names before anything starts.
func executeProcesses(sc Scenario, seed uint64, opts Options) (*Outcome, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	plan := sc.Faults
	if opts.Schedule != nil {
		plan = *opts.Schedule
	}
	plan.Version = max(plan.Version, faults.Version)
	if plan.HealAt == 0 {
		plan.HealAt = sc.HealAt
	}
	if err := plan.Validate(sc.Processes.Nodes()); err != nil {
		return nil, fmt.Errorf("scenario %s: schedule: %w", sc.Name, err)
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	h, err := sc.Processes.Run(ctx, seed, plan)
	if err != nil {
		return nil, fmt.Errorf("scenario %s seed %d: %w", sc.Name, seed, err)
	}
	h.Premises = append(h.Premises, EvaluatePremises(sc.Premises, h)...)
	out := &Outcome{Scenario: sc.Name, Impl: opts.Impl.Name, Seed: seed, Host: HostProcess, Schedule: plan, History: h}
	if !opts.Check.Skip {
		j := checker.Judge(h, sc.checkOptions(opts.Check))
		out.Checks, out.Metrics, out.Coverage = j.Checks, j.Metrics, j.Coverage
	}
	return out, nil
}
