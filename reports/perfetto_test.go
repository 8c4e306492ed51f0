package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// traceJSON is one event as a reader of the format (ui.perfetto.dev) sees
// it.
type traceJSON struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	S    string         `json:"s"`
	Args map[string]any `json:"args"`
}

type parsedTrace struct {
	TraceEvents     []traceJSON    `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// exportPerfetto writes a run's trace and parses it back.
func exportPerfetto(t *testing.T, run Run, out RunData) (parsedTrace, []byte) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, WritePerfetto(&buf, run, out))
	var tr parsedTrace
	require.NoError(t, json.Unmarshal(buf.Bytes(), &tr), "the export is JSON")
	return tr, buf.Bytes()
}

// names maps pids to process names and (pid, tid) to thread names, from
// the metadata events.
func names(tr parsedTrace) (procs map[int]string, threads map[[2]int]string) {
	procs, threads = map[int]string{}, map[[2]int]string{}
	for _, e := range tr.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			procs[e.Pid] = e.Args["name"].(string)
		case e.Ph == "M" && e.Name == "thread_name":
			threads[[2]int{e.Pid, e.Tid}] = e.Args["name"].(string)
		}
	}
	return procs, threads
}

// find returns the events on a node's tracks of a kind (thread names
// "ops", "ops 2", ...) with a given phase and name.
func find(tr parsedTrace, node, track, ph, name string) []traceJSON {
	procs, threads := names(tr)
	var out []traceJSON
	for _, e := range tr.TraceEvents {
		if procs[e.Pid] == node && strings.HasPrefix(threads[[2]int{e.Pid, e.Tid}], track) && e.Ph == ph && e.Name == name {
			out = append(out, e)
		}
	}
	return out
}

func TestPerfettoKleppmann(t *testing.T) {
	run, out := kleppmann(t)
	tr, _ := exportPerfetto(t, run, out)
	assert.Equal(t, "ms", tr.DisplayTimeUnit)
	assert.Equal(t, "kleppmann-gc-pause", tr.OtherData["scenario"])
	assert.Equal(t, run.TraceHash, tr.OtherData["trace_hash"])

	procs, _ := names(tr)
	var procNames []string
	for pid := 1; pid <= len(procs); pid++ {
		procNames = append(procNames, procs[pid])
	}
	assert.Equal(t, []string{"grantor", "store", "h1", "h2", "network"}, procNames, "one process per node")

	h := out.History
	tests := []struct {
		name              string
		node, track       string
		ph, event         string
		count             int
		startNs, lengthNs int64 // checked on the first event when lengthNs > 0
	}{
		{"h1 believes under token 1", "h1", "beliefs", "X", "lock #1", 1,
			int64(h.Beliefs[0].Start), int64(h.Beliefs[0].End - h.Beliefs[0].Start)},
		{"h2 believes under token 2", "h2", "beliefs", "X", "lock #2", 1,
			int64(h.Beliefs[1].Start), int64(h.Beliefs[1].End - h.Beliefs[1].Start)},
		{"the pause", "h1", "faults", "X", "pause", 1, 3_007_562_739, 10_000_000_000},
		{"the failpoint", "h1", "faults", "i", "failpoint-hit", 1, 3_007_562_739, 0},
		{"the fenced write, invoke to return", "h1", "ops", "X", "write → fenced", 1, 0, 0},
		{"the store saw it", "store", "requests served", "i", "write → fenced from h1", 1, 0, 0},
		{"h2 acquired", "h2", "ops", "X", "acquire", 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := find(tr, tt.node, tt.track, tt.ph, tt.event)
			require.Len(t, events, tt.count)
			if tt.ph == "X" {
				require.NotNil(t, events[0].Dur)
				assert.GreaterOrEqual(t, *events[0].Dur, 0.0)
			}
			if tt.lengthNs > 0 {
				assert.InDelta(t, float64(tt.startNs)/1e3, events[0].Ts, 1e-3, "microseconds")
				assert.InDelta(t, float64(tt.lengthNs)/1e3, *events[0].Dur, 1e-3)
			}
		})
	}

	fenced := fencedWrite(t, h)
	op := find(tr, "h1", "ops", "X", "write → fenced")[0]
	assert.InDelta(t, float64(fenced.Call)/1e3, op.Ts, 1e-3)
	assert.InDelta(t, float64(fenced.Return-fenced.Call)/1e3, *op.Dur, 1e-3)
	assert.Equal(t, "fenced", op.Args["result"])
	assert.EqualValues(t, 1, op.Args["token"])

	heal := find(tr, "network", "", "i", "heal phase begins")
	require.Len(t, heal, 1)
	assert.Equal(t, "g", heal[0].S)
}

func TestPerfettoViolationsAreGlobalInstants(t *testing.T) {
	run, out := kleppmann(t)
	at := fencedWrite(t, out.History).Processed
	run, out = withViolation(run, out, at)
	tr, _ := exportPerfetto(t, run, out)
	v := find(tr, "network", "", "i", "P2 violated")
	require.Len(t, v, 1)
	assert.Equal(t, "g", v[0].S)
	assert.InDelta(t, float64(at)/1e3, v[0].Ts, 1e-3)
	assert.Contains(t, v[0].Args["detail"], "token 1 after token 2")
}

// Overlapping slices on one node get tracks of their own, because the
// format cannot nest slices that overlap without one containing the other.
func TestPerfettoOverlapsGetTracks(t *testing.T) {
	run, out := runScenario(t, "worker-crash-handoff", 1)
	tr, _ := exportPerfetto(t, run, out)
	type key struct{ pid, tid int }
	last := map[key]float64{}
	for _, e := range tr.TraceEvents {
		if e.Ph != "X" || e.Cat == "op" { // ops overlap only when nested in time order; beliefs and faults never
			continue
		}
		k := key{e.Pid, e.Tid}
		if end, ok := last[k]; ok {
			assert.GreaterOrEqual(t, e.Ts, end-1e-6, "%s at %v overlaps the slice before it on its track", e.Name, e.Ts)
		}
		last[k] = max(last[k], e.Ts+*e.Dur)
	}
}

func TestPerfettoIsDeterministic(t *testing.T) {
	run, out := runScenario(t, "swarm", 3)
	_, first := exportPerfetto(t, run, out)
	_, second := exportPerfetto(t, run, out)
	assert.Equal(t, first, second)
	run2, out2 := runScenario(t, "swarm", 3)
	_, third := exportPerfetto(t, run2, out2)
	assert.Equal(t, first, third, "the same run renders the same trace")
}
