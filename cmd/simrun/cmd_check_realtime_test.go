package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/internal/realtimetest"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/realtime"
)

// recordRealRun runs one grantor, one fenced resource and two holders on
// 127.0.0.1 for about a second, the holders taking turns on one lock and
// writing under it, and returns the recorder.
func recordRealRun(t *testing.T) *realtime.Recorder {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := realtime.NewRecorder()
	opts := func() realtime.Options {
		return realtime.Options{Addr: "127.0.0.1:0", Config: realtimetest.Config(), Recorder: rec}
	}
	g, err := realtime.StartGrantor(opts())
	require.NoError(t, err)
	defer func() { assert.NoError(t, g.Close()) }()
	res, err := realtime.StartResource(opts())
	require.NoError(t, err)
	defer func() { assert.NoError(t, res.Close()) }()
	var holders [2]*realtime.Holder
	for i := range holders {
		holders[i], err = realtime.StartHolder(opts(), g.Addr(), res.Addr())
		require.NoError(t, err)
	}
	for round := range 4 { // h1, h2, h1, h2: each holds across a few renewals, writes, and lets go
		h := holders[round%2]
		_, err := h.AcquireWait(ctx, "lock", lease.AcquireOptions{})
		require.NoError(t, err)
		for i := range 3 {
			retryTimeouts(t, func() error { return h.Write(ctx, "lock", "k", []byte{byte('a' + round*3 + i)}) })
			time.Sleep(50 * time.Millisecond) // hold across a renewal (every 100ms)
		}
		retryTimeouts(t, func() error { return h.Checkpoint(ctx, "lock", []byte{byte('0' + round)}) })
		require.NoError(t, h.Release("lock"))
	}
	for _, h := range holders {
		require.NoError(t, h.Close())
	}
	return rec
}

// retryTimeouts runs f until it does not time out, as a client of a fenced
// store does: a loaded machine may be slower than the request timeout.
func retryTimeouts(t *testing.T, f func() error) {
	t.Helper()
	err := f()
	for errors.Is(err, lease.ErrTimeout) {
		err = f()
	}
	require.NoError(t, err)
}

// TestCheckJudgesARealRun records a short real run over loopback with
// lease/realtime, writes its history file, and checks that simrun check
// on the file gives the verdicts the checkers give in process on the
// recorded history, with the exit code they call for, and that the header
// says the run is statistical. None of that depends on timing; which
// verdicts a real run gets does, so that is a story
// (TestRealtimeStoryCheckVerdicts), run by make realtime-stories.
func TestCheckJudgesARealRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run of about a second on loopback")
	}
	rec := recordRealRun(t)
	h, want := judgeInProcess(t, rec)

	file := filepath.Join(t.TempDir(), "real.jsonl")
	f, err := os.Create(file)
	require.NoError(t, err)
	require.NoError(t, rec.WriteHistory(f))
	require.NoError(t, f.Close())

	fh, err := os.Open(file)
	require.NoError(t, err)
	defer fh.Close()
	rd, err := history.NewReader(fh, file)
	require.NoError(t, err)
	assert.Equal(t, history.Statistical, rd.Header().Determinism)
	assert.Equal(t, realtime.Producer, rd.Header().Producer)

	r := simrunCheck(t, file, "--json")
	var run struct {
		Properties []checker.Result `json:"properties"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &run), "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	got := run.Properties
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, []string{want[i].Property, string(want[i].Status), want[i].Summary},
			[]string{got[i].Property, string(got[i].Status), got[i].Summary})
	}
	wantCode := exitOK
	for _, p := range want {
		if p.Status == checker.Violated || p.Status == checker.Unknown && !p.AssumptionOnly() {
			wantCode = exitViolated
		}
	}
	assert.Equal(t, wantCode, r.code, "stderr: %s", r.stderr)
	assert.Greater(t, h.NumOps(), 20, "the run did something")
	assert.GreaterOrEqual(t, len(h.Beliefs), 4, "every turn believed")
}

// TestRealtimeStoryCheckVerdicts is the verdict story of that real run:
// leasesim's own implementation, on loopback with no faults, holds every
// property; with no tasks and no effects, P6 has nothing to judge, and
// with holders that take turns (no resource recorded as contended) nor
// has P4; a lock is no failure detector (P7, P8).
func TestRealtimeStoryCheckVerdicts(t *testing.T) {
	realtimetest.Story(t, "check-real-run", func(t *testing.T) error {
		_, results := judgeInProcess(t, recordRealRun(t))
		var wrong []string
		for _, p := range results {
			want := checker.OK
			switch p.Property {
			case "P4", "P6", "P7", "P8":
				want = checker.NotApplicable
			}
			if p.Status != want {
				wrong = append(wrong, fmt.Sprintf("%s %s: %s (want %s): %s", p.Property, p.Name, p.Status, want, p.Summary))
			}
		}
		if len(wrong) > 0 {
			return errors.New(strings.Join(wrong, "; "))
		}
		return nil
	})
}

// judgeInProcess reads rec's records as a history and judges it.
func judgeInProcess(t *testing.T, rec *realtime.Recorder) (*history.History, []checker.Result) {
	t.Helper()
	head, events, end := rec.Records()
	h, _, err := leasewire.FromEvents(head, events, end)
	require.NoError(t, err)
	results := checker.Check(h, checker.Options{})
	require.NotEmpty(t, results)
	return h, results
}
