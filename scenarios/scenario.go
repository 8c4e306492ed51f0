package scenarios

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// Scenario is one test story as a value: who runs, what they do, what goes
// wrong, and what must have happened for the verdicts to mean anything. It
// runs on one of three hosts, and everything above the host (Execute, Run,
// ShrinkSeed, premises, the checkers) is the same for all of them:
//
//   - The event host (the default): leasesim's roles on the kernel, with
//     node names fixed by role: "grantor" (the lease store), "store" (the
//     fenced resource), contending holders "h1".."hN", workers "w1".."wN",
//     service registrants "s1".."sN" and discovery readers "r1".."rN". The
//     implementation is a lease.Impl (Options.Impl).
//   - The goroutine host, when Goroutines is set: ordinary Go code, one
//     function per node, in a testing/synctest bubble on a simulated
//     network (package gohost). The role fields stay zero.
//   - The real-time host, when Processes is set: real processes on real
//     TCP in real time (zoo/etcd), under the scenario's Faults; its
//     outcomes are statistical. The role fields stay zero.
type Scenario struct {
	Name  string // kebab-case, used on the command line
	Doc   string // one line, for `simrun list`
	Story string // a paragraph: what happens and what must hold

	// Goroutines, when set, makes the scenario a goroutine-host story: it
	// builds the run for a seed (the nodes and their Go functions, the
	// explicit faults, the duration and the history header) and must
	// depend on nothing but the seed. Nemesis draws more faults into its
	// schedule; Premises and Check apply as on the event host.
	Goroutines func(seed uint64) gohost.Config
	// Processes, when set, makes the scenario a real-time story: the host
	// runs its processes under Faults (HealAt filled in) and returns the
	// history; Premises and Check apply as on the other hosts.
	Processes Processes
	// Check is how the checkers judge this story (a spec, properties to
	// skip); Options.Check, when it sets a field, overrides it.
	Check checker.Options

	// Config is the lease configuration; zero fields take defaults.
	Config lease.Config
	// Link is the healthy network; nil means sim.DefaultLink.
	Link *sim.LinkConfig

	// Contenders is how many holders contend for Lock.Resource.
	Contenders int
	Lock       LockLoad
	// Workers is how many workers run the checkpointed Tasks.
	Workers int
	Tasks   []TaskSpec
	// WorkersOptional says the workers are a second load, not the story:
	// an implementation without checkpoints (or side effects) runs the
	// scenario without them, and the outcome says so (ForImpl), instead of
	// skipping the whole story.
	WorkersOptional bool
	// TaskSource, when set, streams the tasks instead (a workload file); it
	// is called once per run with the run's own PRNG for the workload, for
	// task sizes drawn from distributions. If the source is an io.Closer, it
	// is closed when the run ends.
	TaskSource func(r *rand.Rand) (TaskSource, error)
	// Registrants register one service each, attached to their lease;
	// Readers poll the registry.
	Registrants, Readers int
	Registry             RegistryLoad

	// Faults is an explicit fault schedule; it may be empty.
	Faults faults.Schedule
	// Nemesis, when set, draws more faults from the seed. Its targets
	// default to every node.
	Nemesis *faults.Nemesis
	// RandomFaults, when set, draws further faults from the seed: a workload
	// uses it for the GC pauses and crashes its environment describes. The
	// events must come before HealAt.
	RandomFaults func(r *rand.Rand) []faults.Event
	// Premises are what the story needs to have happened; each is checked
	// on every run, and a run in which one did not happen is unknown.
	Premises []Premise
	// Duration is the whole run; HealAt is when faults stop, and the rest is
	// the heal phase in which liveness (P4) is checked.
	Duration, HealAt time.Duration
}

// LockLoad is what contending holders do.
type LockLoad struct {
	Resource   string        // the contended resource (default "lock")
	Start      time.Duration // when h1 starts acquiring
	Stagger    time.Duration // each next holder starts this much later
	WriteEvery time.Duration // while holding, write to the fenced store this often
	Hold       time.Duration // release after holding this long; 0 holds until lost
	Idle       time.Duration // wait this long after a release before contending again
	// Keys is how many keys of the fenced store one lease covers: while
	// holding, a holder visits them in turn, one every WriteEvery, from
	// the first after each grant. 0 or 1 is the one key "x"; more are
	// "k1".."kN".
	Keys int
	// ReadBack makes each visit a read-modify-write: the holder reads the
	// key back from the fenced store under its token, and writes it when
	// the value arrives and it still holds the lease. It needs
	// lease.Capabilities.Reads.
	ReadBack bool
	// Drawn makes Keys and ReadBack a draw of each seed (swarm testing):
	// the seed's holders cover between one and Keys keys, and with
	// ReadBack read them back on half the seeds. Against an implementation
	// without reads the holders write one key blind on every seed, and the
	// scenario does not need reads (Adaptations says so).
	Drawn bool
}

// TaskSpec is one checkpointed task: Units units of UnitTime each, arriving
// at Arrival. Every worker contends for every task that has arrived.
type TaskSpec struct {
	ID       string
	Arrival  time.Duration
	Units    int
	UnitTime time.Duration
}

// EvenTasks returns count tasks "t1".."tN" of the same size, one arriving
// every every, starting at time zero.
func EvenTasks(count, units int, unitTime, every time.Duration) []TaskSpec {
	tasks := make([]TaskSpec, count)
	for i := range tasks {
		tasks[i] = TaskSpec{ID: fmt.Sprintf("t%d", i+1), Arrival: time.Duration(i) * every, Units: units, UnitTime: unitTime}
	}
	return tasks
}

// RegistryLoad is what the service registry does.
type RegistryLoad struct {
	Poll time.Duration // how often each reader lists the registry
}

// The fixed node names.
const (
	GrantorNode = "grantor"
	StoreNode   = "store"
)

// Validate reports the first field that makes s unusable.
func (s Scenario) Validate() error {
	if s.Processes != nil {
		return s.validateProcesses()
	}
	if s.Goroutines != nil {
		return s.validateGoroutines()
	}
	cfg := s.Config.WithDefaults()
	switch {
	case s.Name == "":
		return errors.New("scenario: name is empty")
	case s.Duration <= 0:
		return fmt.Errorf("scenario %s: duration: must be positive, got %v", s.Name, s.Duration)
	case s.HealAt < 0 || s.HealAt > s.Duration:
		return fmt.Errorf("scenario %s: heal_at: %v must lie within the run [0, %v]", s.Name, s.HealAt, s.Duration)
	case s.Contenders < 0 || s.Workers < 0 || s.Registrants < 0 || s.Readers < 0:
		return fmt.Errorf("scenario %s: node counts must not be negative", s.Name)
	case s.Contenders+s.Workers+s.Registrants == 0:
		return fmt.Errorf("scenario %s: no holders: set contenders, workers or registrants", s.Name)
	case s.Readers > 0 && s.Registry.Poll <= 0:
		return fmt.Errorf("scenario %s: registry.poll: must be positive when there are readers", s.Name)
	case s.Lock.Keys < 0:
		return fmt.Errorf("scenario %s: lock.keys: must not be negative, got %d", s.Name, s.Lock.Keys)
	case s.Workers > 0 && len(s.Tasks) == 0 && s.TaskSource == nil:
		return fmt.Errorf("scenario %s: workers without tasks", s.Name)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("scenario %s: config: %w", s.Name, err)
	}
	for i, t := range s.Tasks {
		if t.ID == "" || t.Units <= 0 || t.UnitTime <= 0 || t.Arrival < 0 {
			return fmt.Errorf("scenario %s: task %d (%q): needs an id, units > 0, unit time > 0 and arrival >= 0", s.Name, i, t.ID)
		}
	}
	if s.Link != nil {
		if err := s.Link.Validate(); err != nil {
			return fmt.Errorf("scenario %s: link: %w", s.Name, err)
		}
	}
	return nil
}

// Nodes returns every node name of the scenario, in the order they are added
// to the world.
func (s Scenario) Nodes() []string {
	if s.Processes != nil {
		return s.Processes.Nodes()
	}
	if s.Goroutines != nil {
		cfg := s.Goroutines(0)
		return cfg.NodeNames()
	}
	names := []string{GrantorNode, StoreNode}
	for _, role := range []struct {
		prefix string
		count  int
	}{{"h", s.Contenders}, {"w", s.Workers}, {"s", s.Registrants}, {"r", s.Readers}} {
		for i := 1; i <= role.count; i++ {
			names = append(names, fmt.Sprintf("%s%d", role.prefix, i))
		}
	}
	return names
}

// lockResource is the contended resource's name.
func (l LockLoad) resource() string {
	if l.Resource == "" {
		return "lock"
	}
	return l.Resource
}

// keyNames are the keys of the fenced store a lease covers (Keys).
func (l LockLoad) keyNames() []string {
	if l.Keys <= 1 {
		return []string{"x"}
	}
	keys := make([]string, l.Keys)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i+1)
	}
	return keys
}
