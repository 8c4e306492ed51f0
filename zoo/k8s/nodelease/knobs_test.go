package nodelease_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/zoo/k8s/nodelease"
)

// TestKnobsSetTheRun checks that each knob reaches the run: the
// kubelets' renew interval and the controller's grace and monitor
// periods show in the history's lease configuration (P7's renewal
// schedule, P8's detection bound), over the story's own setting.
func TestKnobsSetTheRun(t *testing.T) {
	tests := []struct {
		name                  string
		knobs                 gohost.KnobValues
		renewMax, detectBound time.Duration
	}{
		{"defaults", nil, 10400 * time.Millisecond, 50*time.Second + 2*5*time.Second + 2*time.Second},
		{"renew interval", gohost.KnobValues{nodelease.KnobRenewInterval: 5 * time.Second}, 5200 * time.Millisecond, 62 * time.Second},
		{"grace and monitor periods", gohost.KnobValues{nodelease.KnobGracePeriod: 40 * time.Second,
			nodelease.KnobMonitorPeriod: time.Second}, 10400 * time.Millisecond, 44 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, gohost.CheckKnobs(nodelease.Knobs, tt.knobs))
			scs, err := nodelease.TunedScenarios(tt.knobs)
			require.NoError(t, err)
			for _, sc := range scs {
				if sc.Name == "renew-near-grace" && tt.knobs[nodelease.KnobGracePeriod] == 0 {
					continue // its own 10 s grace period stands unless the knob is set
				}
				l := sc.Goroutines(1).History.Lease
				assert.Equal(t, tt.renewMax, l.RenewInterval, sc.Name)
				assert.Equal(t, tt.detectBound, l.DetectBound, sc.Name)
			}
		})
	}
}

func TestKnobsRefuseBadValues(t *testing.T) {
	err := gohost.CheckKnobs(nodelease.Knobs, gohost.KnobValues{nodelease.KnobGracePeriod: time.Hour})
	require.ErrorIs(t, err, gohost.ErrBadKnob)
	assert.Contains(t, err.Error(), "grace-period=1h0m0s: out of range: want 1s to 10m0s")
	err = gohost.CheckKnobs(nodelease.Knobs, gohost.KnobValues{"grace": time.Second})
	assert.ErrorContains(t, err, `"grace": unknown (known: renew-interval, grace-period, monitor-period)`)
}
