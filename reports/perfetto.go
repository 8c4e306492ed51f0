package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/leasesim/leasesim/history"
)

// traceEvent is one event of the Chrome trace-event format, which
// ui.perfetto.dev and chrome://tracing open: "X" a complete event with a
// duration, "i" an instant, "M" metadata naming a process or thread.
// Timestamps are microseconds of true simulated time.
type traceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	S    string         `json:"s,omitempty"` // an instant's scope: "t" thread, "g" global
	Args map[string]any `json:"args,omitempty"`
}

// traceFile is the whole Perfetto export.
type traceFile struct {
	TraceEvents     []traceEvent   `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit"`
	OtherData       map[string]any `json:"otherData"`
}

// Track kinds within a node's process, in the order Perfetto shows them.
// Each kind may need several tracks (rows) where its slices overlap.
const (
	trackBeliefs = iota
	trackOps
	trackRequests
	trackWork
	trackEffects
	trackFaults
)

var trackNames = [...]string{"beliefs", "ops", "requests served", "work units", "side effects", "faults"}

// tracksPerKind spaces the thread ids of track kinds apart: a kind's row r
// has tid kind*tracksPerKind + r + 1.
const tracksPerKind = 1000

// perfetto builds a trace: one process per node (and one for the network),
// named tracks within each, and the events on them.
type perfetto struct {
	pids   map[string]int
	named  map[[2]int]bool // (pid, tid) already named
	events []traceEvent
}

// WritePerfetto writes the run as a Chrome trace-event JSON file
// (trace.perfetto.json), to open in ui.perfetto.dev: one process per node,
// with tracks for the node's beliefs (named by grant), its operations from
// invocation to return, the requests it served, its work units and side
// effects, and the faults that acted on it. Partitions, the heal phase and
// violations are on the "network" process.
func WritePerfetto(w io.Writer, run Run, d RunData) error {
	h := d.History
	if h == nil {
		return fmt.Errorf("reports: the perfetto trace needs the run's history")
	}
	p := newPerfetto(nodesOf(h, run.Faults))
	p.beliefs(h)
	p.ops(h)
	p.work(h)
	p.faultWindows(h.Faults)
	p.globals(run, h)
	slices.SortStableFunc(p.events, func(a, b traceEvent) int {
		if (a.Ph == "M") != (b.Ph == "M") { // metadata first
			if a.Ph == "M" {
				return -1
			}
			return 1
		}
		switch {
		case a.Ts < b.Ts:
			return -1
		case a.Ts > b.Ts:
			return 1
		}
		return 0
	})
	file := traceFile{TraceEvents: p.events, DisplayTimeUnit: "ms", OtherData: map[string]any{
		"scenario": run.Scenario, "impl": run.Impl, "seed": run.Seed, "trace_hash": run.TraceHash,
		"replay": run.Replay, "clock": "true simulated time since the start of the run",
	}}
	enc := json.NewEncoder(w)
	if err := enc.Encode(file); err != nil {
		return fmt.Errorf("reports: writing perfetto trace: %w", err)
	}
	return nil
}

func newPerfetto(nodes []string) *perfetto {
	p := &perfetto{pids: map[string]int{}, named: map[[2]int]bool{}}
	for i, name := range slices.Concat(nodes, []string{networkLane}) {
		pid := i + 1
		p.pids[name] = pid
		p.events = append(p.events,
			traceEvent{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": name}},
			traceEvent{Name: "process_sort_index", Ph: "M", Pid: pid, Args: map[string]any{"sort_index": pid}})
	}
	return p
}

// track returns the pid and tid of a node's track kind and row, naming the
// track the first time it is used. An unknown node gets the network's
// process rather than a missing one.
func (p *perfetto) track(node string, kind, row int) (pid, tid int) {
	pid, ok := p.pids[node]
	if !ok {
		pid = p.pids[networkLane]
	}
	tid = kind*tracksPerKind + row + 1
	if !p.named[[2]int{pid, tid}] {
		p.named[[2]int{pid, tid}] = true
		name := trackNames[kind]
		if row > 0 {
			name = fmt.Sprintf("%s %d", name, row+1)
		}
		p.events = append(p.events,
			traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": name}},
			traceEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"sort_index": tid}})
	}
	return pid, tid
}

// micros converts true time to the format's microseconds.
func micros(t history.Time) float64 { return float64(t) / 1e3 }

// slice adds a complete event from start to end on a track.
func (p *perfetto) slice(node string, kind, row int, name, cat string, start, end history.Time, args map[string]any) {
	pid, tid := p.track(node, kind, row)
	dur := micros(max(end, start)) - micros(start)
	p.events = append(p.events, traceEvent{Name: name, Cat: cat, Ph: "X", Ts: micros(start), Dur: &dur,
		Pid: pid, Tid: tid, Args: args})
}

// instant adds an instant event on a track.
func (p *perfetto) instant(node string, kind int, name, cat string, at history.Time, args map[string]any) {
	pid, tid := p.track(node, kind, 0)
	p.events = append(p.events, traceEvent{Name: name, Cat: cat, Ph: "i", S: "t", Ts: micros(at),
		Pid: pid, Tid: tid, Args: args})
}

// beliefs adds each holder's beliefs, named by grant, on as many tracks as
// overlapping beliefs need.
func (p *perfetto) beliefs(h *history.History) {
	by := beliefsByHolder(h)
	for _, node := range sortedKeys(by) {
		bs := by[node]
		rows, _ := beliefRows(bs)
		for i, b := range bs {
			p.slice(node, trackBeliefs, rows[i], grantLabel(grant{b.Resource, b.Token}), "belief", b.Start, b.End,
				map[string]any{"holder": b.Holder, "resource": b.Resource, "token": b.Token,
					"ended": string(b.Reason), "last_act_ns": int64(b.LastAct)})
		}
	}
}

// ops adds each operation on its client, from invocation to return (or to
// processing, when the reply never arrived), and as an instant on the
// server that processed it.
func (p *perfetto) ops(h *history.History) {
	byClient := map[string][]history.Operation{}
	for _, o := range h.AllOps() {
		byClient[o.Client] = append(byClient[o.Client], o)
	}
	for _, client := range sortedKeys(byClient) {
		ops := byClient[client]
		spans := make([]span, len(ops))
		for i, o := range ops {
			spans[i] = span{o.Call, opEnd(o)}
		}
		rows, _ := packRows(spans)
		for i, o := range ops {
			p.slice(client, trackOps, rows[i], opName(o), "op", o.Call, opEnd(o), opArgs(o))
		}
	}
	for _, o := range h.AllOps() {
		p.instant(o.Server, trackRequests, opName(o)+" from "+o.Client, "request", o.Processed, opArgs(o))
	}
}

// opEnd is when an operation ended for its client.
func opEnd(o history.Operation) history.Time {
	if o.Returned() {
		return o.Return
	}
	return o.Processed
}

// opName names an operation: its kind, and its error if it failed.
func opName(o history.Operation) string {
	if o.Output.Err != "" {
		return fmt.Sprintf("%s → %s", o.Input.Kind, o.Output.Err)
	}
	return o.Input.Kind
}

func opArgs(o history.Operation) map[string]any {
	args := map[string]any{"client": o.Client, "server": o.Server, "result": o.Output.Outcome(),
		"call_ns": int64(o.Call), "processed_ns": int64(o.Processed), "returned": o.Returned()}
	if o.Input.Resource != "" {
		args["resource"] = o.Input.Resource
	}
	if o.Input.Token != 0 {
		args["token"] = o.Input.Token
	}
	if o.Output.Token != 0 {
		args["reply_token"] = o.Output.Token
	}
	if o.Input.Key != "" {
		args["key"] = o.Input.Key
	}
	if o.Returned() {
		args["return_ns"] = int64(o.Return)
	}
	return args
}

// work adds work units and side effects as instants on their worker.
func (p *perfetto) work(h *history.History) {
	for _, u := range h.Units {
		p.instant(u.Worker, trackWork, fmt.Sprintf("%s unit %d", u.Task, u.Index), "unit", u.At,
			map[string]any{"task": u.Task, "index": u.Index, "token": u.Token})
	}
	for _, e := range h.Effects {
		p.instant(e.From, trackEffects, "effect "+e.ID, "effect", e.At,
			map[string]any{"resource": e.Resource, "id": e.ID})
	}
}

// faultWindows adds each fault window on its node's fault tracks (network
// faults on the network process); instant faults are instants.
func (p *perfetto) faultWindows(windows []history.FaultWindow) {
	byNode := map[string][]history.FaultWindow{}
	for _, w := range windows {
		node := w.Node()
		if isNetworkFault(w.Kind) || node == "" {
			node = networkLane
		}
		byNode[node] = append(byNode[node], w)
	}
	for _, node := range sortedKeys(byNode) {
		ws := byNode[node]
		spans := make([]span, len(ws))
		for i, w := range ws {
			spans[i] = span{w.Start, w.End}
		}
		rows, _ := packRows(spans)
		for i, w := range ws {
			args := map[string]any{"kind": w.Kind}
			if w.Peer() != "" {
				args["peer"] = w.Peer()
			}
			if w.Detail != "" {
				args["detail"] = w.Detail
			}
			if w.Start == w.End {
				p.instant(node, trackFaults, w.Kind, "fault", w.Start, args)
				continue
			}
			p.slice(node, trackFaults, rows[i], w.Kind, "fault", w.Start, w.End, args)
		}
	}
}

// globals adds the start of the heal phase and every violation as global
// instants, drawn across all tracks.
func (p *perfetto) globals(run Run, h *history.History) {
	pid := p.pids[networkLane]
	if h.HealAt > 0 {
		p.events = append(p.events, traceEvent{Name: "heal phase begins", Cat: "phase", Ph: "i", S: "g",
			Ts: micros(h.HealAt), Pid: pid})
	}
	for _, v := range run.Violations {
		args := map[string]any{"property": v.Property, "detail": v.Detail}
		if len(v.Evidence) > 0 {
			args["evidence"] = v.Evidence
		}
		p.events = append(p.events, traceEvent{Name: v.Property + " violated", Cat: "violation", Ph: "i", S: "g",
			Ts: micros(v.At), Pid: pid, Args: args})
	}
}

// sortedKeys returns a map's keys in lane order, so that output never
// depends on map iteration order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, compareNodes)
	return keys
}
