package lease_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestConfigValidate(t *testing.T) {
	valid := testConfig()
	tests := []struct {
		name    string
		mutate  func(*lease.Config)
		wantErr string // substring; empty means valid
	}{
		{"valid", func(*lease.Config) {}, ""},
		{"zero TTL", func(c *lease.Config) { c.TTL = 0 }, "TTL 0s must be positive"},
		{"negative TTL", func(c *lease.Config) { c.TTL = -time.Second }, "must be positive"},
		{"TTL above max", func(c *lease.Config) { c.TTL = c.TTLMax + 1 }, "must lie in [TTL min"},
		{"TTL below min", func(c *lease.Config) { c.TTL = c.TTLMin - 1; c.RenewInterval = time.Millisecond }, "must lie in [TTL min"},
		{"negative rho", func(c *lease.Config) { c.Rho = -0.1 }, "rho -0.1 must lie in [0, 0.5)"},
		{"rho too large", func(c *lease.Config) { c.Rho = 0.5 }, "rho 0.5"},
		{"NaN rho", func(c *lease.Config) { c.Rho = math.NaN() }, "rho NaN"},
		{"negative margin", func(c *lease.Config) { c.Margin = -1 }, "margin"},
		{"backoff max below min", func(c *lease.Config) { c.BackoffMax = c.BackoffMin - 1 }, "backoff max"},
		{"negative checkpoint interval", func(c *lease.Config) { c.CheckpointInterval = -1 }, "checkpoint interval"},
		{"negative checkpoint units", func(c *lease.Config) { c.CheckpointEveryUnits = -1 }, "checkpoint every units"},
		{"zero request timeout", func(c *lease.Config) { c.RequestTimeout = 0 }, "request timeout"},
		{"renew interval at the validity bound", func(c *lease.Config) { c.RenewInterval = c.HolderValidity(c.TTL) },
			"renew interval 9.8s must be below TTL×(1−rho)−margin = 10s×(1−0.01)−100ms = 9.8s"},
		{"renew interval just below the bound", func(c *lease.Config) { c.RenewInterval = c.HolderValidity(c.TTL) - 1 }, ""},
		{"margin eats the validity", func(c *lease.Config) { c.Margin = c.TTL }, "must be below TTL×(1−rho)−margin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := valid
			tt.mutate(&c)
			err := c.Validate()
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, lease.ErrInvalidConfig)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	c := lease.Config{TTL: 9 * time.Second}.WithDefaults()
	assert.Equal(t, 3*time.Second, c.RenewInterval)
	assert.Equal(t, 1500*time.Millisecond, c.RequestTimeout)
	assert.Equal(t, 900*time.Millisecond, c.TTLMin)
	assert.Equal(t, 9*time.Second, c.TTLMax)
	assert.Equal(t, 180*time.Millisecond, c.BackoffMin)
	assert.Equal(t, 2250*time.Millisecond, c.BackoffMax)
	require.NoError(t, c.Validate())

	set := lease.Config{TTL: 9 * time.Second, RenewInterval: time.Second}.WithDefaults()
	assert.Equal(t, time.Second, set.RenewInterval, "explicit values are kept")
	assert.Equal(t, lease.Config{}, lease.Config{}.WithDefaults(), "no TTL, no defaults")
}

func TestConfigDriftArithmetic(t *testing.T) {
	tests := []struct {
		name                   string
		rho                    float64
		margin, ttl            time.Duration
		wantValidity, wantHold time.Duration
	}{
		{"no drift", 0, 0, 10 * time.Second, 10 * time.Second, 10 * time.Second},
		{"one percent", 0.01, 100 * time.Millisecond, 10 * time.Second, 9800 * time.Millisecond, 10100 * time.Millisecond},
		{"drift term rounds up", 0.01, 0, 1, 0, 2},
		{"rho as parts per billion", 1e-9, 0, 1500, 1499, 1501},
		{"no overflow on huge TTLs", 0.25, 0, math.MaxInt64 / 2, math.MaxInt64/2 - (math.MaxInt64/8 + 1), math.MaxInt64/2 + (math.MaxInt64/8 + 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := lease.Config{Rho: tt.rho, Margin: tt.margin}
			assert.Equal(t, tt.wantValidity, c.HolderValidity(tt.ttl))
			assert.Equal(t, tt.wantHold, c.GrantorHold(tt.ttl))
		})
	}
	c := lease.Config{Rho: 0.01, TTLMax: time.Minute}
	assert.Equal(t, 60600*time.Millisecond, c.RestartGrace())
}
