package tune

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRenew(t *testing.T) {
	tests := []struct {
		in      string
		want    Renew
		wantErr string
	}{
		{"1s", Renew{Interval: time.Second}, ""},
		{" 250ms ", Renew{Interval: 250 * time.Millisecond}, ""},
		{"ttl/3", Renew{Divisor: 3}, ""},
		{"TTL/6", Renew{Divisor: 6}, ""},
		{"ttl/1", Renew{Divisor: 1}, ""}, // parses; the grid reports it invalid
		{"ttl/0", Renew{}, "ttl/N"},
		{"ttl/x", Renew{}, "ttl/N"},
		{"ttl/1001", Renew{}, "ttl/N"},
		{"0s", Renew{}, "positive duration"},
		{"-1s", Renew{}, "positive duration"},
		{"often", Renew{}, `"often"`},
		{"", Renew{}, "positive duration"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRenew(tt.in)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalid)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := ParseRenew(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again, "String reads back")
		})
	}
}

func TestRenewFor(t *testing.T) {
	assert.Equal(t, 5*time.Second/3, Renew{Divisor: 3}.For(5*time.Second))
	assert.Equal(t, time.Second, Renew{Interval: time.Second}.For(20*time.Second))
	assert.Equal(t, time.Duration(0), Renew{Divisor: 3}.For(2), "a TTL too short to divide")
}

func TestParseCheckpoint(t *testing.T) {
	tests := []struct {
		in      string
		want    Checkpoint
		wantErr string
	}{
		{"5u", Checkpoint{EveryUnits: 5}, ""},
		{"1u", Checkpoint{EveryUnits: 1}, ""},
		{"30s", Checkpoint{Interval: 30 * time.Second}, ""},
		{"none", Checkpoint{}, ""},
		{"NONE", Checkpoint{}, ""},
		{"0u", Checkpoint{}, "Nu"},
		{"-3u", Checkpoint{}, "Nu"},
		{"u", Checkpoint{}, "Nu"},
		{"0s", Checkpoint{}, "none"},
		{"sometimes", Checkpoint{}, `"sometimes"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseCheckpoint(tt.in)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrInvalid)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := ParseCheckpoint(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again, "String reads back")
		})
	}
}

func TestParseLists(t *testing.T) {
	ttls, err := ParseTTLs("2s, 5s,10s")
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{2 * time.Second, 5 * time.Second, 10 * time.Second}, ttls)

	tests := []struct {
		name, in, wantErr string
		parse             func(string) error
	}{
		{"empty TTLs", "", "empty", func(s string) error { _, err := ParseTTLs(s); return err }},
		{"bad TTL", "2s,x", `"x"`, func(s string) error { _, err := ParseTTLs(s); return err }},
		{"zero TTL", "0s", "positive", func(s string) error { _, err := ParseTTLs(s); return err }},
		{"repeated TTL", "5s,2s,5000ms", `"5000ms" repeats value 1 (5s)`, func(s string) error { _, err := ParseTTLs(s); return err }},
		{"repeated renew", "ttl/3,1s,ttl/3", `repeats value 1`, func(s string) error { _, err := ParseList(s, ParseRenew); return err }},
		{"repeated checkpoint", "none,5u,none", `repeats value 1`, func(s string) error { _, err := ParseList(s, ParseCheckpoint); return err }},
		{"empty element", "5u,,none", `""`, func(s string) error { _, err := ParseList(s, ParseCheckpoint); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse(tt.in)
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestParseLimits(t *testing.T) {
	rates := []struct {
		in   string
		want float64
		ok   bool
	}{{"200/s", 200, true}, {"2.5", 2.5, true}, {"0/s", 0, true}, {"-1/s", 0, false}, {"fast", 0, false}, {"NaN", 0, false}}
	for _, tt := range rates {
		got, err := ParseRate(tt.in)
		if !tt.ok {
			assert.ErrorIs(t, err, ErrInvalid, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
	fractions := []struct {
		in   string
		want float64
		ok   bool
	}{{"5%", 0.05, true}, {"0.05", 0.05, true}, {"0%", 0, true}, {"100%", 1, true}, {"101%", 0, false}, {"1.5", 0, false}, {"-1%", 0, false}, {"some", 0, false}}
	for _, tt := range fractions {
		got, err := ParseFraction(tt.in)
		if !tt.ok {
			assert.ErrorIs(t, err, ErrInvalid, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.InDelta(t, tt.want, got, 1e-12, tt.in)
	}
	for _, o := range Objectives() {
		got, err := ParseObjective(string(o))
		require.NoError(t, err)
		assert.Equal(t, o, got)
	}
	_, err := ParseObjective("speed")
	require.ErrorIs(t, err, ErrInvalid)
	assert.Contains(t, err.Error(), "p99-failover, reexecuted, store-writes, task-latency-p99, false-suspicions or detection-max")
}
