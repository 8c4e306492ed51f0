package faults

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sim"
)

// tb is what both *testing.T and *rapid.T offer.
type tb interface {
	require.TestingT
	Helper()
}

func roundTrip(t tb, s Schedule) Schedule {
	t.Helper()
	b, err := json.Marshal(s)
	require.NoError(t, err)
	got, err := Parse(bytes.NewReader(b))
	require.NoError(t, err, "%s", b)
	return got
}

func TestScheduleJSONRoundTrip(t *testing.T) {
	link := sim.LinkConfig{Latency: sim.ParetoDist(time.Millisecond, time.Second, 1.5), Loss: 0.05,
		Duplicate: 0.01, Reorder: 0.2, ReorderDelay: sim.Duration(30 * time.Millisecond), InFlightMax: 64}
	tests := []struct {
		name string
		s    Schedule
	}{
		{"empty", Schedule{Version: Version}},
		{"every kind", Schedule{Version: Version, HealAt: 40 * time.Second, Events: []Event{
			{At: time.Second, Kind: KindPartition, Groups: [][]string{{"n1"}, {"n2", "n3"}, {"n4"}}},
			{At: 2 * time.Second, Kind: KindPartitionOneWay, From: "n1", To: "n2"},
			{At: 3 * time.Second, Kind: KindIsolate, Node: "n3"},
			{At: 4 * time.Second, Kind: KindBridge, Groups: [][]string{{"n1"}, {"n2"}}, Bridge: "n3"},
			{At: 5 * time.Second, Kind: KindHeal},
			{At: 6 * time.Second, Kind: KindLink, From: AnyNode, To: "n2", Link: &link},
			{At: 7 * time.Second, Kind: KindLinkReset},
			{At: 8 * time.Second, Kind: KindDrift, Node: "n1", Drift: 0.01},
			{At: 8 * time.Second, Kind: KindDrift, Node: "n1"},
			{At: 9 * time.Second, Kind: KindStep, Node: "n2", Step: -1500 * time.Millisecond},
			{At: 10 * time.Second, Kind: KindPause, Node: "n2", Duration: 3 * time.Second},
			{At: 11 * time.Second, Kind: KindCrash, Node: "n4"},
			{At: 12 * time.Second, Kind: KindRestart, Node: "n4"},
			{At: 13 * time.Second, Kind: KindFailpoint, Node: "n1", Failpoint: "before-write", Action: ActionPause, Duration: time.Second},
			{At: 14 * time.Second, Kind: KindFailpoint, Node: "n1", Failpoint: "before-write", Action: ActionCrash},
		}}},
		{"nanosecond times", Schedule{Version: Version, HealAt: 1, Events: []Event{{Kind: KindPause, Node: "x", Duration: 1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.s, roundTrip(t, tt.s))
		})
	}
}

func TestScheduleJSONForm(t *testing.T) {
	s := Schedule{Version: Version, HealAt: 40 * time.Second, Events: []Event{
		{At: 5 * time.Second, Kind: KindPause, Node: "n2", Duration: 1500 * time.Millisecond},
	}}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":1,"heal_at":"40s","events":[{"at":"5s","kind":"pause","node":"n2","duration":"1.5s"}]}`, string(b))

	b, err = json.Marshal(Schedule{Version: Version})
	require.NoError(t, err)
	assert.JSONEq(t, `{"version":1,"heal_at":"0s","events":[]}`, string(b), "events is never null")
}

func TestScheduleJSONRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSchedule().Draw(t, "schedule")
		assert.Equal(t, s, roundTrip(t, s))
	})
}

func TestEventJSONRoundTripAlone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		e := genEvent().Draw(t, "event")
		b, err := json.Marshal(e)
		require.NoError(t, err)
		var got Event
		require.NoError(t, json.Unmarshal(b, &got), "%s", b)
		assert.Equal(t, e, got)
	})
}

func TestScheduleEmbeddedInJSON(t *testing.T) {
	var v struct {
		Schedule *Schedule `json:"schedule"`
	}
	err := json.Unmarshal([]byte(`{"schedule": {"version": 1, "heal_at": "1s", "events": [], "bogus": 1}}`), &v)
	require.Error(t, err, "UnmarshalJSON is as strict as Parse")
	assert.Contains(t, err.Error(), "bogus: unknown field")
}

func TestScheduleString(t *testing.T) {
	s := Schedule{Version: Version, HealAt: 10 * time.Second, Events: []Event{
		{At: 2 * time.Second, Kind: KindPause, Node: "n1", Duration: 1500 * time.Millisecond},
		{At: time.Second, Kind: KindPartition, Groups: [][]string{{"n1"}, {"n2", "n3"}}},
	}}
	assert.Equal(t, strings.Join([]string{
		"1s partition [n1] | [n2 n3]",
		"2s pause n1 for 1.5s",
		"10s heal phase",
	}, "\n"), s.String())
}

// A fault and the event that ends it count once.
func TestScheduleFaults(t *testing.T) {
	ev := func(k Kind) Event { return Event{Kind: k} }
	for _, tc := range []struct {
		name   string
		events []Event
		want   int
	}{
		{"none", nil, 0},
		{"a pause", []Event{ev(KindPause)}, 1},
		{"a crash and its restart", []Event{ev(KindCrash), ev(KindRestart)}, 1},
		{"a partition and its heal", []Event{ev(KindPartition), ev(KindHeal)}, 1},
		{"a link change and its reset", []Event{ev(KindLink), ev(KindLinkReset)}, 1},
		{"a drift and its return to zero", []Event{{Kind: KindDrift, Drift: 0.01}, {Kind: KindDrift}}, 1},
		{"a crash left down, a pause", []Event{ev(KindCrash), ev(KindPause)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Schedule{Events: tc.events}.Faults())
		})
	}
}
