package k8slease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestTimingKeepsClientGoProportions(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  lease.Config
		want Timing
	}{
		{"client-go's own defaults", lease.Config{TTL: 15 * time.Second, RequestTimeout: 5 * time.Second},
			Timing{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
				RequestTimeout: 5 * time.Second, ReleaseDuration: time.Second}},
		{"the catalogue's config", lease.Config{TTL: 5 * time.Second, Rho: 0.05},
			Timing{LeaseDuration: 5 * time.Second, RenewDeadline: 3333333333, RetryPeriod: 666666666,
				RequestTimeout: 833333333, ReleaseDuration: 333333333, Rho: 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TimingFor(tc.cfg)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestTimingRejectsUnsafeConfigs(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  lease.Config
	}{
		{"no TTL", lease.Config{}},
		// RenewDeadline×(1+rho) must stay below LeaseDuration×(1−rho): 2/3 × 1.2 = 0.8 = 1 − 0.2.
		{"drift above 20%", lease.Config{TTL: 5 * time.Second, Rho: 0.21, RenewInterval: time.Second}},
		{"a request outlasting the renew deadline", lease.Config{TTL: 5 * time.Second, RequestTimeout: 4 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TimingFor(tc.cfg)
			assert.ErrorIs(t, err, lease.ErrInvalidConfig)
		})
	}
	_, err := TimingFor(lease.Config{TTL: 5 * time.Second, Rho: 0.19, RenewInterval: time.Second})
	assert.NoError(t, err, "just under 20% is tolerated")
}
