package workload_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/realtimetest"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/lease/realtime"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/workload"
)

// TestFromEventsOfARealRun records a real run of the lease library on
// loopback TCP with its JSON-lines observer, then turns the log into a
// workload: the tasks it ran, and the worker that crashed holding one.
func TestFromEventsOfARealRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-time run on loopback")
	}
	cfg := realtimetest.Config()
	var log bytes.Buffer
	obs := lease.NewJSONLinesObserver(&log)
	counts := &lease.CountingObserver{}
	opts := realtime.Options{Addr: "127.0.0.1:0", Config: cfg, Observer: lease.MultiObserver(obs, counts)}

	grantor, err := realtime.StartGrantor(opts)
	require.NoError(t, err)
	defer grantor.Close()
	store, err := realtime.StartResource(opts)
	require.NoError(t, err)
	defer store.Close()
	w1, err := realtime.StartHolder(opts, grantor.Addr(), store.Addr())
	require.NoError(t, err)
	w2, err := realtime.StartHolder(opts, grantor.Addr(), store.Addr())
	require.NoError(t, err)
	defer w2.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// w1 runs t1 to the end: three checkpoints, then a release.
	_, err = w1.AcquireWait(ctx, "t1", lease.AcquireOptions{})
	require.NoError(t, err)
	for i := range 3 {
		time.Sleep(50 * time.Millisecond)
		require.NoError(t, w1.Checkpoint(ctx, "t1", []byte{byte('1' + i)}))
	}
	require.NoError(t, w1.Release("t1"))
	// w1 starts t2, holds it through a few renewals, and crashes.
	_, err = w1.AcquireWait(ctx, "t2", lease.AcquireOptions{})
	require.NoError(t, err)
	require.NoError(t, w1.Checkpoint(ctx, "t2", []byte("1")))
	renewed := counts.Count(lease.EventRenew)
	require.Eventually(t, func() bool { return counts.Count(lease.EventRenew) >= renewed+3 }, 10*time.Second,
		5*time.Millisecond, "w1 renews t2 a few times")
	require.NoError(t, w1.Kill())
	// w2 takes t2 over once the grantor has expired w1's lease, finishes.
	_, err = w2.AcquireWait(ctx, "t2", lease.AcquireOptions{})
	require.NoError(t, err)
	require.NoError(t, w2.Checkpoint(ctx, "t2", []byte("2")))
	require.NoError(t, w2.Release("t2"))
	require.NoError(t, w2.Close())
	require.NoError(t, obs.Err())

	var out bytes.Buffer
	sum, err := workload.FromEvents(bytes.NewReader(log.Bytes()), &out, workload.FromEventsOptions{Name: "recorded"})
	require.NoError(t, err, "log:\n%s", log.String())
	assert.Equal(t, 2, sum.Tasks, "t1 and t2")
	assert.Equal(t, 2, sum.Completed)
	assert.Equal(t, 1, sum.Crashes, "w1 crashed holding t2")
	assert.Len(t, sum.Holders, 2)
	assert.Positive(t, sum.Renewals)

	r, err := workload.NewReader(bytes.NewReader(out.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, "recorded", r.Header().Name)
	var tasks, crashes int
	for {
		ev, err := r.Next()
		if err != nil {
			break
		}
		switch ev.Type {
		case workload.TypeTask:
			tasks++
		case workload.TypeCrash:
			crashes++
		}
	}
	assert.Equal(t, 2, tasks)
	assert.Equal(t, 1, crashes)
	assert.True(t, strings.Contains(out.String(), `"type":"header"`))

	// The recorded workload replays in the simulator.
	sc, err := workload.ScenarioOf(workload.Bytes(out.Bytes()), lease.Config{TTL: time.Second, Rho: 0.01, Margin: 10 * time.Millisecond})
	require.NoError(t, err)
	res, err := scenarios.Execute(sc, 1, scenarios.Options{})
	require.NoError(t, err)
	assert.Empty(t, res.Violated())
	require.Len(t, res.History.Tasks, 2)
	for _, task := range res.History.Tasks {
		assert.Less(t, task.Done, res.History.End, "task %s done", task.ID)
	}
}
