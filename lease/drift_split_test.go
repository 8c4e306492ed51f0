package lease_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// Both splits of the drift budget keep the holder's belief inside the
// grantor's hold whatever the two clocks do within rho: the holder's
// validity on a clock running slow by rho, stretched into true time, never
// passes the grantor's hold on a clock running fast by rho.
func TestDriftSplits(t *testing.T) {
	const ttl = 10 * time.Second
	tests := []struct {
		split          lease.DriftSplit
		hold, validity time.Duration
	}{
		{lease.SplitGrantorHolds, 10100 * time.Millisecond, 9800 * time.Millisecond},
		{lease.SplitHolderBudgets, 10 * time.Second, 9700 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.split.String(), func(t *testing.T) {
			cfg := lease.Config{TTL: ttl, Rho: 0.01, Margin: 100 * time.Millisecond, DriftSplit: tc.split}.WithDefaults()
			require.NoError(t, cfg.Validate())
			assert.Equal(t, tc.hold, cfg.GrantorHold(ttl))
			assert.Equal(t, tc.validity, cfg.HolderValidity(ttl))
			believeTrue := float64(cfg.HolderValidity(ttl)) / (1 - cfg.Rho)
			holdTrue := float64(cfg.GrantorHold(ttl)) / (1 + cfg.Rho)
			assert.Less(t, believeTrue, holdTrue)
		})
	}
	bad := lease.Config{TTL: ttl, DriftSplit: 7}.WithDefaults()
	assert.ErrorContains(t, bad.Validate(), "drift split 7")
	tight := lease.Config{TTL: ttl, Rho: 0.01, RenewInterval: 9800 * time.Millisecond, DriftSplit: lease.SplitHolderBudgets}.WithDefaults()
	assert.ErrorContains(t, tight.Validate(), "TTL×(1−2rho)−margin = 10s×(1−2×0.01)−0s = 9.8s")
}
