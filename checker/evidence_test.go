package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

func TestCausalFaults(t *testing.T) {
	const ttl = 5 * time.Second
	at := secs(13)
	for _, tc := range []struct {
		name  string
		w     history.FaultWindow
		nodes []string
		want  bool
	}{
		{"active at the instant, any node", history.FaultWindow{Kind: history.FaultPause, Nodes: []string{"h3"}, Start: secs(12), End: secs(14)}, []string{"h1"}, true},
		{"ended the instant before, on an involved node", history.FaultWindow{Kind: history.FaultPause, Nodes: []string{"h1"}, Start: secs(3), End: at - 1}, []string{"h1", "store"}, true},
		{"ended exactly one TTL before, on an involved node", history.FaultWindow{Kind: history.FaultPause, Nodes: []string{"h1"}, Start: secs(1), End: at.Add(-ttl)}, []string{"h1"}, true},
		{"ended more than one TTL before", history.FaultWindow{Kind: history.FaultPause, Nodes: []string{"h1"}, Start: secs(1), End: at.Add(-ttl - 1)}, []string{"h1"}, false},
		{"ended recently, on a node not involved", history.FaultWindow{Kind: history.FaultPause, Nodes: []string{"h3"}, Start: secs(3), End: secs(12)}, []string{"h1", "store"}, false},
		{"ended recently, the involved node is its peer", history.FaultWindow{Kind: history.FaultPartitionOneWay, Nodes: []string{"grantor", "h1"}, Start: secs(3), End: secs(12)}, []string{"h1"}, true},
		{"ended recently, network-wide", history.FaultWindow{Kind: history.FaultPartition, Start: secs(3), End: secs(12), Detail: "[h1] | [grantor]"}, []string{"h1"}, true},
		{"begins after the violation", history.FaultWindow{Kind: history.FaultPause, Nodes: []string{"h1"}, Start: secs(14), End: secs(15)}, []string{"h1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &history.History{Lease: history.Lease{TTL: ttl}, Faults: []history.FaultWindow{tc.w}}
			got := causalFaults(h, tc.nodes, at, at)
			assert.Equal(t, tc.want, len(got) == 1, "%+v", got)
		})
	}
}

func TestInvolvedAt(t *testing.T) {
	h := linHistoryOf(
		linWrite("h2", span{1, 2, 3}, 2, "b", lease.CodeOK, 2),
		linWrite("h1", span{4, 5, 6}, 1, "a", lease.CodeOK, 1),
	)
	h.Beliefs = []history.BeliefInterval{{Holder: "h3", Start: secs(5), End: secs(9)}}
	for _, tc := range []struct {
		at   history.Time
		want []string
	}{
		{secs(5), []string{"h1", "h3", "store"}},
		{secs(2), []string{"h2", "store"}},
		{secs(7), nil},
	} {
		assert.Equal(t, tc.want, involvedAt(h, tc.at), "at %v", tc.at)
	}
}

func TestFormatTime(t *testing.T) {
	for _, tc := range []struct {
		t    history.Time
		want string
	}{
		{0, "0.000000s"},
		{13_010_421_270, "13.010421s"},
		{secs(125), "125.000000s"},
		{-1_500_000, "-0.001500s"},
		{history.Never, "never"},
	} {
		assert.Equal(t, tc.want, FormatTime(tc.t))
	}
}

func TestFormatDrift(t *testing.T) {
	for _, tc := range []struct {
		ppb  int64
		want string
	}{
		{120_000, "+120 ppm"},
		{-500, "-0.5 ppm"},
		{0, "0 ppm"},
		{30_000_000, "+30000 ppm"},
		{1, "+0.001 ppm"},
	} {
		assert.Equal(t, tc.want, FormatDrift(tc.ppb))
	}
	h := &history.History{Lease: history.Lease{RhoPPB: 10_000_000}, MaxDriftPPB: 30_000_000}
	assert.Equal(t, "drift +30000 ppm exceeded rho 10000 ppm", driftNote(h))
}
