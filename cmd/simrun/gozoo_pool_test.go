package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
)

// fakeServer is a serving worker in sh: it lists one scenario for each
// job on its input and acknowledges it, except that it dies during its
// second job.
const fakeServer = `#!/bin/sh
n=0
while read -r line; do
	n=$((n+1))
	[ $n -eq 2 ] && { echo "worker dies" >&2; exit 7; }
	out=$(printf '%s' "$line" | sed 's/.*"out":"\([^"]*\)".*/\1/')
	echo '{"schema_version":1,"scenario":{"name":"s'$n'","doc":"","nodes":[]}}' > "$out"
	echo done >&3
done
`

// TestWorkerPoolOutlivesADeadWorker: the pool sends jobs to a serving
// worker in turn; a worker that dies fails only the job it was doing,
// with its output in the error, and the next job starts another; close
// ends every worker and leaves no directory behind.
func TestWorkerPoolOutlivesADeadWorker(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "server.sh")
	require.NoError(t, os.WriteFile(bin, []byte(fakeServer), 0o755))
	t.Setenv("TMPDIR", t.TempDir())
	g := &goImpl{manifestImpl: manifestImpl{Name: "fake", Worker: "TestWorker"}, Module: dir}
	pool := newWorkerPool(context.Background(), g, bin, 1)

	list := gohost.Job{Kind: gohost.JobList}
	first, err := pool.run(context.Background(), list, false)
	require.NoError(t, err)
	require.Len(t, first.records, 1)
	assert.Equal(t, "s1", first.records[0].Scenario.Name)

	_, err = pool.run(context.Background(), list, false)
	require.Error(t, err, "the worker died during the job")
	assert.Contains(t, err.Error(), "worker dies", "the error shows the worker's output")

	third, err := pool.run(context.Background(), list, false)
	require.NoError(t, err, "a new worker does the next job")
	require.Len(t, third.records, 1)
	assert.Equal(t, "s1", third.records[0].Scenario.Name, "it is the new worker's first job")

	pool.close()
	left, err := os.ReadDir(os.Getenv("TMPDIR"))
	require.NoError(t, err)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	assert.Empty(t, names, "job and serve directories are removed: %s", strings.Join(names, ", "))
}

// oldWorker is a worker in sh built against a leasesim from before
// serving workers: it refuses a serve job as its Worker did (a bad-job
// record) and does any other job in a process of its own.
const oldWorker = `#!/bin/sh
job=$(cat "$LEASESIM_GOHOST_JOB")
out=$(printf '%s' "$job" | sed 's/.*"out":"\([^"]*\)".*/\1/')
case "$job" in
*'"kind":"serve"'*) echo '{"schema_version":1,"error":{"kind":"bad-job","message":"kind \"serve\": want list, run or shrink"}}' > "$out" ;;
*) echo '{"schema_version":1,"scenario":{"name":"one-shot","doc":"","nodes":[]}}' > "$out" ;;
esac
`

// TestWorkerPoolFallsBackForAnOldWorker: a worker that does not know the
// serve job still does every job, each in a process of its own.
func TestWorkerPoolFallsBackForAnOldWorker(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "old.sh")
	require.NoError(t, os.WriteFile(bin, []byte(oldWorker), 0o755))
	g := &goImpl{manifestImpl: manifestImpl{Name: "old", Worker: "TestWorker"}, Module: dir}
	pool := newWorkerPool(context.Background(), g, bin, 1)
	defer pool.close()
	for range 2 {
		wr, err := pool.run(context.Background(), gohost.Job{Kind: gohost.JobList}, false)
		require.NoError(t, err)
		require.Len(t, wr.records, 1)
		assert.Equal(t, "one-shot", wr.records[0].Scenario.Name)
	}
	assert.True(t, pool.serveRefused.Load())
}
