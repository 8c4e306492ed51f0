package tune

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// replicated is leasesim's own implementation declaring an election
// timeout in 100ms ticks, as a replicated store would: the grid only reads
// the declaration.
func replicated() lease.Impl {
	impl := lease.Correct()
	impl.Name = "replicated"
	impl.Capabilities.ElectionTick = 100 * time.Millisecond
	return impl
}

func TestCheckElectionTimeouts(t *testing.T) {
	tests := []struct {
		name string
		impl lease.Impl
		ds   []time.Duration
		want string // "" for no error
	}{
		{"no axis, any impl", lease.Correct(), nil, ""},
		{"whole ticks", replicated(), []time.Duration{200 * time.Millisecond, time.Second, 2 * time.Second}, ""},
		{"an impl without the knob", lease.Correct(), []time.Duration{time.Second}, "correct has no election timeout to set"},
		{"the zero impl is the correct one", lease.Impl{}, []time.Duration{time.Second}, "correct has no election timeout"},
		{"not whole ticks", replicated(), []time.Duration{time.Second, 150 * time.Millisecond},
			"value 2: 150ms: replicated counts its election timeout in whole ticks of 100ms, more than one"},
		{"one tick is the heartbeat", replicated(), []time.Duration{100 * time.Millisecond}, "value 1: 100ms"},
		{"zero", replicated(), []time.Duration{0}, "value 1: 0s"},
		{"negative", replicated(), []time.Duration{-time.Second}, "value 1: -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckElectionTimeouts(tt.impl, tt.ds)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseElectionTimeouts(t *testing.T) {
	tests := []struct {
		in   string
		want []time.Duration
		err  string
	}{
		{"500ms,1s,2s", []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second}, ""},
		{" 1s ", []time.Duration{time.Second}, ""},
		{"", nil, "empty"},
		{"soon", nil, `"soon": want a positive duration`},
		{"0s", nil, `"0s": want a positive duration`},
		{"1s,1000ms", nil, "repeats value 1"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseElectionTimeouts(tt.in)
			if tt.err != "" {
				require.ErrorIs(t, err, ErrInvalid)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The election timeout is the grid's innermost axis when it is given: it
// reaches each run's lease configuration, the label, the JSON fields and
// the replay lines; without it nothing of it shows.
func TestGridElectionTimeoutAxis(t *testing.T) {
	cfg := smallConfig()
	cfg.TTLs = []time.Duration{2 * time.Second, 5 * time.Second}
	cfg.Checkpoints = []Checkpoint{{EveryUnits: 5}}
	cfg.Impl = replicated()
	cfg.ElectionTimeouts = []time.Duration{500 * time.Millisecond, 2 * time.Second}
	cfg, err := cfg.withDefaults()
	require.NoError(t, err)
	res := Result{Workload: "w.jsonl", Seeds: "1-2", Impl: cfg.Impl.Name, Rho: cfg.Rho, Margin: cfg.Margin}
	points := cfg.grid(res)
	require.Len(t, points, 4)
	wantLabels := []string{
		"ttl=2s renew=ttl/3 checkpoint=5u election=500ms", "ttl=2s renew=ttl/3 checkpoint=5u election=2s",
		"ttl=5s renew=ttl/3 checkpoint=5u election=500ms", "ttl=5s renew=ttl/3 checkpoint=5u election=2s",
	}
	for i, p := range points {
		assert.Equal(t, wantLabels[i], p.res.Label)
		assert.Equal(t, p.res.ElectionTimeoutNs, p.lease.ElectionTimeout)
		assert.Equal(t, p.res.ElectionTimeoutNs.String(), p.res.ElectionTimeout)
		assert.Contains(t, p.res.Replay, "--checkpoint 5u --election-timeout "+p.res.ElectionTimeout+" --rho")
		assert.Contains(t, res.RunReplay(p.res, 7), "--election-timeout "+p.res.ElectionTimeout)
	}

	cfg.ElectionTimeouts = nil
	for _, p := range cfg.grid(res) {
		assert.Zero(t, p.lease.ElectionTimeout, "no axis: the implementation's default")
		assert.Empty(t, p.res.ElectionTimeout)
		assert.NotContains(t, p.res.Label, "election")
		assert.NotContains(t, p.res.Replay, "--election-timeout")
	}
}

// Run refuses the axis for an implementation that does not declare it,
// before anything runs.
func TestRunRefusesElectionTimeoutsWithoutTheKnob(t *testing.T) {
	cfg := smallConfig()
	cfg.ElectionTimeouts = []time.Duration{time.Second}
	_, err := Run(t.Context(), cfg, nil)
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "election_timeouts: correct has no election timeout to set")
}
