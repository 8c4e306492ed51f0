package faults_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
)

func TestMerge(t *testing.T) {
	nodes := []string{"a", "b"}
	crash := func(at time.Duration, node string) faults.Event {
		return faults.Event{At: at, Kind: faults.KindCrash, Node: node}
	}
	restart := func(at time.Duration, node string) faults.Event {
		return faults.Event{At: at, Kind: faults.KindRestart, Node: node}
	}
	tests := []struct {
		name    string
		plan    []faults.Event
		drawn   []faults.Event
		want    []faults.Event
		wantErr bool
	}{
		{name: "interleaved in time order",
			plan:  []faults.Event{crash(2*time.Second, "a"), restart(3*time.Second, "a")},
			drawn: []faults.Event{crash(time.Second, "b"), restart(4*time.Second, "b")},
			want: []faults.Event{crash(time.Second, "b"), crash(2*time.Second, "a"), restart(3*time.Second, "a"),
				restart(4*time.Second, "b")}},
		{name: "a drawn event that contradicts the plan is dropped",
			plan:  []faults.Event{crash(2*time.Second, "a"), restart(3*time.Second, "a")},
			drawn: []faults.Event{crash(time.Second, "a")},
			// the drawn crash left a down at 2 s: dropping it keeps the plan.
			want: []faults.Event{crash(2*time.Second, "a"), restart(3*time.Second, "a")}},
		{name: "an invalid explicit event is an error",
			plan:    []faults.Event{restart(time.Second, "a")},
			wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := faults.Merge(faults.Schedule{Version: faults.Version, HealAt: 10 * time.Second, Events: tt.plan}, tt.drawn, nodes)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Events)
		})
	}
}
