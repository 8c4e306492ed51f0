package gohost

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/strictjson"
)

// A goroutine-host scenario runs only inside a test binary (Run needs a
// *testing.T for its testing/synctest bubble), and crypto/rand's seeding
// is process-global, so bubbles must not run in parallel in one process.
// simrun therefore runs a zoo module's scenarios in worker processes: it
// builds the module's test binary, writes a Job to a file, and runs the
// binary's worker test (a test function that calls Worker) with WorkerEnv
// naming that file. The worker runs the job's seeds one at a time and
// writes one Record per line to the job's Out file.

// WorkerEnv is the environment variable that names a worker's job file.
// Without it, Worker skips its test.
const WorkerEnv = "LEASESIM_GOHOST_JOB"

// WorkerSchema is the schema version of a Job and of the Records a worker
// writes; a reader refuses any other.
const WorkerSchema = 1

// The kinds of job.
const (
	// JobList lists the scenarios: one Record with Scenario set each.
	JobList = "list"
	// JobRun runs each seed of Seeds: one Record with Outcome set each.
	JobRun = "run"
	// JobShrink shrinks the one seed of Seeds: one Record with Shrunk set.
	JobShrink = "shrink"
	// JobServe keeps the worker for more jobs: it reads jobs (list, run or
	// shrink), one JSON object a line, from its standard input, does each
	// as though a job file had named it, and after each writes one line
	// to the file descriptor ServeAckFD. It ends at the end of its input.
	// A sweep so starts one process per parallel slot, not one per seed.
	JobServe = "serve"
)

// ServeAckFD is the file descriptor a serving worker acknowledges each
// job on (os/exec's first ExtraFiles entry).
const ServeAckFD = 3

// Job is what a worker process is asked to do.
type Job struct {
	SchemaVersion int    `json:"schema_version"`
	Kind          string `json:"kind"`
	// Scenario names the scenario (run, shrink).
	Scenario string `json:"scenario,omitempty"`
	// Seeds are the seeds to run, in order (shrink: exactly one).
	Seeds []uint64 `json:"seeds,omitempty"`
	// Schedule, when set, replaces each seed's fault plan (run), or the
	// seed's plan that shrinking starts from (shrink).
	Schedule *faults.Schedule `json:"schedule,omitempty"`
	// Verify runs each seed twice and compares the traces (run).
	Verify bool `json:"verify,omitempty"`
	// MaxAttempts bounds shrinking's runs (0: faults.DefaultShrinkAttempts).
	MaxAttempts int `json:"max_attempts,omitempty"`
	// Out is the file the worker writes its records to, one a line.
	Out string `json:"out"`
	// HistoryDir, when set, is a directory the worker writes each run
	// seed's history to, as a history file (HistoryPath).
	HistoryDir string `json:"history_dir,omitempty"`
	// Knobs, when set, are the implementation's knobs the scenarios are
	// built with (list, run, shrink): a list checks them, and a worker
	// whose implementation declares none refuses them (ErrKindBadKnob).
	Knobs KnobValues `json:"knobs,omitempty"`
}

// Record is one line a worker writes: exactly one of its fields besides
// SchemaVersion is set.
type Record struct {
	SchemaVersion int            `json:"schema_version"`
	Scenario      *ScenarioInfo  `json:"scenario,omitempty"`
	Outcome       *OutcomeRecord `json:"outcome,omitempty"`
	Shrunk        *ShrunkRecord  `json:"shrunk,omitempty"`
	Error         *JobError      `json:"error,omitempty"`
}

// ScenarioInfo describes a scenario for a list.
type ScenarioInfo struct {
	Name  string   `json:"name"`
	Doc   string   `json:"doc"`
	Story string   `json:"story,omitempty"`
	Nodes []string `json:"nodes"`
	// Targets are the nodes the scenario's own faults hit with process
	// faults (its nemesis's targets), and Failpoints the failpoints a
	// schedule may arm on it (the host's triggers, the nemesis's, and
	// those its own schedule arms): what a search over its schedules may
	// use (simrun explore).
	Targets    []string `json:"targets,omitempty"`
	Failpoints []string `json:"failpoints,omitempty"`
	// FaultKinds are the fault kinds its nemesis draws (faults.Nemesis's
	// Pool), absent when it has none: how much of the fault space its
	// fresh draws cover.
	FaultKinds []string `json:"fault_kinds,omitempty"`
	// Knobs are the implementation's knobs (the same for each of its
	// scenarios), absent when it declares none.
	Knobs []Knob `json:"knobs,omitempty"`
}

// OutcomeRecord is one seed's outcome, as plain data.
type OutcomeRecord struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// Hash is the trace hash in 16 hex digits.
	Hash string `json:"trace_hash"`
	// Determinism is "verified", "diverged" or "unverified"; Level says
	// it in words (where the runs diverged).
	Determinism string `json:"determinism"`
	Level       string `json:"level"`
	// Verdicts are the checkers' verdicts, the premise verdict last when
	// the scenario declares premises.
	Verdicts []Verdict `json:"verdicts"`
	// Premises are what the scenario needed to have happened.
	Premises []PremiseInfo `json:"premises"`
	// Schedule is the fault plan that was applied.
	Schedule faults.Schedule `json:"schedule"`
	// Leaks, Problems and NotApplied are Result's, in words.
	Leaks      []string `json:"leaks"`
	Problems   []string `json:"problems"`
	NotApplied []string `json:"not_applied"`
}

// Verdict is one property's verdict.
type Verdict struct {
	Property string         `json:"property"`
	Name     string         `json:"name"`
	Status   checker.Status `json:"status"`
	Summary  string         `json:"summary"`
	// AssumptionExceeded marks an unknown that only says the run broke an
	// assumption of the property (drift beyond rho): never a failure.
	AssumptionExceeded bool `json:"assumption_exceeded,omitempty"`
}

// PremiseInfo is one premise and whether it held.
type PremiseInfo struct {
	Name   string `json:"name"`
	Held   bool   `json:"held"`
	Detail string `json:"detail"`
}

// ShrunkRecord is Shrink's result, with the replay of the smallest
// schedule.
type ShrunkRecord struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// Target is the property the seed violated first, as the first run
	// judged it.
	Target Verdict `json:"target"`
	// Original is the seed's schedule, Schedule the smallest found, Hash
	// the trace hash of the seed run with it.
	Original  faults.Schedule `json:"original"`
	Schedule  faults.Schedule `json:"schedule"`
	Hash      string          `json:"trace_hash"`
	Attempts  int             `json:"attempts"`
	Exhausted bool            `json:"exhausted"`
}

// The kinds of JobError.
const (
	ErrKindBadJob          = "bad-job"          // the job cannot be read or makes no sense
	ErrKindUnknownScenario = "unknown-scenario" // Job.Scenario names no scenario
	ErrKindBadSchedule     = "bad-schedule"     // Job.Schedule names nodes the scenario lacks
	ErrKindNothingToShrink = "nothing-to-shrink"
	ErrKindNotReproducible = "not-reproducible"
	ErrKindSeedFailed      = "seed-failed" // the worker's test failed while running a seed
	ErrKindBadKnob         = "bad-knob"    // Job.Knobs names a knob the implementation lacks, or a value it refuses
)

// JobError is a job the worker could not do, or a seed it could not run.
type JobError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Seed    uint64 `json:"seed,omitempty"`
}

// ReadJob reads and checks a job file strictly. It returns what it could
// read even with an error, so that a worker knows where to say what was
// wrong.
func ReadJob(path string) (Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Job{}, fmt.Errorf("job %s: %w", path, err)
	}
	job, err := ParseJob(data)
	if err != nil {
		return job, fmt.Errorf("job %s: %w", path, err)
	}
	return job, nil
}

// ParseJob reads and checks one job strictly, as ReadJob does a file's.
func ParseJob(data []byte) (Job, error) {
	var job Job
	if err := strictjson.UnmarshalNanos(data, &job, strictjson.NullForOptional); err != nil {
		var out struct {
			Out string `json:"out"`
		}
		_ = json.Unmarshal(data, &out) // only to find where to report the error
		job.Out = out.Out
		return job, err
	}
	return job, job.check()
}

// check says what makes no sense in the job.
func (j Job) check() error {
	switch {
	case j.SchemaVersion != WorkerSchema:
		return fmt.Errorf("schema_version %d, want %d", j.SchemaVersion, WorkerSchema)
	case j.Out == "":
		return errors.New("out: missing")
	case j.Kind == JobList || j.Kind == JobServe:
		return nil
	case j.Kind != JobRun && j.Kind != JobShrink:
		return fmt.Errorf("kind %q: want %s, %s, %s or %s", j.Kind, JobList, JobRun, JobShrink, JobServe)
	case j.Scenario == "":
		return errors.New("scenario: missing")
	case len(j.Seeds) == 0:
		return errors.New("seeds: missing")
	case j.Kind == JobShrink && len(j.Seeds) != 1:
		return fmt.Errorf("seeds: a shrink job takes one seed, got %d", len(j.Seeds))
	case j.MaxAttempts < 0:
		return fmt.Errorf("max_attempts: must not be negative, got %d", j.MaxAttempts)
	}
	return nil
}

// ReadRecord decodes one line a worker wrote, strictly, and checks that
// it has the schema version this package writes and exactly one part.
func ReadRecord(line []byte) (Record, error) {
	var r Record
	if err := strictjson.UnmarshalNanos(line, &r, strictjson.NullForOptional); err != nil {
		return r, err
	}
	if r.SchemaVersion != WorkerSchema {
		return r, fmt.Errorf("schema_version %d, want %d", r.SchemaVersion, WorkerSchema)
	}
	parts := 0
	for _, set := range []bool{r.Scenario != nil, r.Outcome != nil, r.Shrunk != nil, r.Error != nil} {
		if set {
			parts++
		}
	}
	if parts != 1 {
		return r, fmt.Errorf("want exactly one of scenario, outcome, shrunk and error, got %d", parts)
	}
	return r, nil
}

// The determinism words of an OutcomeRecord.
const (
	DeterminismVerified   = string(history.Verified)
	DeterminismDiverged   = "diverged"
	DeterminismUnverified = "unverified"
)

// HashString writes a trace hash as 16 hex digits, as the event host's
// TraceHashString does.
func HashString(h uint64) string { return fmt.Sprintf("%016x", h) }

// DeterminismWord is an OutcomeRecord's determinism word for a level:
// verified, diverged or unverified.
func DeterminismWord(l Level) string {
	switch {
	case l.Diverged():
		return DeterminismDiverged
	case l.Determinism == history.Verified:
		return DeterminismVerified
	}
	return DeterminismUnverified
}
