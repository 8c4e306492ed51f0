package workload_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/workload"
)

// header is a valid header line with every field set.
const header = `{"type":"header","version":1,"name":"steady-batch","workers":4,"duration":"30m","env":{"latency":{"kind":"pareto","min":"1ms","max":"500ms","alpha":1.5},"loss":0.001,"gc_pause":{"per_minute":2,"p50":"20ms","p99":"300ms","max":"2s"},"crash_per_hour":0.5,"restart_after":"10s"}}`

// lines joins lines into a file.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// readAll reads a whole workload.
func readAll(r io.Reader) (workload.Header, []workload.Event, error) {
	rd, err := workload.NewReader(r)
	if err != nil {
		return workload.Header{}, nil, err
	}
	var events []workload.Event
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return rd.Header(), events, nil
		}
		if err != nil {
			return rd.Header(), events, err
		}
		events = append(events, e)
	}
}

func TestReaderAcceptsTheFormat(t *testing.T) {
	h, events, err := readAll(strings.NewReader(lines(header,
		`{"type":"task","at":"1s","id":"t1","units":20,"unit_time":"250ms"}`,
		``,
		`{"at":"2s","type":"task","id":"t2","units":8,"unit_time_dist":{"kind":"uniform","min":"100ms","max":"400ms"}}`,
		`{"type":"crash","at":"5m","worker":"w2"}`,
		`{"type":"restart","at":"5m10s","worker":"w2"}`,
		`{"type":"pause","at":"7m","worker":"w1","duration":"800ms"}`,
		`{"type":"deploy","at":"10m","spacing":"20s","down":"5s"}`,
	)))
	require.NoError(t, err)
	latency := sim.ParetoDist(time.Millisecond, 500*time.Millisecond, 1.5)
	require.Equal(t, workload.Header{Version: 1, Name: "steady-batch", Workers: 4, Duration: 30 * time.Minute,
		Env: workload.Env{Latency: &latency, Loss: 0.001, CrashPerHour: 0.5, RestartAfter: 10 * time.Second,
			GCPause: &workload.GCPause{PerMinute: 2, P50: 20 * time.Millisecond, P99: 300 * time.Millisecond, Max: 2 * time.Second}}}, h)
	unit := sim.UniformDist(100*time.Millisecond, 400*time.Millisecond)
	require.Equal(t, []workload.Event{
		{Type: workload.TypeTask, At: time.Second, ID: "t1", Units: 20, UnitTime: 250 * time.Millisecond},
		{Type: workload.TypeTask, At: 2 * time.Second, ID: "t2", Units: 8, UnitTimeDist: &unit},
		{Type: workload.TypeCrash, At: 5 * time.Minute, Worker: "w2"},
		{Type: workload.TypeRestart, At: 5*time.Minute + 10*time.Second, Worker: "w2"},
		{Type: workload.TypePause, At: 7 * time.Minute, Worker: "w1", Duration: 800 * time.Millisecond},
		{Type: workload.TypeDeploy, At: 10 * time.Minute, Spacing: 20 * time.Second, Down: 5 * time.Second},
	}, events)
}

func TestReaderLineNumbers(t *testing.T) {
	rd, err := workload.NewReader(strings.NewReader(lines(header, "", `{"type":"crash","at":"1s","worker":"w1"}`)))
	require.NoError(t, err)
	require.Equal(t, 1, rd.Line(), "after the header")
	_, err = rd.Next()
	require.NoError(t, err)
	require.Equal(t, 3, rd.Line(), "blank lines count")
	_, err = rd.Next()
	require.ErrorIs(t, err, io.EOF)
	_, err = rd.Next()
	require.ErrorIs(t, err, io.EOF, "the end is sticky")
}

// TestReaderErrors has one row per rule the reader enforces; each names
// the line and the field.
func TestReaderErrors(t *testing.T) {
	task := func(fields string) string { return `{"type":"task","at":"1s","id":"t1",` + fields + `}` }
	nineTasks := make([]string, 0, 12)
	nineTasks = append(nineTasks, header)
	for i := 1; i <= 10; i++ {
		nineTasks = append(nineTasks, fmt.Sprintf(`{"type":"task","at":"%ds","id":"t%d","units":5,"unit_time":"1s"}`, i, i))
	}
	nineTasks = append(nineTasks, `{"type":"task","at":"20s","id":"t9","units":0,"unit_time":"1s"}`)
	withHeader := func(h string) string { return lines(h) }
	hdr := func(replace, with string) string { return strings.Replace(header, replace, with, 1) }
	for _, tt := range []struct {
		rule, input, want string
	}{
		{"units must be positive (the example of the brief)", lines(nineTasks...),
			`workload: line 12: task "t9": units: must be positive, got 0`},
		{"unknown field in an event", lines(header, task(`"units":2,"unit_tme":"1s"`)),
			`workload: line 2: task "t1": unit_tme: unknown field (want one of "type", "at", "id", "units", "unit_time" or "unit_time_dist")`},
		{"unknown field in the header", withHeader(hdr(`"workers":4`, `"wrkers":4`)),
			`workload: line 1: header: wrkers: unknown field (want one of "type", "version", "name", "workers", "duration" or "env")`},
		{"unknown field in a nested object", withHeader(hdr(`"alpha":1.5`, `"alpha":1.5,"beta":2`)),
			`workload: line 1: header: env.latency.beta: unknown field (want one of "kind", "min", "max" or "alpha")`},
		{"field of another type", lines(header, `{"type":"crash","at":"1s","worker":"w1","duration":"1s"}`),
			`workload: line 2: crash: duration: unknown field (want one of "type", "at", "worker" or "member")`},
		{"duplicate field", lines(header, task(`"units":2,"units":3,"unit_time":"1s"`)),
			`workload: line 2: units: appears twice`},
		{"wrong type: string for an integer", lines(header, task(`"units":"20","unit_time":"1s"`)),
			`workload: line 2: task "t1": units: want an integer, got a string`},
		{"wrong type: fraction for an integer", lines(header, task(`"units":1.5,"unit_time":"1s"`)),
			`workload: line 2: task "t1": units: want an integer, got 1.5`},
		{"wrong type: number for a duration", lines(header, `{"type":"crash","at":5,"worker":"w1"}`),
			`workload: line 2: crash: at: want a duration string such as "250ms", got a number`},
		{"wrong type: null", lines(header, task(`"units":null,"unit_time":"1s"`)),
			`workload: line 2: task "t1": units: want an integer, got null`},
		{"wrong type: string for a number", withHeader(hdr(`"loss":0.001`, `"loss":"0.001"`)),
			`workload: line 1: header: env.loss: want a number, got a string`},
		{"bad duration", lines(header, task(`"units":2,"unit_time":"1 s"`)),
			`workload: line 2: task "t1": unit_time: time: unknown unit " s" in duration "1 s"`},
		{"unknown type", lines(header, `{"type":"crsh","at":"1s","worker":"w1"}`),
			`workload: line 2: type: unknown event type "crsh" (want "task", "crash", "restart", "pause" or "deploy")`},
		{"missing type", lines(header, `{"at":"1s","worker":"w1"}`),
			`workload: line 2: type: missing (want "task", "crash", "restart", "pause" or "deploy")`},
		{"missing field", lines(header, `{"type":"pause","at":"1s","worker":"w1"}`),
			`workload: line 2: pause: duration: missing`},
		{"missing at", lines(header, `{"type":"crash","worker":"w1"}`),
			`workload: line 2: crash: at: missing`},
		{"out of order", lines(header, `{"type":"crash","at":"2s","worker":"w1"}`, `{"type":"restart","at":"1s","worker":"w1"}`),
			`workload: line 3: restart: at: 1s is before 2s, the time of the event on line 2: events must come in time order`},
		{"negative at", lines(header, `{"type":"crash","at":"-1s","worker":"w1"}`),
			`workload: line 2: crash: at: must not be negative, got -1s`},
		{"at after the duration", lines(header, `{"type":"crash","at":"31m","worker":"w1"}`),
			`workload: line 2: crash: at: 31m0s is after the workload's duration 30m0s`},
		{"zero unit time", lines(header, task(`"units":2,"unit_time":"0s"`)),
			`workload: line 2: task "t1": unit_time: must be positive, got 0s`},
		{"zero pause", lines(header, `{"type":"pause","at":"1s","worker":"w1","duration":"0s"}`),
			`workload: line 2: pause: duration: must be positive, got 0s`},
		{"zero deploy down", lines(header, `{"type":"deploy","at":"1s","spacing":"1s","down":"0s"}`),
			`workload: line 2: deploy: down: must be positive, got 0s`},
		{"negative deploy spacing", lines(header, `{"type":"deploy","at":"1s","spacing":"-1s","down":"1s"}`),
			`workload: line 2: deploy: spacing: must not be negative, got -1s`},
		{"zero unit time of a distribution", lines(header, task(`"units":2,"unit_time_dist":{"kind":"fixed","min":"0s"}`)),
			`workload: line 2: task "t1": unit_time_dist.min: must be positive, got 0s`},
		{"both unit time and distribution", lines(header, task(`"units":2,"unit_time":"1s","unit_time_dist":{"kind":"fixed","min":"1s"}`)),
			`workload: line 2: task "t1": unit_time_dist: set either unit_time or unit_time_dist, not both`},
		{"neither unit time nor distribution", lines(header, task(`"units":2`)),
			`workload: line 2: task "t1": unit_time: missing (or give unit_time_dist)`},
		{"empty id", lines(header, `{"type":"task","at":"1s","id":"","units":2,"unit_time":"1s"}`),
			`workload: line 2: task: id: must not be empty`},
		{"too many units", lines(header, task(`"units":2000000,"unit_time":"1s"`)),
			`workload: line 2: task "t1": units: exceeds the limit of 1048576`},
		{"unknown worker", lines(header, `{"type":"crash","at":"1s","worker":"w9"}`),
			`workload: line 2: crash: worker: unknown worker "w9" (the header has 4: w1..w4)`},
		{"worker with a leading zero", lines(header, `{"type":"restart","at":"1s","worker":"w01"}`),
			`workload: line 2: restart: worker: unknown worker "w01" (the header has 4: w1..w4)`},
		{"worker zero", lines(header, `{"type":"pause","at":"1s","worker":"w0","duration":"1s"}`),
			`workload: line 2: pause: worker: unknown worker "w0" (the header has 4: w1..w4)`},
		{"worker and member", lines(header, `{"type":"crash","at":"1s","worker":"w1","member":"grantor"}`),
			`workload: line 2: crash: member: set either worker or member, not both`},
		{"neither worker nor member", lines(header, `{"type":"pause","at":"1s","duration":"1s"}`),
			`workload: line 2: pause: worker: missing (or give member, a lease store member)`},
		{"unknown member", lines(header, `{"type":"pause","at":"1s","member":"store","duration":"1s"}`),
			`workload: line 2: pause: member: unknown store member "store" (want @leader, or "grantor" to "grantor9")`},
		{"member beyond the limit", lines(header, `{"type":"crash","at":"1s","member":"grantor10"}`),
			`workload: line 2: crash: member: unknown store member "grantor10" (want @leader, or "grantor" to "grantor9")`},
		{"first member by number", lines(header, `{"type":"crash","at":"1s","member":"grantor1"}`),
			`workload: line 2: crash: member: unknown store member "grantor1" (want @leader, or "grantor" to "grantor9")`},
		{"unknown role", lines(header, `{"type":"pause","at":"1s","member":"@follower","duration":"1s"}`),
			`workload: line 2: pause: member: unknown store member "@follower" (want @leader, or "grantor" to "grantor9")`},
		{"crash of the leader", lines(header, `{"type":"crash","at":"1s","member":"@leader"}`),
			`workload: line 2: crash: member: @leader names the leader only for a pause (a crash's restart could not name the same member): crash a member by name, "grantor" to "grantor9"`},
		{"member of the wrong type", lines(header, `{"type":"restart","at":"1s","member":2}`),
			`workload: line 2: restart: member: want a string, got a number`},
		{"bad version", withHeader(hdr(`"version":1`, `"version":2`)),
			`workload: line 1: header: version: unsupported version 2 (want 1)`},
		{"missing version", withHeader(hdr(`"version":1,`, ``)),
			`workload: line 1: header: version: missing (want 1)`},
		{"zero workers", withHeader(hdr(`"workers":4`, `"workers":0`)),
			`workload: line 1: header: workers: must be positive, got 0`},
		{"too many workers", withHeader(hdr(`"workers":4`, `"workers":1001`)),
			`workload: line 1: header: workers: 1001 exceeds the limit of 1000`},
		{"zero header duration", withHeader(hdr(`"duration":"30m"`, `"duration":"0s"`)),
			`workload: line 1: header: duration: must be positive, got 0s (leave it out to end at the last event)`},
		{"missing name", withHeader(hdr(`"name":"steady-batch",`, ``)),
			`workload: line 1: header: name: missing`},
		{"loss out of range", withHeader(hdr(`"loss":0.001`, `"loss":2`)),
			`workload: line 1: header: env.loss: must be a probability in [0, 1], got 2`},
		{"negative crash rate", withHeader(hdr(`"crash_per_hour":0.5`, `"crash_per_hour":-1`)),
			`workload: line 1: header: env.crash_per_hour: must be in [0, 3600], got -1`},
		{"zero restart_after", withHeader(hdr(`"restart_after":"10s"`, `"restart_after":"0s"`)),
			`workload: line 1: header: env.restart_after: must be positive, got 0s`},
		{"gc p99 below p50", withHeader(hdr(`"p99":"300ms"`, `"p99":"10ms"`)),
			`workload: line 1: header: env.gc_pause.p99: 10ms is below p50 20ms`},
		{"gc missing max", withHeader(hdr(`,"max":"2s"`, ``)),
			`workload: line 1: header: env.gc_pause.max: missing`},
		{"gc zero rate", withHeader(hdr(`"per_minute":2`, `"per_minute":0`)),
			`workload: line 1: header: env.gc_pause.per_minute: must be in (0, 6000], got 0`},
		{"pareto without alpha", withHeader(hdr(`,"alpha":1.5`, ``)),
			`workload: line 1: header: env.latency.alpha: missing (a pareto distribution needs "min", "max" and "alpha")`},
		{"max of a fixed distribution", withHeader(hdr(`"kind":"pareto","min":"1ms","max":"500ms","alpha":1.5`, `"kind":"fixed","min":"1ms","max":"5ms"`)),
			`workload: line 1: header: env.latency.max: not used by a fixed distribution`},
		{"unknown distribution", withHeader(hdr(`"kind":"pareto"`, `"kind":"normal"`)),
			`workload: line 1: header: env.latency.kind: unknown distribution "normal" (want fixed, uniform or pareto)`},
		{"max below min", withHeader(hdr(`"max":"500ms"`, `"max":"500us"`)),
			`workload: line 1: header: env.latency.max: 500µs is below min 1ms`},
		{"first line is not a header", lines(`{"type":"task","at":"1s","id":"t1","units":2,"unit_time":"1s"}`),
			`workload: line 1: type: want "header" on the first line, got "task"`},
		{"a second header", lines(header, header),
			`workload: line 2: type: a second header: only line 1 is a header`},
		{"invalid JSON", lines(header, `{"type":"crash","at":"1s",}`),
			`workload: line 2: invalid JSON at column 26: a comma before the closing bracket or brace`},
		{"syntax error in a value", lines(header, `{"type":"crash","at":tru}`),
			`workload: line 2: at: invalid JSON at column 25: invalid character '}' in literal true (expecting 'e')`},
		{"invalid UTF-8", lines(header, "{\"type\":\"crash\",\"worker\":\"\xff\"}"),
			`workload: line 2: worker: invalid JSON at column 27: invalid UTF-8`},
		{"cut short", lines(header, `{"type":"crash","at":"1s"`),
			`workload: line 2: invalid JSON: unexpected end of line`},
		{"not an object", lines(header, `["crash"]`),
			`workload: line 2: want a JSON object, got an array`},
		{"trailing data", lines(header, `{"type":"crash","at":"1s","worker":"w1"} {}`),
			`workload: line 2: invalid JSON at column 42: invalid character '{' after the object`},
		{"empty input", "", `workload: empty input: the first line must be the header`},
		{"line too long", lines(header, `{"type":"task","at":"1s","id":"`+strings.Repeat("x", workload.MaxLineBytes)+`"}`),
			fmt.Sprintf(`workload: line 2: longer than the limit of %d bytes`, workload.MaxLineBytes)},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			_, _, err := readAll(strings.NewReader(tt.input))
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, workload.ErrInvalid)
			var lerr *workload.LineError
			require.True(t, errors.As(err, &lerr), "a *LineError")
		})
	}
}

func TestReaderErrorIsSticky(t *testing.T) {
	rd, err := workload.NewReader(strings.NewReader(lines(header, `{"type":"crsh","at":"1s"}`, `{"type":"crash","at":"1s","worker":"w1"}`)))
	require.NoError(t, err)
	_, err = rd.Next()
	require.ErrorContains(t, err, "line 2")
	_, again := rd.Next()
	require.Equal(t, err, again)
}

// failingReader fails after its data.
type failingReader struct{ data io.Reader }

func (f failingReader) Read(p []byte) (int, error) {
	n, err := f.data.Read(p)
	if err == io.EOF {
		return n, errors.New("disk on fire")
	}
	return n, err
}

func TestReaderWrapsReadErrors(t *testing.T) {
	rd, err := workload.NewReader(failingReader{strings.NewReader(lines(header))})
	require.NoError(t, err)
	_, err = rd.Next()
	require.EqualError(t, err, "workload: reading line 2: disk on fire")
	require.NotErrorIs(t, err, workload.ErrInvalid, "an I/O error is not bad input")
}
