package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/realtime"
)

// realtimeConfig is a short lease for loopback: a 300ms TTL, renewed every
// 60ms, with a request timeout long enough for a loaded machine.
func realtimeConfig() lease.Config {
	return lease.Config{TTL: 300 * time.Millisecond, RenewInterval: 60 * time.Millisecond, Rho: 0.01,
		Margin: 10 * time.Millisecond, RequestTimeout: 200 * time.Millisecond,
		BackoffMin: 5 * time.Millisecond, BackoffMax: 50 * time.Millisecond}
}

// recordRealRun runs one grantor, one fenced resource and two holders on
// 127.0.0.1 for about a second, the holders taking turns on one lock and
// writing under it, and returns the recorder.
func recordRealRun(t *testing.T) *realtime.Recorder {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rec := realtime.NewRecorder()
	opts := func() realtime.Options {
		return realtime.Options{Addr: "127.0.0.1:0", Config: realtimeConfig(), Recorder: rec}
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
			time.Sleep(50 * time.Millisecond) // hold across a renewal
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
// recorded history, and that the header says the run is statistical.
func TestCheckJudgesARealRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a real run of about a second on loopback")
	}
	rec := recordRealRun(t)

	head, events, end := rec.Records()
	h, _, err := leasewire.FromEvents(head, events, end)
	require.NoError(t, err)
	want := checker.Check(h, checker.Options{})
	require.NotEmpty(t, want)

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
	// leasesim's own implementation, on loopback with no faults, holds every
	// property; with no tasks and no effects, P6 has nothing to judge, and
	// with holders that take turns (no resource recorded as contended) nor
	// has P4; a lock is no failure detector (P7, P8).
	for _, p := range want {
		if p.Property == "P6" || p.Property == "P4" || p.Property == "P7" || p.Property == "P8" {
			assert.Equal(t, checker.NotApplicable, p.Status, "%s %s: %s", p.Property, p.Name, p.Summary)
			continue
		}
		assert.Equal(t, checker.OK, p.Status, "%s %s: %s", p.Property, p.Name, p.Summary)
	}
	assert.Greater(t, h.NumOps(), 20, "the run did something")
	assert.GreaterOrEqual(t, len(h.Beliefs), 4, "every turn believed")
}
