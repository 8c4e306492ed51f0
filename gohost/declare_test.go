package gohost_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// TestDeclareRecordsVerdicts checks that a detector's verdicts reach the
// history in time order, with the true time they were made, that a
// crashed life records none, and that the run is verified by repetition
// with them in its trace.
func TestDeclareRecordsVerdicts(t *testing.T) {
	sleep := func(ctx context.Context, d time.Duration) {
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	detector := func(ctx context.Context, n *gohost.Node) error {
		if n.Incarnation() > 1 {
			return nil
		}
		sleep(ctx, time.Second)
		n.Declare("m2", true, 3*time.Second)
		n.Declare("m1", true, 3*time.Second)
		sleep(ctx, time.Second)
		n.Declare("m1", false, 3*time.Second)
		sleep(ctx, 5*time.Second) // crashed at 4 s: the life's last verdict is never recorded
		n.Declare("m2", false, 3*time.Second)
		return nil
	}
	cfg := gohost.Config{Duration: 10 * time.Second, Verify: true,
		Nodes: []gohost.NodeSpec{{Name: "d", Run: detector}},
		Schedule: faults.Schedule{Version: faults.Version, HealAt: 10 * time.Second,
			Events: []faults.Event{{At: 4 * time.Second, Kind: faults.KindCrash, Node: "d"}}},
		History: gohost.HistoryConfig{Lease: history.Lease{TTL: time.Second, DetectBound: 5 * time.Second}}}
	res := gohost.Run(t, cfg, 1)
	require.NoError(t, res.Err())
	assert.Equal(t, history.Verified, res.Level.Determinism)
	s := history.Time(time.Second)
	assert.Equal(t, []history.Declaration{
		{Detector: "d", Member: "m1", Dead: true, At: s, Grace: 3 * time.Second},
		{Detector: "d", Member: "m2", Dead: true, At: s, Grace: 3 * time.Second},
		{Detector: "d", Member: "m1", Dead: false, At: 2 * s, Grace: 3 * time.Second},
	}, res.History.Declarations)
}
