package realtime_test

import (
	"context"
	"strings"
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

// TestRecorderRecordsAFailover records a real failover on loopback: h1
// holds and writes, is killed without releasing, and h2 gets the lease
// once it expired. The history says so (h1's belief ends in a crash, h2's
// begins after it, in true time), reads back through leasesim's protocol
// adapter, and every property holds.
func TestRecorderRecordsAFailover(t *testing.T) {
	rec := realtime.NewRecorder()
	c := startClusterRecorded(t, rec)
	h1 := c.holder(realtime.Options{Recorder: rec})
	h2 := c.holder(realtime.Options{Recorder: rec})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	_, err := h1.AcquireWait(ctx, "job", lease.AcquireOptions{})
	require.NoError(t, err)
	require.NoError(t, writeRetrying(ctx, h1, "job", "k", []byte("from h1")))
	second := make(chan error, 1)
	go func() {
		_, err := h2.AcquireWait(ctx, "job", lease.AcquireOptions{})
		second <- err
	}()
	require.NoError(t, h1.Kill())
	require.NoError(t, <-second)
	require.NoError(t, writeRetrying(ctx, h2, "job", "k", []byte("from h2")))
	require.NoError(t, h2.Close())

	head, events, _ := rec.Records()
	assert.Equal(t, history.Statistical, head.Determinism)
	assert.Equal(t, []string{string(c.grantor.Addr())}, head.LeaseServers)
	assert.Equal(t, []string{string(c.resource.Addr())}, head.FencedServers)
	assert.Equal(t, []string{string(h1.Addr()), string(h2.Addr())}, head.Holders)
	var beliefs []*history.BeliefInterval
	for _, e := range events {
		if b, ok := e.(*history.BeliefInterval); ok {
			beliefs = append(beliefs, b)
		}
	}
	require.Len(t, beliefs, 2)
	assert.Equal(t, string(h1.Addr()), beliefs[0].Holder)
	assert.Equal(t, history.EndCrash, beliefs[0].Reason, "h1 was killed while it believed")
	assert.Equal(t, string(h2.Addr()), beliefs[1].Holder)
	assert.Greater(t, beliefs[1].Start, beliefs[0].End, "h2 came to believe after h1 stopped")
	assert.Positive(t, beliefs[0].LocalDeadline, "the holder's own deadline is recorded")

	var file strings.Builder
	require.NoError(t, rec.WriteHistory(&file))
	h, meta, err := leasewire.ReadHistory(strings.NewReader(file.String()), "real.jsonl")
	require.NoError(t, err)
	assert.Equal(t, realtime.Producer, meta.Producer)
	for _, r := range checker.Check(h, checker.Options{}) {
		want := checker.OK
		if r.Property == "P4" || r.Property == "P5" || r.Property == "P6" || r.Property == "P7" || r.Property == "P8" {
			// No task ran: nothing to hand over or to run again; and the
			// recorder names no resource as contended (the test's holders
			// take one turn each), so P4 has nothing to judge; a lock is
			// no failure detector (P7, P8).
			want = checker.NotApplicable
		}
		assert.Equal(t, want, r.Status, "%s %s: %s", r.Property, r.Name, r.Summary)
	}
}

// startClusterRecorded is startCluster with every node recording into rec.
func startClusterRecorded(t *testing.T, rec *realtime.Recorder) *cluster {
	t.Helper()
	c := &cluster{t: t, gObs: &lease.CountingObserver{}}
	var err error
	c.grantor, err = realtime.StartGrantor(realtime.Options{Addr: "127.0.0.1:0", Config: shortConfig(), Observer: c.gObs, Recorder: rec})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.grantor.Close()) })
	c.resource, err = realtime.StartResource(realtime.Options{Addr: "127.0.0.1:0", Recorder: rec})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.resource.Close()) })
	return c
}
