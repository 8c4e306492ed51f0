package workload_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/workload"
)

// everyKind is a workload with every line type and every optional field,
// in the Writer's canonical form.
var everyKind = lines(
	`{"type":"header","version":1,"name":"every-kind","workers":3,"duration":"20m0s","env":{"latency":{"kind":"uniform","min":"0s","max":"0s"},"loss":0.25,"gc_pause":{"per_minute":0.5,"p50":"1ms","p99":"1ms","max":"1ms"},"crash_per_hour":2,"restart_after":"1m0s"}}`,
	`{"type":"task","at":"0s","id":"t1","units":1,"unit_time":"1ns"}`,
	`{"type":"task","at":"0s","id":"<t2> & \"quoted\" ünïcode","units":7,"unit_time_dist":{"kind":"pareto","min":"1ms","max":"1s","alpha":0.7}}`,
	`{"type":"task","at":"1.5s","id":"t3","units":2,"unit_time_dist":{"kind":"fixed","min":"3ms"}}`,
	`{"type":"crash","at":"1m0s","worker":"w3"}`,
	`{"type":"pause","at":"1m0s","worker":"w1","duration":"1h0m0s"}`,
	`{"type":"restart","at":"2m0s","worker":"w3"}`,
	`{"type":"deploy","at":"5m0s","spacing":"0s","down":"1ns"}`,
)

func TestRoundTrip(t *testing.T) {
	h, events, err := readAll(strings.NewReader(everyKind))
	require.NoError(t, err)
	var buf bytes.Buffer
	w, err := workload.NewWriter(&buf, h)
	require.NoError(t, err)
	for _, e := range events {
		require.NoError(t, w.Write(e))
	}
	require.NoError(t, w.Flush())
	require.Equal(t, len(events)+1, w.Lines())
	require.Equal(t, everyKind, buf.String(), "the canonical form writes back byte for byte")

	h2, events2, err := readAll(&buf)
	require.NoError(t, err)
	require.Equal(t, h, h2)
	require.Equal(t, events, events2)
}

func TestWriterLeavesOutOptionalFields(t *testing.T) {
	var buf bytes.Buffer
	w, err := workload.NewWriter(&buf, workload.Header{Name: "bare", Workers: 1})
	require.NoError(t, err)
	require.NoError(t, w.Write(workload.Event{Type: workload.TypeCrash, Worker: "w1"}))
	require.NoError(t, w.Flush())
	require.Equal(t, lines(`{"type":"header","version":1,"name":"bare","workers":1}`,
		`{"type":"crash","at":"0s","worker":"w1"}`), buf.String())
}

// TestWriterChecksLikeTheReader: the Writer refuses what the Reader would
// refuse, naming the line the event would have had.
func TestWriterChecksLikeTheReader(t *testing.T) {
	unit := sim.FixedDist(0)
	for _, tt := range []struct {
		name   string
		events []workload.Event
		want   string
	}{
		{"out of order", []workload.Event{{Type: workload.TypeCrash, At: 2 * time.Second, Worker: "w1"},
			{Type: workload.TypeRestart, At: time.Second, Worker: "w1"}},
			`workload: line 3: restart: at: 1s is before 2s, the time of the previous event: events must come in time order`},
		{"unknown type", []workload.Event{{Type: "crsh", Worker: "w1"}},
			`workload: line 2: crsh: type: unknown event type "crsh" (want "task", "crash", "restart", "pause" or "deploy")`},
		{"field of another type", []workload.Event{{Type: workload.TypeCrash, Worker: "w1", Duration: time.Second}},
			`workload: line 2: crash: duration: not used by crash events`},
		{"unknown worker", []workload.Event{{Type: workload.TypePause, Worker: "w3", Duration: time.Second}},
			`workload: line 2: pause: worker: unknown worker "w3" (the header has 2: w1..w2)`},
		{"zero units", []workload.Event{{Type: workload.TypeTask, ID: "t9", UnitTime: time.Second}},
			`workload: line 2: task "t9": units: must be positive, got 0`},
		{"zero unit time", []workload.Event{{Type: workload.TypeTask, ID: "t9", Units: 1, UnitTimeDist: &unit}},
			`workload: line 2: task "t9": unit_time_dist.min: must be positive, got 0s`},
		{"too much work", []workload.Event{{Type: workload.TypeTask, ID: "t9", Units: workload.MaxUnits, UnitTime: time.Hour}},
			`workload: line 2: task "t9": units: 1048576 units of up to 1h0m0s exceed the limit of 168h0m0s of work per task`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := workload.NewWriter(&buf, workload.Header{Name: "w", Workers: 2})
			require.NoError(t, err)
			for _, e := range tt.events {
				err = w.Write(e)
			}
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, workload.ErrInvalid)
		})
	}
}

func TestWriterChecksTheHeader(t *testing.T) {
	for _, tt := range []struct {
		h    workload.Header
		want string
	}{
		{workload.Header{Workers: 1}, `workload: line 1: header: name: must not be empty`},
		{workload.Header{Name: "x", Version: 3, Workers: 1}, `workload: line 1: header: version: unsupported version 3 (want 1)`},
		{workload.Header{Name: "x", Workers: 1, Env: workload.Env{GCPause: &workload.GCPause{PerMinute: 1}}},
			`workload: line 1: header: env.gc_pause.p50: must be positive, got 0s`},
	} {
		_, err := workload.NewWriter(&bytes.Buffer{}, tt.h)
		require.EqualError(t, err, tt.want)
	}
}

// TestRoundTripProperty: any events the Writer accepts read back equal.
func TestRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		workers := rapid.IntRange(1, 5).Draw(t, "workers")
		h := workload.Header{Version: 1, Name: rapid.StringN(1, 20, -1).Draw(t, "name"), Workers: workers,
			Duration: time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "duration"))}
		var buf bytes.Buffer
		w, err := workload.NewWriter(&buf, h)
		if err != nil {
			t.Skip(err) // a name that is not valid UTF-8
		}
		var written []workload.Event
		at := time.Duration(0)
		for i := range rapid.IntRange(0, 30).Draw(t, "events") {
			at += time.Duration(rapid.Int64Range(0, int64(time.Minute)).Draw(t, "gap"))
			e := drawEvent(t, at, workers, i)
			if w.Write(e) == nil {
				written = append(written, e)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		h2, events, err := readAll(&buf)
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		require.Equal(t, h, h2)
		require.Equal(t, written, events)
	})
}

func drawEvent(t *rapid.T, at time.Duration, workers, i int) workload.Event {
	worker := workload.WorkerName(rapid.IntRange(1, workers).Draw(t, "worker"))
	positive := func(label string) time.Duration {
		return time.Duration(rapid.Int64Range(1, int64(time.Hour)).Draw(t, label))
	}
	switch rapid.IntRange(0, 5).Draw(t, "type") {
	case 0:
		return workload.Event{Type: workload.TypeCrash, At: at, Worker: worker}
	case 1:
		return workload.Event{Type: workload.TypeRestart, At: at, Worker: worker}
	case 2:
		return workload.Event{Type: workload.TypePause, At: at, Worker: worker, Duration: positive("pause")}
	case 3:
		return workload.Event{Type: workload.TypeDeploy, At: at, Spacing: positive("spacing") - 1, Down: positive("down")}
	case 4:
		d := sim.UniformDist(positive("min"), 2*time.Hour)
		return workload.Event{Type: workload.TypeTask, At: at, ID: fmt.Sprintf("t%d", i), Units: rapid.IntRange(1, 50).Draw(t, "units"), UnitTimeDist: &d}
	}
	return workload.Event{Type: workload.TypeTask, At: at, ID: fmt.Sprintf("t%d", i),
		Units: rapid.IntRange(1, workload.MaxUnits).Draw(t, "units"), UnitTime: positive("unit")}
}
