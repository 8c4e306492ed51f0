package realtimetest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/realtimetest"
)

// TestConfigOutlastsALoadedMachine pins what the real-time tests rely on:
// the configuration is valid, its TTL is at least 2s, and a holder renews
// many times within one TTL, so one late renewal never costs the lease.
func TestConfigOutlastsALoadedMachine(t *testing.T) {
	cfg := realtimetest.Config().WithDefaults()
	require.NoError(t, cfg.Validate())
	assert.GreaterOrEqual(t, cfg.TTL, 2*time.Second)
	assert.GreaterOrEqual(t, int(cfg.HolderValidity(cfg.TTL)/cfg.RenewInterval), 10, "renewals per validity")
	assert.Less(t, cfg.RequestTimeout, cfg.HolderValidity(cfg.TTL), "a slow reply still comes in time")
}
