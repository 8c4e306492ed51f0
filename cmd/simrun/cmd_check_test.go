package main

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simrunCheck runs simrun check with args.
func simrunCheck(t *testing.T, args ...string) result {
	t.Helper()
	return simrun(t, append([]string{"check"}, args...)...)
}

// TestCheckJudgesAFile runs simrun check on hand-written history files:
// one where every property holds, two that break P1 and P2, and bad input,
// which exits 2 naming the file, the line and the field.
func TestCheckJudgesAFile(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // each must appear on stdout
		stderr []string // each must appear on stderr
	}{
		{"every property holds", []string{"testdata/check/pass.jsonl"}, exitOK,
			[]string{"P1 exclusivity       OK", "P2 fencing           OK", "P3 linearizability   OK",
				"Replay     simrun check testdata/check/pass.jsonl"}, nil},
		{"the spec is chosen", []string{"testdata/check/pass.jsonl", "--spec", "lease-store/holder-budgets"}, exitOK,
			[]string{"Replay     simrun check testdata/check/pass.jsonl --spec lease-store/holder-budgets"}, nil},
		{"a stale write accepted", []string{"testdata/check/p2-stale-write.jsonl"}, exitViolated,
			[]string{"P2 fencing           VIOLATED", "token 1", "Violations"}, nil},
		{"a session-age token: the old holder's write lands after its successor's",
			[]string{"testdata/check/p2-session-age.jsonl"}, exitViolated,
			[]string{"P2 fencing           VIOLATED", "the lease had changed hands", "P3 linearizability   OK"}, nil},
		{"two beliefs overlap", []string{"testdata/check/p1-overlap.jsonl"}, exitViolated,
			[]string{"P1 exclusivity       VIOLATED"}, nil},
		{"malformed", []string{"testdata/check/malformed.jsonl"}, exitUsage, nil,
			[]string{"testdata/check/malformed.jsonl:2", `field "input.ttl_ns"`}},
		{"a kind leasesim's protocol does not have", []string{"testdata/check/foreign-kind.jsonl"}, exitUsage, nil,
			[]string{"testdata/check/foreign-kind.jsonl:2", `field "input.kind"`, `"set_nx_px"`}},
		{"cut short", []string{"testdata/check/cut-short.jsonl"}, exitUsage, nil,
			[]string{"testdata/check/cut-short.jsonl:3", "cut short"}},
		{"no such file", []string{"testdata/check/nope.jsonl"}, exitUsage, nil,
			[]string{"testdata/check/nope.jsonl"}},
		{"unknown spec", []string{"testdata/check/pass.jsonl", "--spec", "nope"}, exitUsage, nil,
			[]string{"--spec", `"nope"`, "lease-store"}},
		{"no spec in the header", []string{"testdata/check/no-spec.jsonl"}, exitUsage, nil,
			[]string{"--spec", "names no specification", "--spec lease-store"}},
		{"no spec in the header, --spec given", []string{"testdata/check/no-spec.jsonl", "--spec", "lease-store"}, exitOK, nil, nil},
		{"no file", nil, exitUsage, nil, []string{"accepts 1 arg"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := simrunCheck(t, tt.args...)
			assert.Equal(t, tt.code, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			for _, s := range tt.stdout {
				assert.Contains(t, r.stdout, s)
			}
			for _, s := range tt.stderr {
				assert.Contains(t, r.stderr, s)
			}
		})
	}
}

// The line check prints re-judges the file as printed, pasted into a
// shell, even when the path needs quoting.
func TestCheckLineRunsAsPrinted(t *testing.T) {
	t.Parallel() // a long test: it overlaps the other long ones
	if runtime.GOOS == "windows" {
		t.Skip("needs a POSIX shell")
	}
	dir := workDir(t)
	stale, err := os.ReadFile("testdata/check/p2-stale-write.jsonl")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "my history.jsonl"), stale, 0o644))
	code, out := shell(t, dir, "bin/simrun check 'my history.jsonl' --spec lease-store")
	require.Equal(t, exitViolated, code, out)
	line := lineAfter(t, out, "Replay")
	assert.Equal(t, "bin/simrun check 'my history.jsonl' --spec lease-store", line)
	again, replayed := shell(t, dir, line)
	assert.Equal(t, exitViolated, again, replayed)
	assert.Equal(t, line, lineAfter(t, replayed, "Replay"))
}

// No data is never a pass: a history of a header and an end record exits
// non-zero under every spec, with no property ok; a holder granted the
// lock by its spec's own success reply that reports no belief makes P1
// unknown and is never a P2 violation, under every spec.
func TestCheckNoDataIsNeverOK(t *testing.T) {
	specs := []string{"lease-store", "expiring-key", "cas-record", "lessor"}
	for _, spec := range specs {
		t.Run("empty/"+spec, func(t *testing.T) {
			r := simrunCheck(t, "testdata/check/empty.jsonl", "--spec", spec)
			assert.Equal(t, exitViolated, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "P1 exclusivity       UNKNOWN   no holder reported a belief")
			assert.NotContains(t, r.stdout, " OK ")
			assert.NotContains(t, r.stdout, "VIOLATED")
		})
		t.Run("silent/"+spec, func(t *testing.T) {
			r := simrunCheck(t, "testdata/check/silent-"+spec+".jsonl")
			assert.Equal(t, exitViolated, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "P1 exclusivity       UNKNOWN   holder h1 was granted")
			assert.NotContains(t, r.stdout, "VIOLATED", "a silent holder is no violation")
			assert.Equal(t, exitOK, simrunCheck(t, "testdata/check/silent-"+spec+".jsonl", "--unknown=pass").code)
		})
	}
}
