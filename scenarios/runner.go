package scenarios

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/sim"
)

// Options says how to run a scenario.
type Options struct {
	// Impl is the lease implementation under test; the zero value means
	// lease.Correct().
	Impl lease.Impl
	// Schedule, when set, replaces the scenario's fault plan (its explicit
	// faults and its nemesis): this is how replay and shrink run a schedule
	// from a file.
	Schedule *faults.Schedule
	// Trace configures the kernel's trace (memory and streaming).
	Trace sim.TraceConfig
	// Logger receives the seed and derived seeds first; nil discards.
	Logger *slog.Logger
	// Observer, when set, sees the lease events of every node as well.
	Observer lease.Observer
	// Check configures the checkers; Skip runs none.
	Check checker.Options
	// T is the test a goroutine-host scenario runs in (testing/synctest
	// needs one); Run sets it. The event host ignores it.
	T *testing.T
	// Context ends a real-time run early (Scenario.Processes): the host
	// then stops every process it started and Execute returns the
	// context's error. Nil means context.Background(); the simulated
	// hosts ignore it.
	Context context.Context
	// Verify runs a goroutine-host seed twice and compares the traces: the
	// outcome's determinism is then verified, or diverged at an event. The
	// event host is exact by construction and ignores it.
	Verify bool
}

// Outcome is one finished run: what ran, what happened, and the verdicts.
type Outcome struct {
	Scenario string
	Impl     string
	Seed     uint64
	// Host is the host that ran it: HostEvent, HostGoroutine or
	// HostProcess.
	Host string
	// Adapted says how the scenario ran differently for this implementation
	// than the catalogue describes it (Adaptations), if it did.
	Adapted []string
	// Sim is the kernel's result: time reached, events, trace hash, and why
	// the run stopped early, if it did (the event host).
	Sim sim.Result
	// Goroutine is the goroutine host's result: its trace and hash, the
	// determinism level, leaked goroutines and problems (nil on the event
	// host).
	Goroutine *gohost.Result
	// Schedule is the fault plan that was applied: the explicit faults plus
	// the nemesis's draw, or Options.Schedule.
	Schedule faults.Schedule
	// Faults is what acted, in order.
	Faults []sim.FaultRecord
	// Unapplied are the events of Schedule aimed at a role that no node
	// held when they were due (faults.RoleLeader while no member led):
	// they did not act, and Faults does not show them.
	Unapplied []faults.Event
	History   *history.History
	Checks    []checker.Result
	Metrics   checker.Metrics
	// Coverage counts the rare behaviours this run reached (checker.Cover),
	// zero when Options.Check.Skip; a sweep adds them up and flags those no
	// run reached.
	Coverage checker.Coverage
}

// Violated returns the properties that were violated.
func (o *Outcome) Violated() []checker.Result {
	var out []checker.Result
	for _, r := range o.Checks {
		if r.Status == checker.Violated {
			out = append(out, r)
		}
	}
	return out
}

// Verdict returns the status of property ("P1" … "P6", "premise"), or ""
// when it was not checked.
func (o *Outcome) Verdict(property string) checker.Status {
	for _, r := range o.Checks {
		if r.Property == property {
			return r.Status
		}
	}
	return ""
}

// TraceHash is the run's trace hash, on either host.
func (o *Outcome) TraceHash() uint64 {
	if o.Goroutine != nil {
		return o.Goroutine.Hash
	}
	return o.Sim.TraceHash
}

// Err reports what went wrong outside the properties: the event host's run
// stopped at a limit; the goroutine host's run diverged, leaked a
// goroutine, or had a problem (a node's error, a stall).
func (o *Outcome) Err() error {
	if o.Goroutine != nil {
		return o.Goroutine.Err()
	}
	return o.Sim.Err
}

// Failed reports whether the run found something wrong: a property
// violated, or Err.
func (o *Outcome) Failed() bool { return len(o.Violated()) > 0 || o.Err() != nil }

// Execute runs scenario sc with seed, on the host the scenario names: the
// event host, the goroutine host when sc.Goroutines is set (which needs
// opts.T), or the real-time host when sc.Processes is set (opts.Context
// ends it early). An error means bad input (an invalid
// scenario or schedule), an implementation that failed to boot, or a bug of
// the harness itself: a *HarnessPanic, which is never the implementation's
// fault (a CLI exits 3 for it). A panic of the implementation under test
// is the implementation's: the run ends and Outcome.Checks reports it under
// PanicProperty. A run that hits a limit reports it in Outcome.Sim.Err.
func Execute(sc Scenario, seed uint64, opts Options) (out *Outcome, err error) {
	if sc.Processes != nil {
		return executeProcesses(sc, seed, opts)
	}
	if sc.Goroutines != nil {
		return executeGoroutines(sc, seed, opts)
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, asHarnessPanic(markPanic(r))
		}
	}()
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	impl := opts.Impl.OrCorrect()
	if err := Supports(sc, impl); err != nil {
		return nil, err
	}
	adapted := Adaptations(sc, impl)
	sc = sc.ForImpl(impl)
	impl = guardImpl(impl)
	cfg := sc.Config.WithDefaults()
	if impl.DriftSplit != lease.SplitGrantorHolds {
		cfg.DriftSplit = impl.DriftSplit // the implementation declares how it splits the drift budget
	}
	trace := opts.Trace
	if trace.Keep == 0 {
		trace.Keep = -1 // no one can read the world's recent records after Execute: keep none (the hash covers all)
	}
	w := sim.New(sim.Config{Seed: seed, Link: sc.Link, Trace: trace, Logger: opts.Logger})
	sc.Lock = sc.Lock.draw(w)
	h := &history.History{Spec: historySpec(impl, cfg), Lease: leasewire.Lease(cfg), Grantor: GrantorNode,
		Resource: StoreNode}
	rec := newRecorder(w, h)
	src, err := sc.tasks(w)
	if err != nil {
		return nil, err
	}

	b := builder{w: w, rec: rec, impl: impl, cfg: cfg, sc: sc, extra: opts.Observer, queue: newTaskQueue(w, h, src),
		wiring: newRunWiring()}
	b.addNodes()
	b.queue.start()

	plan, err := sc.plan(w, opts.Schedule, sc.NodesFor(impl))
	if err != nil {
		return nil, err
	}
	if err := plan.ApplyWith(w, b.leaders.roles()); err != nil {
		return nil, fmt.Errorf("scenario %s: schedule: %w", sc.Name, err)
	}
	res, crash := runGuarded(w, sim.Time(sc.Duration))
	if c, ok := src.(io.Closer); ok {
		if err := c.Close(); err != nil {
			return nil, fmt.Errorf("scenario %s: close tasks: %w", sc.Name, err)
		}
	}
	if b.bootErr != nil {
		return nil, b.bootErr
	}
	if b.queue.err != nil {
		return nil, fmt.Errorf("scenario %s: tasks: %w", sc.Name, b.queue.err)
	}
	b.finish(h, plan, res)
	if h.Spec == model.LessorSpec().Name && h.MaxDriftPPB > h.Lease.RhoPPB {
		// The lessor's expiry is judged in true time: with clocks that ran
		// beyond rho, by the drift they had (P1 reports the assumption).
		h.Spec = model.LessorDriftVariant(h.MaxDriftPPB)
	}
	out = &Outcome{Scenario: sc.Name, Impl: impl.Name, Seed: seed, Host: HostEvent, Adapted: adapted, Sim: res, Schedule: plan,
		Faults: slices.Clip(w.Faults()), History: h} // the world ends here: its log needs no copy
	if b.leaders != nil {
		out.Unapplied = b.leaders.unapplied
	}
	// Coverage is part of checking: an unchecked run measures only the simulation.
	j := checker.Judge(h, sc.checkOptions(opts.Check))
	out.Checks, out.Metrics, out.Coverage = j.Checks, j.Metrics, j.Coverage
	if crash != "" {
		out.Checks = append(out.Checks, checker.Result{Property: PanicProperty, Name: "no panic", Status: checker.Violated,
			Summary:    "the implementation panicked: " + crash,
			Violations: []checker.Violation{{Property: PanicProperty, At: history.Time(res.Now), Detail: crash}}})
	}
	return out, nil
}

// historySpec is the specification the implementation declares for its
// lease store: leasesim's lease store under the drift split it declared,
// unless it declares another.
func historySpec(impl lease.Impl, cfg lease.Config) string {
	if impl.Spec != "" && impl.Spec != leasewire.SpecLeaseStore {
		return impl.Spec
	}
	return leasewire.Spec(cfg.DriftSplit)
}

// PanicProperty names the verdict given when the implementation under test
// panics (for example on one of its own invariants) during a run.
const PanicProperty = "panic"

// runGuarded runs the world to end. A panic raised by the implementation
// under test (marked so by the boundary it crossed: see guard.go) ends the
// run and is returned as text, to be reported as a violation; any other
// panic is a harness bug and propagates as a *HarnessPanic.
func runGuarded(w *sim.World, end sim.Time) (res sim.Result, crash string) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		marked := markPanic(r)
		ip, ok := marked.(*implPanic)
		if !ok {
			panic(asHarnessPanic(marked))
		}
		crash = fmt.Sprint(ip.value)
		res = sim.Result{Now: w.Now(), Events: w.Events(), TraceHash: w.Trace().Hash(),
			Err: fmt.Errorf("run ended by a panic at %v", w.Now())}
	}()
	return w.RunUntil(end), ""
}

// harnessFault arms a deliberate runtime error in the wiring: see
// InjectHarnessFault.
var harnessFault atomic.Bool

// InjectHarnessFault arms, until the returned function disarms it, a
// deliberate runtime error (an index out of range) in this package's
// wiring code, where the transport hands the implementation's first
// message to the kernel: harness code called by the implementation. It is
// for tests of the harness's own error handling (a harness bug must give
// a *HarnessPanic and exit 3, never a verdict on the implementation), and
// affects every run in the process while armed.
func InjectHarnessFault() (disarm func()) {
	harnessFault.Store(true)
	return func() { harnessFault.Store(false) }
}

// injectedHarnessFault fails with an index out of range when armed.
func injectedHarnessFault() {
	if harnessFault.Load() {
		var none []int
		_ = none[len(none)]
	}
}

// plan returns the fault schedule of a run: override if given, otherwise
// the scenario's explicit faults plus the nemesis's draw for this seed.
func (sc Scenario) plan(w *sim.World, override *faults.Schedule, nodes []string) (faults.Schedule, error) {
	if override != nil {
		if err := override.Validate(nodes); err != nil {
			return faults.Schedule{}, fmt.Errorf("scenario %s: schedule: %w", sc.Name, err)
		}
		return *override, nil
	}
	plan := sc.Faults
	plan.Version = max(plan.Version, faults.Version)
	if plan.HealAt == 0 {
		plan.HealAt = sc.HealAt
	}
	var drawn []faults.Event
	if sc.Nemesis != nil {
		nem := sc.nemesis(nodes)
		if err := nem.Validate(); err != nil {
			return faults.Schedule{}, fmt.Errorf("scenario %s: nemesis: %w", sc.Name, err)
		}
		drawn = nem.Draw(w.Rand("nemesis")).Events
	}
	if sc.RandomFaults != nil {
		drawn = append(drawn, sc.RandomFaults(w.Rand("random-faults"))...)
	}
	plan, err := faults.Merge(plan, drawn, nodes)
	if err != nil {
		return faults.Schedule{}, fmt.Errorf("scenario %s: fault plan: %w", sc.Name, err)
	}
	return plan, nil
}

// NodesFor returns the names of the scenario's nodes when it runs against
// impl: Nodes, with the lease store's further members (grantor2, …) for a
// replicated store (lease.Impl.Members), and then the role such a store's
// leader is (faults.RoleLeader). Schedules against impl name these.
func (sc Scenario) NodesFor(impl lease.Impl) []string {
	nodes := sc.Nodes()
	if sc.Goroutines != nil || sc.Processes != nil {
		return nodes // the goroutine and real-time hosts' nodes are the scenario's own
	}
	for _, m := range lease.MemberAddrs(GrantorNode, impl.Members)[1:] {
		nodes = append(nodes, string(m))
	}
	return append(nodes, roleNodes(impl)...)
}

// nemesis returns the scenario's nemesis with its defaults filled in: it
// acts during the fault phase, on every node (nodes: every member of a
// replicated store too), with durations biased towards the lease's
// boundaries.
func (sc Scenario) nemesis(nodes []string) faults.Nemesis {
	nem := *sc.Nemesis
	cfg := sc.Config.WithDefaults()
	nem.Phase = sc.HealAt
	if len(nem.Targets) == 0 {
		nem.Targets = nodesOnly(nodes) // a role is a target only where the scenario names it
	} else {
		nem.Targets = withMembers(nem.Targets, nodes)
	}
	if len(nem.Partitionable) == 0 {
		nem.Partitionable = nodesOnly(nodes)
	} else {
		nem.Partitionable = withMembers(nem.Partitionable, nodes)
	}
	if nem.Rho == 0 {
		nem.Rho = cfg.Rho
	}
	if len(nem.Boundaries) == 0 {
		nem.Boundaries = []time.Duration{cfg.TTL, cfg.HolderValidity(cfg.TTL), cfg.GrantorHold(cfg.TTL),
			cfg.RenewInterval, cfg.RequestTimeout}
	}
	if nem.PauseMax == 0 {
		nem.PauseMax = 3 * cfg.TTL
	}
	if nem.DelayMax == 0 {
		nem.DelayMax = 2 * cfg.TTL
	}
	if nem.StepMax == 0 {
		nem.StepMax = 2 * cfg.TTL
	}
	if nem.WindowMax == 0 {
		nem.WindowMax = 4 * cfg.TTL
	}
	if len(nem.Failpoints) == 0 {
		nem.Failpoints = nemesisFailpoints()
	}
	return nem
}

// withMembers returns targets with every further member of a replicated
// store (the names in nodes after the scenario's own that share the
// grantor's prefix) added if targets names the grantor: a nemesis told to
// act on the grantor acts on every member.
func withMembers(targets, nodes []string) []string {
	if !slices.Contains(targets, GrantorNode) {
		return targets
	}
	out := slices.Clone(targets)
	for _, n := range nodes {
		if _, i, ok := lease.ParseMember(lease.Addr(n), len(nodes)); ok && i > 0 && !slices.Contains(out, n) &&
			strings.HasPrefix(n, GrantorNode) {
			out = append(out, n)
		}
	}
	return out
}

// tasks returns the run's task source. Its PRNG is derived only when the
// scenario streams its tasks, so other scenarios' traces do not change.
func (sc Scenario) tasks(w *sim.World) (TaskSource, error) {
	if sc.TaskSource == nil {
		return SliceTasks(sc.Tasks), nil
	}
	src, err := sc.TaskSource(w.Rand("workload"))
	if err != nil {
		return nil, fmt.Errorf("scenario %s: tasks: %w", sc.Name, err)
	}
	return src, nil
}
