package gohost_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/scenarios"
)

// runJob writes job to a file, runs Worker on it in a subtest as a worker
// process would, and returns the records it wrote.
func runJob(t *testing.T, scs []scenarios.Scenario, job gohost.Job) []gohost.Record {
	t.Helper()
	return runJobWith(t, func(t *testing.T) { scenarios.Worker(t, scs) }, job)
}

// runJobWith is runJob with worker as the worker test's body.
func runJobWith(t *testing.T, worker func(*testing.T), job gohost.Job) []gohost.Record {
	t.Helper()
	dir := t.TempDir()
	job.SchemaVersion, job.Out = gohost.WorkerSchema, filepath.Join(dir, "out.jsonl")
	data, err := json.Marshal(job)
	require.NoError(t, err)
	path := filepath.Join(dir, "job.json")
	require.NoError(t, os.WriteFile(path, data, 0o644))
	t.Setenv(gohost.WorkerEnv, path)
	t.Run("worker", worker)
	return readRecords(t, job.Out)
}

func readRecords(t *testing.T, path string) []gohost.Record {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []gohost.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		r, err := gohost.ReadRecord(sc.Bytes())
		require.NoError(t, err, "line %d: %s", len(out)+1, sc.Text())
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestWorkerSkipsWithoutAJob(t *testing.T) {
	t.Setenv(gohost.WorkerEnv, "")
	var sub *testing.T
	t.Run("worker", func(t *testing.T) {
		sub = t
		scenarios.Worker(t, []scenarios.Scenario{brokenScenario()})
	})
	assert.True(t, sub.Skipped(), "an ordinary go test run skips the worker test")
}

func TestWorkerListsRunsAndVerifies(t *testing.T) {
	sc := brokenScenario()
	list := runJob(t, []scenarios.Scenario{sc}, gohost.Job{Kind: gohost.JobList})
	require.Len(t, list, 1)
	assert.Equal(t, "broken-client", list[0].Scenario.Name)
	assert.Equal(t, []string{"lock", "store", "c1", "c2"}, list[0].Scenario.Nodes)
	assert.Equal(t, []string{"c2"}, list[0].Scenario.Targets, "the nemesis's targets: what a search may hit")
	assert.Equal(t, gohost.Triggers(), list[0].Scenario.Failpoints, "the host's triggers; nothing else is armed")
	assert.Equal(t, []string{"partition", "pause"}, list[0].Scenario.FaultKinds, "the kinds its nemesis draws, in the catalogue's order")

	recs := runJob(t, []scenarios.Scenario{sc}, gohost.Job{Kind: gohost.JobRun, Scenario: sc.Name, Seeds: []uint64{8, 3}, Verify: true})
	require.Len(t, recs, 2)
	for i, seed := range []uint64{8, 3} {
		o := recs[i].Outcome
		require.NotNil(t, o, "record %d: %+v", i, recs[i].Error)
		direct := executeOrFail(t, sc, seed, scenarios.Options{T: t})
		assert.Equal(t, seed, o.Seed)
		assert.Equal(t, gohost.HashString(direct.Goroutine.Hash), o.Hash, "the worker runs what Execute runs")
		assert.Equal(t, gohost.DeterminismVerified, o.Determinism)
		assert.Len(t, o.Verdicts, len(direct.Checks))
		assert.Len(t, o.Premises, 2)
		assert.Empty(t, o.Leaks)
	}
	assert.Equal(t, checker.Violated, recs[0].Outcome.Verdicts[0].Status, "seed 8 violates P1: %+v", recs[0].Outcome.Verdicts[0])
}

func TestWorkerShrinksAndSaysWhatItCannotDo(t *testing.T) {
	sc := brokenScenario()
	recs := runJob(t, []scenarios.Scenario{sc}, gohost.Job{Kind: gohost.JobShrink, Scenario: sc.Name, Seeds: []uint64{8}, MaxAttempts: 100})
	require.Len(t, recs, 1)
	s := recs[0].Shrunk
	require.NotNil(t, s, "%+v", recs[0].Error)
	assert.Equal(t, "P1", s.Target.Property)
	assert.LessOrEqual(t, len(s.Schedule.Events), 3, "shrunk: %s", s.Schedule)
	again := executeOrFail(t, sc, 8, scenarios.Options{T: t, Schedule: &s.Schedule})
	assert.Equal(t, s.Hash, gohost.HashString(again.Goroutine.Hash), "the shrunk schedule replays to its hash")

	// A shrink job starts from the job's schedule: with none of the
	// nemesis's faults, seed 8 does not violate, so there is nothing to
	// shrink.
	calm := faults.Schedule{Version: faults.Version, HealAt: 11 * time.Second}
	recs = runJob(t, []scenarios.Scenario{sc}, gohost.Job{Kind: gohost.JobShrink, Scenario: sc.Name, Seeds: []uint64{8}, Schedule: &calm})
	require.Len(t, recs, 1)
	require.NotNil(t, recs[0].Error, "%+v", recs[0].Shrunk)
	assert.Equal(t, gohost.ErrKindNothingToShrink, recs[0].Error.Kind)

	bad := faults.Schedule{Version: faults.Version, Events: []faults.Event{{At: time.Second, Kind: faults.KindCrash, Node: "nobody"}}}
	for _, tt := range []struct {
		name string
		job  gohost.Job
		kind string
	}{
		{"unknown scenario", gohost.Job{Kind: gohost.JobRun, Scenario: "nope", Seeds: []uint64{1}}, gohost.ErrKindUnknownScenario},
		{"schedule naming another node", gohost.Job{Kind: gohost.JobRun, Scenario: sc.Name, Seeds: []uint64{1}, Schedule: &bad}, gohost.ErrKindBadSchedule},
		{"shrink of two seeds", gohost.Job{Kind: gohost.JobShrink, Scenario: sc.Name, Seeds: []uint64{1, 2}}, gohost.ErrKindBadJob},
		{"unknown kind", gohost.Job{Kind: "dance"}, gohost.ErrKindBadJob},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs := runJob(t, []scenarios.Scenario{sc}, tt.job)
			require.Len(t, recs, 1)
			require.NotNil(t, recs[0].Error)
			assert.Equal(t, tt.kind, recs[0].Error.Kind, recs[0].Error.Message)
		})
	}
}

func TestReadRecordIsStrict(t *testing.T) {
	for _, tt := range []struct{ name, line, want string }{
		{"unknown field", `{"schema_version":1,"error":{"kind":"x","message":"m"},"extra":1}`, "extra"},
		{"other version", `{"schema_version":2,"error":{"kind":"x","message":"m"}}`, "schema_version 2"},
		{"two parts", `{"schema_version":1,"error":{"kind":"x","message":"m"},"scenario":{"name":"a","doc":"","nodes":[]}}`, "exactly one"},
		{"no part", `{"schema_version":1}`, "exactly one"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gohost.ReadRecord([]byte(tt.line))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// serveEnv, set in a re-run of this test binary, makes
// TestServingWorkerProcess a serving worker.
const serveEnv = "LEASESIM_TEST_SERVING_WORKER"

// TestServingWorkerProcess is the worker process of
// TestWorkerServesJobsInTurn; on its own it skips.
func TestServingWorkerProcess(t *testing.T) {
	if os.Getenv(serveEnv) == "" {
		t.Skip("the worker process of TestWorkerServesJobsInTurn")
	}
	scenarios.Worker(t, []scenarios.Scenario{brokenScenario()})
}

// TestWorkerServesJobsInTurn: a serve job keeps the worker process for
// the jobs on its standard input; it does each as a job file would have
// it done, acknowledges each on gohost.ServeAckFD once its records are
// written, says what is wrong with a bad one and goes on, and ends at the
// end of its input.
func TestWorkerServesJobsInTurn(t *testing.T) {
	sc := brokenScenario()
	dir := t.TempDir()
	serve, err := json.Marshal(gohost.Job{SchemaVersion: gohost.WorkerSchema, Kind: gohost.JobServe, Out: filepath.Join(dir, "serve.jsonl")})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "serve.json"), serve, 0o644))
	line := func(name string, job gohost.Job) string {
		job.SchemaVersion, job.Out = gohost.WorkerSchema, filepath.Join(dir, name+".jsonl")
		b, err := json.Marshal(job)
		require.NoError(t, err)
		return string(b) + "\n"
	}
	jobs := line("run", gohost.Job{Kind: gohost.JobRun, Scenario: sc.Name, Seeds: []uint64{8}, Verify: true}) +
		line("bad", gohost.Job{Kind: gohost.JobServe}) +
		line("list", gohost.Job{Kind: gohost.JobList})

	ackR, ackW, err := os.Pipe()
	require.NoError(t, err)
	defer ackR.Close()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestServingWorkerProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), serveEnv+"=1", gohost.WorkerEnv+"="+filepath.Join(dir, "serve.json"))
	cmd.Stdin = strings.NewReader(jobs)
	cmd.ExtraFiles = []*os.File{ackW}
	out, err := cmd.CombinedOutput()
	ackW.Close()
	require.NoError(t, err, "%s", out)
	acks, err := io.ReadAll(ackR)
	require.NoError(t, err)
	assert.Equal(t, "done\ndone\ndone\n", string(acks), "one acknowledgement a job")

	run := readRecords(t, filepath.Join(dir, "run.jsonl"))
	require.Len(t, run, 1)
	require.NotNil(t, run[0].Outcome, "%+v", run[0].Error)
	direct := executeOrFail(t, sc, 8, scenarios.Options{T: t})
	assert.Equal(t, gohost.HashString(direct.Goroutine.Hash), run[0].Outcome.Hash, "a served run is the run a job file asks for")
	bad := readRecords(t, filepath.Join(dir, "bad.jsonl"))
	require.Len(t, bad, 1)
	require.NotNil(t, bad[0].Error)
	assert.Equal(t, gohost.ErrKindBadJob, bad[0].Error.Kind)
	assert.Contains(t, bad[0].Error.Message, "cannot serve")
	list := readRecords(t, filepath.Join(dir, "list.jsonl"))
	require.Len(t, list, 1, "the worker went on after the bad job")
	assert.Equal(t, sc.Name, list[0].Scenario.Name)
}
