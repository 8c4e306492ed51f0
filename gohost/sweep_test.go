package gohost_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// Fifty seeds (ten under -short) of the partition story with heavy-tailed latency: every run
// verified (two runs, one hash), clean, and no property violated.
func TestPartitionSweep(t *testing.T) {
	c := defaultClient
	clients := map[string]clientConfig{"c1": c, "c2": withStart(c, 300*time.Millisecond), "c3": withStart(c, 50*time.Millisecond)}
	cfg := lockConfig(20*time.Second, partitionSchedule, clients, "c1", "c2", "c3")
	cfg.Verify = true
	cfg.Latency = gohostPareto
	seeds := uint64(50)
	if testing.Short() {
		seeds = 10 // make test's run under the race detector
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		res := gohost.Run(t, cfg, seed)
		assert.NoError(t, res.Err(), "seed %d", seed)
		assert.Equal(t, history.Verified, res.Level.Determinism, "seed %d", seed)
		rs := checker.Check(res.History, checker.Options{})
		assert.NotEmpty(t, rs)
		for _, r := range rs {
			assert.NotEqual(t, checker.Violated, r.Status, "seed %d: %s %s", seed, r.Property, r.Summary)
		}
		assert.Equal(t, checker.OK, results(res.History)["P3"].Status, "seed %d", seed)
	}
}
