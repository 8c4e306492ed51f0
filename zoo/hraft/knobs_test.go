package hraft

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
)

// TestKnobsSetRaftsTiming checks that the knobs reach the history's lease
// configuration (the leader lease as P1's TTL, the heartbeat as its
// renewal) and that a timing raft.ValidateConfig refuses is refused.
func TestKnobsSetRaftsTiming(t *testing.T) {
	tests := []struct {
		name    string
		knobs   gohost.KnobValues
		ttl     time.Duration
		refused string
	}{
		{"defaults", nil, 500 * time.Millisecond, ""},
		{"a longer lease within the heartbeat", gohost.KnobValues{KnobLeaderLeaseTimeout: time.Second}, time.Second, ""},
		{"a lease longer than the heartbeat", gohost.KnobValues{KnobLeaderLeaseTimeout: 2 * time.Second},
			0, "LeaderLeaseTimeout (2s) cannot be larger than heartbeat timeout (1s)"},
		{"an election shorter than the heartbeat", gohost.KnobValues{KnobHeartbeatTimeout: 2 * time.Second},
			0, "ElectionTimeout (1s) must be equal or greater than Heartbeat Timeout (2s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, gohost.CheckKnobs(Knobs, tt.knobs))
			scs, err := TunedScenarios(tt.knobs)
			if tt.refused != "" {
				assert.ErrorContains(t, err, tt.refused)
				return
			}
			require.NoError(t, err)
			require.Len(t, scs, len(Scenarios()))
			for _, sc := range scs {
				assert.Equal(t, tt.ttl, sc.Goroutines(1).History.Lease.TTL, sc.Name)
			}
		})
	}
}
