package leasewire_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/sim"
)

// The hold a header declares (HoldPPB) holds a lease exactly as long as
// leasesim's grantor does under either drift split, so P3's policy and
// P4's bound read from the history what the grantor really does.
func TestHoldPPBHoldsAsTheGrantor(t *testing.T) {
	for _, split := range []lease.DriftSplit{lease.SplitGrantorHolds, lease.SplitHolderBudgets} {
		for _, rho := range []float64{0, 1e-9, 0.001, 0.01, 0.1, 0.49} {
			cfg := lease.Config{TTL: 5 * time.Second, Rho: rho, DriftSplit: split}.WithDefaults()
			policy := model.LeasePolicy{HoldPPB: leasewire.Lease(cfg).HoldPPB}
			for _, ttl := range []time.Duration{0, 1, 7, 999, time.Millisecond, 5 * time.Second, 3 * time.Hour} {
				assert.Equal(t, cfg.GrantorHold(ttl), policy.Hold(ttl), "%v rho %v ttl %v", split, rho, ttl)
			}
		}
	}
}

// The history names fault kinds as the kernel does: every kind the kernel
// applies is one of history.FaultKinds, by the same name.
func TestFaultKindsAreTheKernels(t *testing.T) {
	var kernel []string
	for k := sim.FaultKind(1); k.String() != "unknown"; k++ {
		kernel = append(kernel, k.String())
	}
	assert.Equal(t, kernel, history.FaultKinds)
}
