package tune_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/tune"
)

// detectorHost is a failure detector judged by a rule, as a goroutine
// host's worker would judge it: with a grace period at or below the renew
// interval, story "quiet" falsely suspects a member on every seed (P7);
// story "cut" detects a stopped member a grace period after the stop.
type detectorHost struct{ renew, grace time.Duration }

func (h detectorHost) Impl() string { return "fake/detector" }

func (h detectorHost) Run(_ context.Context, scenario string, seed uint64, _ bool) (sweep.HostRun, error) {
	p7 := checker.Result{Property: "P7", Name: "accuracy", Status: checker.OK}
	var m checker.Metrics
	if scenario == "quiet" && h.grace <= h.renew {
		p7.Status, p7.Summary = checker.Violated, "a healthy member suspected"
		m.FalseSuspicions, m.FalseSuspicionTime = 1, 5*time.Second
	}
	if scenario == "cut" {
		m.DetectionSamples = []time.Duration{h.grace + time.Duration(seed)*time.Millisecond}
	}
	m.Runs = 1
	return sweep.HostRun{Judgement: checker.Judgement{Checks: []checker.Result{p7}, Metrics: checker.Aggregate(m)},
		TraceHash: fmt.Sprintf("%016x", seed), SimTime: time.Minute}, nil
}

func TestRunKnobs(t *testing.T) {
	cfg := tune.KnobConfig{Impl: "fake/detector", Scenarios: []string{"quiet", "cut"},
		Target: []string{"--impl", "fake/detector"}, Seeds: sweep.Seeds{First: 1, Last: 3}, Parallel: 2,
		Objective: tune.ObjectiveDetectionMax,
		Axes: []tune.KnobAxis{{Name: "renew", Values: []time.Duration{10 * time.Second}},
			{Name: "grace", Values: []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 50 * time.Second}}},
		Host: func(v gohost.KnobValues) (sweep.Host, string, error) {
			if v["grace"] < 10*time.Second {
				return nil, "grace below the monitor period", nil
			}
			return detectorHost{renew: v["renew"], grace: v["grace"]}, "", nil
		}}
	res, err := tune.RunKnobs(context.Background(), cfg, nil)
	require.NoError(t, err)
	require.Len(t, res.Configs, 4)
	labels := []string{}
	for _, c := range res.Configs {
		labels = append(labels, c.Label)
	}
	assert.Equal(t, []string{"renew=10s grace=5s", "renew=10s grace=10s", "renew=10s grace=20s", "renew=10s grace=50s"}, labels)
	invalid, flapping, short, long := res.Configs[0], res.Configs[1], res.Configs[2], res.Configs[3]
	assert.False(t, invalid.Valid)
	assert.Equal(t, "grace below the monitor period", invalid.InvalidReason)
	assert.Equal(t, 3, res.ValidConfigs)
	assert.Equal(t, 18, res.Runs, "3 configs × 2 stories × 3 seeds")

	assert.Equal(t, map[string]int{"P7": 3}, flapping.Violated)
	assert.Equal(t, 3, flapping.Metrics.FalseSuspicions)
	assert.Equal(t, 15*time.Second, flapping.Metrics.FalseSuspicionTime)
	require.Len(t, flapping.Violations, 3)
	assert.Equal(t, "simrun run --impl fake/detector --scenario quiet --seed 1 --knob grace=10s --knob renew=10s",
		flapping.Violations[0].Replay)
	assert.Equal(t, "simrun sweep --impl fake/detector --scenario quiet,cut --seeds 1-3 --knob grace=20s --knob renew=10s",
		short.Replay)

	assert.Equal(t, 3, short.Metrics.Detections)
	assert.Equal(t, 20*time.Second+3*time.Millisecond, short.Metrics.DetectionMax)
	assert.True(t, short.Recommended, "the shortest detection without a false suspicion: %s", res.Explanation)
	assert.False(t, long.Recommended)
	assert.Contains(t, res.Explanation, "renew=10s grace=20s: the shortest longest detection (20 s)")
	assert.Contains(t, res.Explanation, "1 config that violated a property is left out")
	assert.Equal(t, 3, res.ViolatingRuns)

	one := 0
	cfg.Constraints.MaxFalseSuspicions = &one
	cfg.Objective = tune.ObjectiveFalseSuspicions
	res, err = tune.RunKnobs(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.True(t, res.Configs[2].Recommended, "ties on false suspicions are broken by detection: %s", res.Explanation)
}

func TestRunKnobsRefusesBadInput(t *testing.T) {
	host := func(gohost.KnobValues) (sweep.Host, string, error) { return detectorHost{}, "", nil }
	ok := tune.KnobConfig{Impl: "fake/detector", Scenarios: []string{"cut"}, Seeds: sweep.Seeds{First: 1, Last: 1},
		Axes: []tune.KnobAxis{{Name: "grace", Values: []time.Duration{time.Second}}}, Host: host}
	tests := []struct {
		name   string
		change func(*tune.KnobConfig)
		want   string
	}{
		{"no scenario", func(c *tune.KnobConfig) { c.Scenarios = nil }, "needs an implementation and a scenario"},
		{"no knob", func(c *tune.KnobConfig) { c.Axes = nil }, "no knob to tune"},
		{"a knob without values", func(c *tune.KnobConfig) { c.Axes[0].Values = nil }, "knob grace has no values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			cfg.Axes = []tune.KnobAxis{{Name: "grace", Values: []time.Duration{time.Second}}}
			tt.change(&cfg)
			_, err := tune.RunKnobs(context.Background(), cfg, nil)
			require.ErrorIs(t, err, tune.ErrInvalid)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := tune.RunKnobs(context.Background(), ok, nil)
	assert.NoError(t, err, "the unchanged config is fine")
}

func TestRunKnobsDefaultObjective(t *testing.T) {
	cfg := tune.KnobConfig{Impl: "fake/detector", Scenarios: []string{"cut"}, Seeds: sweep.Seeds{First: 1, Last: 1},
		Axes: []tune.KnobAxis{{Name: "grace", Values: []time.Duration{20 * time.Second, 10 * time.Second}}},
		Host: func(v gohost.KnobValues) (sweep.Host, string, error) {
			return detectorHost{renew: 5 * time.Second, grace: v["grace"]}, "", nil
		}}
	res, err := tune.RunKnobs(context.Background(), cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, tune.ObjectiveFalseSuspicions, res.Objective, "a detector's runs choose its objective")
	assert.True(t, res.Configs[1].Recommended, "no false suspicions anywhere: the shorter detection wins the tie: %s",
		res.Explanation)
}
