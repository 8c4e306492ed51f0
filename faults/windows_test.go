package faults

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

func rec(at sim.Time, kind sim.FaultKind, node, peer string, value int64) sim.FaultRecord {
	return sim.FaultRecord{At: at, Kind: kind, Node: node, Peer: peer, Value: value}
}

func TestWindows(t *testing.T) {
	tests := []struct {
		name string
		log  []sim.FaultRecord
		end  sim.Time
		want []Window
	}{
		{"empty log", nil, 100, nil},
		{"pause until resume", []sim.FaultRecord{
			rec(10, sim.FaultPause, "a", "", 50), rec(60, sim.FaultResume, "a", "", 0)}, 100,
			[]Window{{Kind: sim.FaultPause, Node: "a", Start: 10, End: 60}}},
		{"a second pause extends the first", []sim.FaultRecord{
			rec(10, sim.FaultPause, "a", "", 50), rec(20, sim.FaultPause, "a", "", 80), rec(100, sim.FaultResume, "a", "", 0)}, 200,
			[]Window{{Kind: sim.FaultPause, Node: "a", Start: 10, End: 100}}},
		{"a crash ends a pause", []sim.FaultRecord{
			rec(10, sim.FaultPause, "a", "", 50), rec(20, sim.FaultCrash, "a", "", 0), rec(30, sim.FaultRestart, "a", "", 1)}, 100,
			[]Window{{Kind: sim.FaultPause, Node: "a", Start: 10, End: 20}, {Kind: sim.FaultCrash, Node: "a", Start: 20, End: 30}}},
		{"still open at the end", []sim.FaultRecord{rec(10, sim.FaultCrash, "a", "", 0)}, 100,
			[]Window{{Kind: sim.FaultCrash, Node: "a", Start: 10, End: 100}}},
		{"partitions until heal", []sim.FaultRecord{
			{At: 10, Kind: sim.FaultPartition, Detail: "[a] | [b]"}, rec(20, sim.FaultPartitionOneWay, "a", "b", 0),
			rec(30, sim.FaultIsolate, "c", "", 0), {At: 35, Kind: sim.FaultSplit, Value: 3}, rec(38, sim.FaultBridge, "c", "", 0),
			rec(40, sim.FaultHeal, "", "", 0), rec(50, sim.FaultIsolate, "a", "", 0)}, 100,
			[]Window{{Kind: sim.FaultPartition, Start: 10, End: 40, Detail: "[a] | [b]"},
				{Kind: sim.FaultPartitionOneWay, Node: "a", Peer: "b", Start: 20, End: 40},
				{Kind: sim.FaultIsolate, Node: "c", Start: 30, End: 40},
				{Kind: sim.FaultSplit, Start: 35, End: 40}, {Kind: sim.FaultBridge, Node: "c", Start: 38, End: 40},
				{Kind: sim.FaultIsolate, Node: "a", Start: 50, End: 100}}},
		{"drift until the next drift change", []sim.FaultRecord{
			rec(10, sim.FaultDrift, "a", "", 1000), rec(20, sim.FaultDrift, "b", "", -5), rec(30, sim.FaultDrift, "a", "", 2000),
			rec(40, sim.FaultDrift, "a", "", 0), rec(50, sim.FaultDrift, "b", "", 0)}, 100,
			[]Window{{Kind: sim.FaultDrift, Node: "a", Start: 10, End: 30}, {Kind: sim.FaultDrift, Node: "b", Start: 20, End: 50},
				{Kind: sim.FaultDrift, Node: "a", Start: 30, End: 40}}},
		{"link change until reset or replaced", []sim.FaultRecord{
			rec(10, sim.FaultLink, "a", "b", 5), rec(20, sim.FaultLink, "b", "a", 5), rec(30, sim.FaultLink, "a", "b", 9),
			rec(40, sim.FaultLinkReset, "", "", 0)}, 100,
			[]Window{{Kind: sim.FaultLink, Node: "a", Peer: "b", Start: 10, End: 30}, {Kind: sim.FaultLink, Node: "b", Peer: "a", Start: 20, End: 40},
				{Kind: sim.FaultLink, Node: "a", Peer: "b", Start: 30, End: 40}}},
		{"instants", []sim.FaultRecord{
			rec(10, sim.FaultStep, "a", "", -5), rec(20, sim.FaultFailpointArm, "a", "", 0),
			{At: 30, Kind: sim.FaultFailpointHit, Node: "a", Detail: "fp: crash"}}, 100,
			[]Window{{Kind: sim.FaultStep, Node: "a", Start: 10, End: 10},
				{Kind: sim.FaultFailpointHit, Node: "a", Start: 30, End: 30, Detail: "fp: crash"}}},
		{"a window opened after the end", []sim.FaultRecord{rec(200, sim.FaultCrash, "a", "", 0)}, 100,
			[]Window{{Kind: sim.FaultCrash, Node: "a", Start: 200, End: 200}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Windows(tt.log, tt.end))
		})
	}
}

func TestActiveAt(t *testing.T) {
	ws := []Window{
		{Kind: sim.FaultPause, Node: "a", Start: 10, End: 20},
		{Kind: sim.FaultStep, Node: "b", Start: 15, End: 15},
		{Kind: sim.FaultCrash, Node: "c", Start: 20, End: 30},
	}
	tests := []struct {
		at   sim.Time
		want []Window
	}{
		{9, nil},
		{10, ws[:1]},
		{15, ws[:2]},
		{20, []Window{ws[0], ws[2]}},
		{30, ws[2:]},
		{31, nil},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ActiveAt(ws, tt.at), "at %d", tt.at)
	}
}

func TestWindowsOfAnAppliedSchedule(t *testing.T) {
	c := newCluster(8, "n1", "n2", "n3")
	s := sched(10*time.Second,
		Event{At: time.Second, Kind: KindPartition, Groups: [][]string{{"n1"}, {"n2"}}},
		Event{At: 2 * time.Second, Kind: KindPause, Node: "n3", Duration: time.Second},
		Event{At: 4 * time.Second, Kind: KindCrash, Node: "n2"},
		Event{At: 5 * time.Second, Kind: KindDrift, Node: "n1", Drift: 0.001},
	)
	require.NoError(t, s.Apply(c.w))
	c.runUntil(12 * time.Second)
	ws := Windows(c.w.Faults(), c.w.Now())
	sec := func(s float64) sim.Time { return sim.Time(s * float64(time.Second)) }
	assert.Equal(t, []Window{
		{Kind: sim.FaultPartition, Start: sec(1), End: sec(10), Detail: "[n1] | [n2]"},
		{Kind: sim.FaultPause, Node: "n3", Start: sec(2), End: sec(3)},
		{Kind: sim.FaultCrash, Node: "n2", Start: sec(4), End: sec(10)},
		{Kind: sim.FaultDrift, Node: "n1", Start: sec(5), End: sec(10)},
	}, ws)
	assert.Len(t, ActiveAt(ws, sec(4.5)), 2, "the partition and the crash")
}
