package scenarios

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/internal/batchgc"
)

// A goroutine-host scenario runs only inside a test binary (testing/synctest
// needs a *testing.T), and crypto/rand's seeding is process-global, so
// bubbles must not run in parallel in one process. simrun therefore runs a
// module's goroutine-host scenarios in worker processes: it builds the
// module's test binary, writes a gohost.Job to a file, and runs the
// binary's worker test (a test function that calls Worker) with
// gohost.WorkerEnv naming that file. The worker runs the job's seeds one at
// a time and writes one gohost.Record per line to the job's Out file.

// Worker is the body of a zoo module's worker test:
//
//	func TestLeasesimWorker(t *testing.T) { scenarios.Worker(t, k8s.Scenarios()) }
//
// Unless gohost.WorkerEnv names a job file, it skips the test: it runs only as
// simrun's worker process. It runs the job's seeds one at a time, each in
// a subtest of its own ("seed=N"), and writes a Record per outcome to the
// job's Out file as soon as it has it. A job it cannot do is an Error
// record, not a failed test; t fails only when the records cannot be
// written.
//
// A job of kind gohost.JobServe keeps the worker for the jobs that follow on
// its standard input, acknowledging each on gohost.ServeAckFD.
func Worker(t *testing.T, scenarios []Scenario) {
	TunableWorker(t, Tunable{Scenarios: func(gohost.KnobValues) ([]Scenario, error) { return scenarios, nil }})
}

// Tunable is an implementation whose scenarios depend on its knobs
// (gohost.Knob): what TunableWorker serves.
type Tunable struct {
	// Knobs are the knobs the implementation declares.
	Knobs []gohost.Knob
	// Scenarios builds the scenarios with the knobs set in values (those
	// not set keep each scenario's own setting). values have been checked
	// against Knobs (names and ranges); an error is a combination the
	// implementation refuses (raft's leader lease longer than its
	// heartbeat timeout), reported as a bad knob.
	Scenarios func(values gohost.KnobValues) ([]Scenario, error)
}

// TunableWorker is Worker for an implementation with knobs: it builds the
// scenarios of each job from the job's knob values (gohost.Job.Knobs),
// and lists the knobs with every scenario.
//
//	func TestLeasesimWorker(t *testing.T) {
//		scenarios.TunableWorker(t, scenarios.Tunable{Knobs: nodelease.Knobs, Scenarios: nodelease.TunedScenarios})
//	}
func TunableWorker(t *testing.T, impl Tunable) {
	path := os.Getenv(gohost.WorkerEnv)
	if path == "" {
		t.Skip("runs only as simrun's worker process (" + gohost.WorkerEnv + " names its job)")
	}
	// A worker process is batch work, as simrun's own runs are: it runs
	// under the same collector policy, unless the environment sets GOGC
	// or GOMEMLIMIT. zoo/k8s's BenchmarkElection/gohost (one worker's run
	// of client-go's election, GOMAXPROCS=1) took 11.9 ms at GOGC=400 and
	// 13.5 ms at Go's default (medians of six interleaved samples).
	defer batchgc.Apply()()
	job, jobErr := gohost.ReadJob(path)
	if jobErr == nil && job.Kind == gohost.JobServe {
		serveJobs(t, impl)
		return
	}
	doJob(t, impl, job, jobErr)
}

// build returns the scenarios of impl for the job's knobs, or the error
// record's message.
func (impl Tunable) build(values gohost.KnobValues) ([]Scenario, error) {
	if err := gohost.CheckKnobs(impl.Knobs, values); err != nil {
		return nil, err
	}
	scs, err := impl.Scenarios(values)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", gohost.ErrBadKnob, err)
	}
	return scs, nil
}

// serveJobs does the jobs on standard input, one a line, acknowledging
// each with a line on gohost.ServeAckFD once its records are written.
func serveJobs(t *testing.T, impl Tunable) {
	ack := os.NewFile(gohost.ServeAckFD, "leasesim-ack")
	defer ack.Close()
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(nil, 1<<26)
	for lines.Scan() {
		job, err := gohost.ParseJob(lines.Bytes())
		if err == nil && job.Kind == gohost.JobServe {
			err = errors.New("kind serve: a served job cannot serve")
		}
		doJob(t, impl, job, err)
		if _, err := ack.Write([]byte("done\n")); err != nil {
			t.Fatalf("gohost worker: acknowledging a job: %v", err)
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatalf("gohost worker: reading jobs: %v", err)
	}
}

// doJob does one job and writes its records to the job's Out file.
func doJob(t *testing.T, impl Tunable, job gohost.Job, jobErr error) {
	if job.Out == "" {
		t.Fatalf("gohost worker: %v", jobErr)
	}
	f, err := os.Create(job.Out)
	if err != nil {
		t.Fatalf("gohost worker: %v", err)
	}
	w := &recordWriter{f: f}
	defer func() {
		if err := errors.Join(w.err, f.Close()); err != nil {
			t.Fatalf("gohost worker: writing %s: %v", job.Out, err)
		}
	}()
	if jobErr != nil {
		w.fail(gohost.ErrKindBadJob, jobErr.Error())
		return
	}
	scenarios, err := impl.build(job.Knobs)
	if err != nil {
		w.fail(gohost.ErrKindBadKnob, err.Error())
		return
	}
	if job.Kind == gohost.JobList {
		for _, sc := range scenarios {
			info := scenarioInfo(sc)
			info.Knobs = impl.Knobs
			w.write(gohost.Record{Scenario: info})
		}
		return
	}
	sc, ok := findScenario(scenarios, job.Scenario)
	if !ok {
		w.fail(gohost.ErrKindUnknownScenario, fmt.Sprintf("unknown scenario %q (known: %s)", job.Scenario, scenarioNames(scenarios)))
		return
	}
	if job.Schedule != nil {
		if err := job.Schedule.Validate(scenarioInfo(sc).Nodes); err != nil {
			w.fail(gohost.ErrKindBadSchedule, fmt.Sprintf("%v (nodes: %s)", err, strings.Join(scenarioInfo(sc).Nodes, ", ")))
			return
		}
	}
	if job.Kind == gohost.JobShrink {
		shrinkJob(t, sc, job, w)
		return
	}
	for _, seed := range job.Seeds {
		var rec *gohost.OutcomeRecord
		var runErr error
		ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			out, err := Execute(sc, seed, Options{T: t, Schedule: job.Schedule, Verify: job.Verify})
			if err == nil && job.HistoryDir != "" {
				err = gohost.WriteRunHistory(job.HistoryDir, sc.Name, seed, out.Goroutine)
			}
			if err != nil {
				runErr = err
				return
			}
			r := NewOutcomeRecord(out)
			rec = &r
		})
		if runErr != nil {
			w.write(gohost.Record{Error: &gohost.JobError{Kind: gohost.ErrKindSeedFailed, Seed: seed, Message: runErr.Error()}})
			continue
		}
		if !ok || rec == nil {
			w.write(gohost.Record{Error: &gohost.JobError{Kind: gohost.ErrKindSeedFailed, Seed: seed,
				Message: fmt.Sprintf("scenario %s seed %d: the worker's test failed (its output says why)", sc.Name, seed)}})
			continue
		}
		w.write(gohost.Record{Outcome: rec})
	}
}

// shrinkJob shrinks the job's one seed and writes the Shrunk record.
func shrinkJob(t *testing.T, sc Scenario, job gohost.Job, w *recordWriter) {
	seed := job.Seeds[0]
	var s *Shrunk
	var err error
	ok := t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
		s, err = ShrinkSeed(sc, seed, Options{T: t, Schedule: job.Schedule}, job.MaxAttempts)
	})
	switch {
	case !ok:
		w.write(gohost.Record{Error: &gohost.JobError{Kind: gohost.ErrKindSeedFailed, Seed: seed,
			Message: fmt.Sprintf("scenario %s seed %d: the worker's test failed while shrinking (its output says why)", sc.Name, seed)}})
	case errors.Is(err, ErrNothingToShrink):
		w.write(gohost.Record{Error: &gohost.JobError{Kind: gohost.ErrKindNothingToShrink, Seed: seed, Message: err.Error()}})
	case errors.Is(err, ErrNotReproducible):
		w.write(gohost.Record{Error: &gohost.JobError{Kind: gohost.ErrKindNotReproducible, Seed: seed, Message: err.Error()}})
	case err != nil:
		w.write(gohost.Record{Error: &gohost.JobError{Kind: gohost.ErrKindSeedFailed, Seed: seed, Message: err.Error()}})
	default:
		w.write(gohost.Record{Shrunk: &gohost.ShrunkRecord{Scenario: sc.Name, Seed: seed, Target: verdict(s.Target),
			Original: s.Original, Schedule: s.Schedule, Hash: gohost.HashString(s.Hash),
			Attempts: s.Stats.Attempts, Exhausted: s.Stats.Exhausted}})
	}
}

// recordWriter writes records, one a line, keeping the first error.
type recordWriter struct {
	f   *os.File
	err error
}

func (w *recordWriter) write(r gohost.Record) {
	if w.err != nil {
		return
	}
	r.SchemaVersion = gohost.WorkerSchema
	b, err := json.Marshal(r)
	if err == nil {
		_, err = w.f.Write(append(b, '\n'))
	}
	w.err = err
}

func (w *recordWriter) fail(kind, msg string) {
	w.write(gohost.Record{Error: &gohost.JobError{Kind: kind, Message: msg}})
}

// NewOutcomeRecord turns a goroutine-host outcome into the plain data a
// worker hands simrun.
func NewOutcomeRecord(o *Outcome) gohost.OutcomeRecord {
	res := o.Goroutine
	rec := gohost.OutcomeRecord{Scenario: o.Scenario, Seed: o.Seed, Hash: gohost.HashString(res.Hash),
		Determinism: gohost.DeterminismWord(res.Level), Level: res.Level.String(), Schedule: o.Schedule,
		Verdicts: []gohost.Verdict{}, Premises: []gohost.PremiseInfo{}, Leaks: []string{},
		Problems: append([]string{}, res.Problems...), NotApplied: append([]string{}, res.NotApplied...)}
	for _, c := range o.Checks {
		rec.Verdicts = append(rec.Verdicts, verdict(c))
	}
	for _, p := range o.History.Premises {
		rec.Premises = append(rec.Premises, gohost.PremiseInfo{Name: p.Name, Held: p.Held, Detail: p.Detail})
	}
	for _, l := range res.Leaks {
		rec.Leaks = append(rec.Leaks, l.String())
	}
	return rec
}

func verdict(c checker.Result) gohost.Verdict {
	return gohost.Verdict{Property: c.Property, Name: c.Name, Status: c.Status, Summary: c.Summary,
		AssumptionExceeded: c.AssumptionOnly()}
}

// scenarioInfo lists a scenario's name, docs, nodes and the vocabulary of
// its faults (from seed 0's run).
func scenarioInfo(sc Scenario) *gohost.ScenarioInfo {
	info := &gohost.ScenarioInfo{Name: sc.Name, Doc: sc.Doc, Story: sc.Story, Nodes: append([]string{}, sc.Nodes()...)}
	if sc.Goroutines == nil {
		return info
	}
	own := sc.Goroutines(0).Schedule.Events
	info.Failpoints = gohost.Triggers()
	if sc.Nemesis != nil {
		info.Targets = append(info.Targets, sc.Nemesis.Targets...)
		info.Failpoints = append(info.Failpoints, sc.Nemesis.Failpoints...)
		for _, k := range sc.Nemesis.Pool() {
			info.FaultKinds = append(info.FaultKinds, string(k))
		}
	}
	var hit []string // the nodes the run's own schedule hits
	for _, e := range own {
		if e.Kind == faults.KindFailpoint {
			info.Failpoints = append(info.Failpoints, e.Failpoint)
		}
		if e.Node != "" {
			hit = append(hit, e.Node)
		}
	}
	switch {
	case len(info.Targets) > 0:
	case len(hit) > 0:
		info.Targets = hit
	default:
		info.Targets = info.Nodes
	}
	info.Targets, info.Failpoints = uniqueNames(info.Targets), uniqueNames(info.Failpoints)
	return info
}

// uniqueNames returns names without repeats, in first-seen order.
func uniqueNames(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func findScenario(scenarios []Scenario, name string) (Scenario, bool) {
	for _, sc := range scenarios {
		if sc.Name == name {
			return sc, true
		}
	}
	return Scenario{}, false
}

func scenarioNames(scenarios []Scenario) string {
	names := make([]string, len(scenarios))
	for i, sc := range scenarios {
		names[i] = sc.Name
	}
	return strings.Join(names, ", ")
}
