package gohost_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/scenarios"
)

var graceKnobs = []gohost.Knob{
	{Name: "renew-interval", Default: 10 * time.Second, Min: time.Second, Max: time.Minute},
	{Name: "grace-period", Default: 50 * time.Second, Min: time.Second, Max: 10 * time.Minute},
}

func TestParseKnob(t *testing.T) {
	tests := []struct {
		in     string
		name   string
		values []time.Duration
		err    string
	}{
		{"grace-period=40s", "grace-period", []time.Duration{40 * time.Second}, ""},
		{" grace-period = 40s, 1m ", "grace-period", []time.Duration{40 * time.Second, time.Minute}, ""},
		{"grace-period", "", nil, `bad knob "grace-period": want NAME=VALUE`},
		{"=40s", "", nil, `bad knob "=40s": want NAME=VALUE`},
		{"grace-period=", "", nil, `bad knob "grace-period=": want NAME=VALUE`},
		{"grace-period=40", "", nil, `bad knob grace-period: "40" is not a duration`},
		{"grace-period=40s,40s", "", nil, "bad knob grace-period: 40s is given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			name, values, err := gohost.ParseKnob(tt.in)
			if tt.err != "" {
				require.ErrorIs(t, err, gohost.ErrBadKnob)
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.name, name)
			assert.Equal(t, tt.values, values)
		})
	}
}

func TestCheckKnobs(t *testing.T) {
	tests := []struct {
		name   string
		values gohost.KnobValues
		err    string
	}{
		{"none set", nil, ""},
		{"at the bounds", gohost.KnobValues{"renew-interval": time.Second, "grace-period": 10 * time.Minute}, ""},
		{"unknown", gohost.KnobValues{"grace": time.Second},
			`bad knob "grace": unknown (known: renew-interval, grace-period)`},
		{"below", gohost.KnobValues{"renew-interval": time.Millisecond},
			"bad knob renew-interval=1ms: out of range: want 1s to 1m0s (default 10s)"},
		{"above, the first by name", gohost.KnobValues{"renew-interval": time.Hour, "grace-period": time.Hour},
			"bad knob grace-period=1h0m0s: out of range: want 1s to 10m0s (default 50s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := gohost.CheckKnobs(graceKnobs, tt.values)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, gohost.ErrBadKnob)
			assert.EqualError(t, err, tt.err)
		})
	}
	assert.ErrorContains(t, gohost.CheckKnobs(nil, gohost.KnobValues{"x": 1}), "(known: none)")
}

func TestKnobValuesRoundTrip(t *testing.T) {
	values := gohost.KnobValues{"renew-interval": 10 * time.Second, "grace-period": 90 * time.Second}
	args := gohost.KnobArgs(values)
	assert.Equal(t, []string{"--knob", "grace-period=1m30s", "--knob", "renew-interval=10s"}, args, "in name order")
	back := gohost.KnobValues{}
	for i := 1; i < len(args); i += 2 {
		name, vs, err := gohost.ParseKnob(args[i])
		require.NoError(t, err)
		back[name] = vs[0]
	}
	assert.Equal(t, values, back, "a printed line reads back as the values it was printed from")
	assert.Equal(t, 7*time.Second, gohost.KnobValues(nil).Get("grace-period", 7*time.Second))
	assert.Equal(t, 90*time.Second, values.Get("grace-period", 7*time.Second))
}

// A worker checks a job's knob values against the knobs its
// implementation declares; simrun reads the command line's --knob with
// ParseKnob and checks the values first.
func ExampleCheckKnobs() {
	knobs := []gohost.Knob{{Name: "grace-period", Doc: "how long a node may go unrenewed", Default: 50 * time.Second,
		Min: time.Second, Max: 10 * time.Minute}}
	name, values, _ := gohost.ParseKnob("grace-period=10s,1h")
	for _, v := range values {
		fmt.Println(gohost.CheckKnobs(knobs, gohost.KnobValues{name: v}))
	}
	// Output:
	// <nil>
	// bad knob grace-period=1h0m0s: out of range: want 1s to 10m0s (default 50s)
}

// TestTunableWorkerAppliesAndRefusesKnobs: a worker lists its knobs with
// every scenario, builds the scenarios from a job's knob values, and
// answers a bad knob, or a combination the implementation refuses, with a
// bad-knob error record instead of running anything.
func TestTunableWorkerAppliesAndRefusesKnobs(t *testing.T) {
	built := gohost.KnobValues{}
	impl := scenarios.Tunable{Knobs: graceKnobs, Scenarios: func(v gohost.KnobValues) ([]scenarios.Scenario, error) {
		if v.Get("grace-period", 50*time.Second) < v.Get("renew-interval", 10*time.Second) {
			return nil, errors.New("a grace period shorter than the renew interval")
		}
		for name, d := range v { // a copy, to see what the worker passed
			built[name] = d
		}
		return []scenarios.Scenario{brokenScenario()}, nil
	}}
	tests := []struct {
		name   string
		job    gohost.Job
		errMsg string
	}{
		{"a list names the knobs", gohost.Job{Kind: gohost.JobList, Knobs: gohost.KnobValues{"grace-period": time.Minute}}, ""},
		{"an unknown knob", gohost.Job{Kind: gohost.JobList, Knobs: gohost.KnobValues{"grace": time.Minute}}, `bad knob "grace": unknown`},
		{"out of range", gohost.Job{Kind: gohost.JobRun, Scenario: "broken-client", Seeds: []uint64{1},
			Knobs: gohost.KnobValues{"grace-period": time.Hour}}, "bad knob grace-period=1h0m0s: out of range"},
		{"refused together", gohost.Job{Kind: gohost.JobRun, Scenario: "broken-client", Seeds: []uint64{1},
			Knobs: gohost.KnobValues{"grace-period": 2 * time.Second, "renew-interval": 5 * time.Second}},
			"bad knob: a grace period shorter than the renew interval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clear(built)
			recs := runJobWith(t, func(t *testing.T) { scenarios.TunableWorker(t, impl) }, tt.job)
			require.Len(t, recs, 1)
			if tt.errMsg != "" {
				require.NotNil(t, recs[0].Error)
				assert.Equal(t, gohost.ErrKindBadKnob, recs[0].Error.Kind)
				assert.Contains(t, recs[0].Error.Message, tt.errMsg)
				return
			}
			require.NotNil(t, recs[0].Scenario)
			assert.Equal(t, graceKnobs, recs[0].Scenario.Knobs)
			assert.Equal(t, tt.job.Knobs, built, "the scenarios were built with the job's knobs")
		})
	}
}
