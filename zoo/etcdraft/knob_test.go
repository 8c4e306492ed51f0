package etcdraft

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// lease.Config.ElectionTimeout, the knob the store declares in
// Capabilities.ElectionTick, sets raft's election ticks.
func TestElectionTimeoutKnob(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		timeout time.Duration
		ticks   int
		err     string
	}{
		{"default", Options{}, 0, 10, ""},
		{"half a second", Options{}, 500 * time.Millisecond, 5, ""},
		{"two seconds", Options{}, 2 * time.Second, 20, ""},
		{"the knob overrides the option", Options{ElectionTicks: 30}, time.Second, 10, ""},
		{"the option without the knob", Options{ElectionTicks: 30}, 0, 30, ""},
		{"a coarser tick", Options{Tick: 250 * time.Millisecond}, time.Second, 4, ""},
		{"not whole ticks", Options{}, 150 * time.Millisecond, 0, "not a whole number of 100ms ticks"},
		{"not above the heartbeat", Options{}, 100 * time.Millisecond, 0, "election above heartbeat"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.opts.settings(lease.Config{TTL: 2 * time.Second, ElectionTimeout: tt.timeout}, bugs{})
			if tt.err != "" {
				require.ErrorIs(t, err, lease.ErrInvalidConfig)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.ticks, s.electionTicks)
			assert.Equal(t, time.Duration(tt.ticks)*s.tick, s.electionTimeout())
		})
	}
	for _, impl := range All() {
		assert.Equal(t, 100*time.Millisecond, impl.Capabilities.ElectionTick, impl.Name)
	}
}
