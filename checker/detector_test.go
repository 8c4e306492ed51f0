package checker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
)

// sec is true time s seconds into a run.
func sec(s float64) history.Time { return history.Time(s * float64(time.Second)) }

// detectorHistory is a node-heartbeat run of two minutes: node-1 renews
// its lease on the API server every interval from 0 until stop (the
// renewal is processed at those instants), a controller judges it with a
// 40 s grace period, and the detection bound is 60 s.
type detectorHistory struct{ h *history.History }

func newDetectorHistory() *detectorHistory {
	return &detectorHistory{h: &history.History{Spec: "cas-record", Grantor: "apiserver",
		Lease: history.Lease{TTL: 40 * time.Second, RenewInterval: 10 * time.Second, RequestTimeout: 5 * time.Second,
			DetectBound: 60 * time.Second},
		End: sec(120)}}
}

// renewals adds node's accepted renewals at each of the instants.
func (d *detectorHistory) renewals(node string, at ...history.Time) *detectorHistory {
	for _, t := range at {
		d.h.AppendOp(history.Operation{Server: "apiserver", Client: node, ID: uint64(d.h.NumOps() + 1),
			Call: t - history.Time(time.Millisecond), Processed: t, Return: t + history.Time(time.Millisecond),
			Input:  history.Payload{Kind: "update", Key: "kube-node-lease/" + node},
			Output: history.Payload{Kind: "update_reply"}})
	}
	return d
}

// every returns the instants from..to (inclusive) step apart.
func every(from, to, step float64) []history.Time {
	var out []history.Time
	for t := from; t <= to; t += step {
		out = append(out, sec(t))
	}
	return out
}

// declare adds the controller's declaration about node.
func (d *detectorHistory) declare(node string, dead bool, at history.Time) *detectorHistory {
	d.h.Declarations = append(d.h.Declarations, history.Declaration{Detector: "controller", Member: node, Dead: dead,
		At: at, Grace: 40 * time.Second})
	return d
}

// fault adds a fault window on node.
func (d *detectorHistory) fault(kind, node string, from, to history.Time) *detectorHistory {
	d.h.Faults = append(d.h.Faults, history.FaultWindow{Kind: kind, Nodes: []string{node}, Start: from, End: to})
	return d
}

func (d *detectorHistory) with(f func(*history.History)) *detectorHistory { f(d.h); return d }

func TestAccuracy(t *testing.T) {
	tests := []struct {
		name    string
		h       *detectorHistory
		status  checker.Status
		summary string // a part of the summary
	}{
		{"not a detector", newDetectorHistory().renewals("node-1", every(0, 120, 10)...).
			with(func(h *history.History) { h.Lease.DetectBound = 0 }),
			checker.NotApplicable, "declares no detection bound"},
		{"nobody renewed", newDetectorHistory().declare("node-1", true, sec(50)),
			checker.Unknown, "nothing to judge: no member renewed (1 declarations)"},
		{"a healthy node never suspected", newDetectorHistory().renewals("node-1", every(0, 120, 10)...),
			checker.OK, "1 members renewed; none of the 0 declarations"},
		{"a stopped node suspected after its grace", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			declare("node-1", true, sec(75)),
			checker.OK, "none of the 1 declarations of death"},
		{"suspected within the grace of a renewal (a clock step)", newDetectorHistory().
			renewals("node-1", every(0, 120, 10)...).declare("node-1", true, sec(55)).declare("node-1", true, sec(60)).
			declare("node-1", false, sec(65)),
			checker.Violated, "controller declared node-1 dead at 55.000000s although its renewal at 50.000000s " +
				"was accepted 5s before, within the grace period 40s; suspected for 10s (1 false suspicions of 1 " +
				"declarations of death, 10s suspected in all)"},
		{"suspected between renewals on schedule (flapping)", newDetectorHistory().
			renewals("node-1", sec(0), sec(44), sec(88)).declare("node-1", true, sec(41)).declare("node-1", false, sec(45)).
			declare("node-1", true, sec(85)).with(func(h *history.History) { h.Lease.RenewInterval = 40 * time.Second }),
			checker.Violated, "2 violation(s): controller declared node-1 dead at 41.000000s although it renewed at " +
				"0.000000s and again at 44.000000s, within its renew interval 40s plus request timeout 5s"},
		{"suspected until the end", newDetectorHistory().renewals("node-1", every(0, 120, 10)...).
			declare("node-1", true, sec(100)),
			checker.Violated, "suspected for 20s, still suspected when the run ended"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := checker.Accuracy(tt.h.h)
			assert.Equal(t, "P7", r.Property)
			assert.Equal(t, tt.status, r.Status, r.Summary)
			assert.Contains(t, r.Summary, tt.summary)
		})
	}
}

func TestAccuracyScheduleNeedsTheRenewInterval(t *testing.T) {
	// The flapping story's renewals, 44 s apart, are not on a 10 s
	// schedule, nor on any when the history declares no renew interval:
	// rule (b) does not apply, and 41 s is past the 40 s grace.
	h := newDetectorHistory().renewals("node-1", sec(0), sec(44), sec(88)).declare("node-1", true, sec(41)).
		with(func(h *history.History) { h.Lease.RenewInterval = 0 })
	assert.Equal(t, checker.OK, checker.Accuracy(h.h).Status)
	h.h.Lease.RenewInterval = 10 * time.Second
	assert.Equal(t, checker.OK, checker.Accuracy(h.h).Status)
}

func TestCompleteness(t *testing.T) {
	tests := []struct {
		name    string
		h       *detectorHistory
		status  checker.Status
		summary string
	}{
		{"not a detector", newDetectorHistory().with(func(h *history.History) { h.Lease.DetectBound = 0 }),
			checker.NotApplicable, "declares no detection bound"},
		{"nobody stopped", newDetectorHistory().renewals("node-1", every(0, 120, 10)...),
			checker.Unknown, "nothing to judge: no member stayed stopped past its detection bound (0 stops"},
		{"a crash declared in time", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			fault(history.FaultCrash, "node-1", sec(30.5), sec(120)).declare("node-1", true, sec(75)),
			checker.OK, "1 stops declared dead within the bound (detection time from the stop: median 44.5s, max 44.5s)"},
		{"an isolation declared in time", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			renewals("node-1", every(100, 120, 10)...).
			fault(history.FaultIsolate, "node-1", sec(35), sec(95)).declare("node-1", true, sec(80)).
			declare("node-1", false, sec(101)),
			checker.OK, "median 45s"},
		{"a crash never declared", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			fault(history.FaultCrash, "node-1", sec(30.5), sec(120)),
			checker.Violated, "node-1 stopped at 30.500000s (crash, until 120.000000s) and was not declared dead by " +
				"90.000000s, 1m0s after its last renewal at 30.000000s; declared dead: never"},
		{"a pause declared late", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			fault(history.FaultPause, "node-1", sec(30.5), sec(120)).declare("node-1", true, sec(95)),
			checker.Violated, "declared dead: 95.000000s, 5s late"},
		{"a pause over before the bound", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			renewals("node-1", every(50, 120, 10)...).fault(history.FaultPause, "node-1", sec(30.5), sec(45)),
			checker.Unknown, "(1 stops, 1 over before their bound)"},
		{"the run ended before the bound", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			fault(history.FaultCrash, "node-1", sec(30.5), sec(70)).with(func(h *history.History) { h.End = sec(70) }),
			checker.Unknown, "run too short: node-1 stopped at 30.500000s (crash) and the run ended at 70.000000s"},
		{"the store cut off", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			fault(history.FaultIsolate, "apiserver", sec(30.5), sec(120)),
			checker.Unknown, "the lease store was cut off from 30.500000s to 120.000000s (isolate)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := checker.Completeness(tt.h.h)
			assert.Equal(t, "P8", r.Property)
			assert.Equal(t, tt.status, r.Status, r.Summary)
			assert.Contains(t, r.Summary, tt.summary)
		})
	}
}

// TestDetectorPropertiesInCheck checks that Check judges P7 and P8 and
// that a history without a detection bound gets them as not applicable.
func TestDetectorPropertiesInCheck(t *testing.T) {
	h := newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
		fault(history.FaultCrash, "node-1", sec(30.5), sec(120)).declare("node-1", true, sec(75)).h
	got := map[string]checker.Status{}
	for _, r := range checker.Check(h, checker.Options{SkipProperties: []string{"P3"}}) {
		got[r.Property] = r.Status
	}
	require.Contains(t, got, "P7")
	assert.Equal(t, checker.OK, got["P7"])
	assert.Equal(t, checker.OK, got["P8"])
	h.Lease.DetectBound = 0
	for _, r := range checker.Check(h, checker.Options{SkipProperties: []string{"P3"}}) {
		got[r.Property] = r.Status
	}
	assert.Equal(t, checker.NotApplicable, got["P7"])
	assert.Equal(t, checker.NotApplicable, got["P8"])
}

func TestDetectorMetrics(t *testing.T) {
	tests := []struct {
		name                 string
		h                    *detectorHistory
		falseCount           int
		falseTime            time.Duration
		detections           int
		detectionP50, detMax time.Duration
	}{
		{"not a detector", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).declare("node-1", true, sec(75)).
			fault(history.FaultPause, "node-1", sec(31), sec(120)).
			with(func(h *history.History) { h.Lease.DetectBound = 0 }), 0, 0, 0, 0, 0},
		{"a false suspicion of 10 s", newDetectorHistory().renewals("node-1", every(0, 120, 10)...).
			declare("node-1", true, sec(55)).declare("node-1", false, sec(65)), 1, 10 * time.Second, 0, 0, 0},
		{"a pause detected 44 s after it began", newDetectorHistory().renewals("node-1", every(0, 30, 10)...).
			fault(history.FaultPause, "node-1", sec(31), sec(120)).declare("node-1", true, sec(75)),
			0, 0, 1, 44 * time.Second, 44 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := checker.Measure(tt.h.h)
			assert.Equal(t, tt.falseCount, m.FalseSuspicions)
			assert.Equal(t, tt.falseTime, m.FalseSuspicionTime)
			assert.Equal(t, tt.detections, m.Detections)
			assert.Equal(t, tt.detectionP50, m.DetectionP50)
			assert.Equal(t, tt.detMax, m.DetectionMax)
			merged := checker.Aggregate(m, m)
			assert.Equal(t, 2*tt.falseCount, merged.FalseSuspicions, "merging adds the counts")
			assert.Equal(t, 2*tt.detections, merged.Detections, "merging keeps the samples")
		})
	}
}
