package workload_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/workload"
)

// eventLog writes a crafted lease observer log. Every node's monotonic
// clock reads the time since the start and its wall clock that plus a
// fixed origin, so times in a test read as offsets.
type eventLog struct {
	buf bytes.Buffer
	obs *lease.JSONLinesObserver
}

func newEventLog() *eventLog {
	l := &eventLog{}
	l.obs = lease.NewJSONLinesObserver(&l.buf)
	return l
}

var origin = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// add logs one event of node at time at; rtt is a checkpoint's round trip.
func (l *eventLog) add(at time.Duration, kind lease.EventKind, node, res string, token uint64, rtt time.Duration) *eventLog {
	l.obs.Observe(lease.Event{Kind: kind, Node: lease.Addr(node), Resource: res, Token: token, Local: at,
		Wall: origin.Add(at), Duration: rtt})
	return l
}

// renewals logs a renewal of (res, token) by node every interval in
// (from, to].
func (l *eventLog) renewals(node, res string, token uint64, from, to, interval time.Duration) *eventLog {
	for at := from + interval; at <= to; at += interval {
		l.add(at, lease.EventRenew, node, res, token, 0)
	}
	return l
}

func fromEvents(t *testing.T, log *eventLog, opts workload.FromEventsOptions) (workload.Summary, []workload.Event, workload.Header) {
	t.Helper()
	require.NoError(t, log.obs.Err())
	var out bytes.Buffer
	sum, err := workload.FromEvents(&log.buf, &out, opts)
	require.NoError(t, err)
	h, events, err := readAll(&out)
	require.NoError(t, err, "FromEvents writes a valid workload")
	return sum, events, h
}

const s = time.Second

func TestFromEventsTaskSizes(t *testing.T) {
	log := newEventLog().
		add(0, lease.EventGrant, "alpha", "job-1", 1, 0).
		add(1*s, lease.EventCheckpoint, "alpha", "job-1", 1, 4*time.Millisecond).
		add(2*s, lease.EventCheckpoint, "alpha", "job-1", 1, 6*time.Millisecond).
		add(3*s, lease.EventCheckpoint, "alpha", "job-1", 1, 8*time.Millisecond).
		add(3*s, lease.EventRelease, "alpha", "job-1", 1, 0).
		add(5*s, lease.EventGrant, "beta", "job-2", 2, 0).
		add(5*s, lease.EventRelease, "beta", "job-2", 2, 0)
	sum, events, h := fromEvents(t, log, workload.FromEventsOptions{Name: "recorded", UnitsPerCheckpoint: 5})
	require.Equal(t, []string{"alpha", "beta"}, sum.Holders)
	require.Equal(t, 2, sum.Tasks)
	require.Equal(t, 2, sum.Completed)
	require.Equal(t, 3, sum.LatencySamples)
	require.Equal(t, "recorded", h.Name)
	require.Equal(t, 2, h.Workers)
	require.Equal(t, 5*s, h.Duration)
	require.Equal(t, []workload.Event{
		// three checkpoints of five units over three seconds
		{Type: workload.TypeTask, At: 0, ID: "job-1", Units: 15, UnitTime: 200 * time.Millisecond},
		// no checkpoint: one unit; an instant release: the smallest unit time
		{Type: workload.TypeTask, At: 5 * s, ID: "job-2", Units: 5, UnitTime: time.Microsecond},
	}, events)
	require.NotNil(t, h.Env.Latency, "half round trips of 2, 3 and 4ms")
	require.Equal(t, sim.Pareto, h.Env.Latency.Kind)
	require.InEpsilon(t, float64(4*time.Millisecond), float64(h.Env.Latency.Max), 0.05)
}

func TestFromEventsCrash(t *testing.T) {
	log := newEventLog().
		add(0, lease.EventGrant, "h1", "a", 1, 0).
		add(1500*time.Millisecond, lease.EventCheckpoint, "h1", "a", 1, 2*time.Millisecond).
		renewals("h1", "a", 1, 0, 3*s, s). // h1 dies after its renewal at 3s
		add(8*s, lease.EventExpired, "grantor", "a", 1, 0).
		add(8*s+100*time.Millisecond, lease.EventGrant, "h2", "a", 2, 0).
		add(10*s, lease.EventRelease, "h2", "a", 2, 0).
		add(20*s, lease.EventGrant, "h1", "b", 3, 0). // h1 is back
		add(21*s, lease.EventRelease, "h1", "b", 3, 0)
	sum, events, h := fromEvents(t, log, workload.FromEventsOptions{})
	require.Equal(t, 1, sum.Crashes)
	require.Equal(t, 1, sum.Restarts)
	require.Equal(t, 17*s, h.Env.RestartAfter, "the one observed down time")
	require.Equal(t, []workload.Event{
		// a: the checkpointed 1.5s of h1, then h2's 1.9s
		{Type: workload.TypeTask, At: 0, ID: "a", Units: 1, UnitTime: 3400 * time.Millisecond},
		{Type: workload.TypeCrash, At: 3 * s, Worker: "w1"},
		{Type: workload.TypeRestart, At: 20 * s, Worker: "w1"}, // its first event after the crash
		{Type: workload.TypeTask, At: 20 * s, ID: "b", Units: 1, UnitTime: s},
	}, events)

	sum, events, h = fromEvents(t, newEventLog().
		add(0, lease.EventGrant, "h1", "a", 1, 0).
		renewals("h1", "a", 1, 0, 3*s, s).
		add(8*s, lease.EventExpired, "grantor", "a", 1, 0).
		add(9*s, lease.EventGrant, "h2", "a", 2, 0).
		add(9*s, lease.EventRelease, "h2", "a", 2, 0), workload.FromEventsOptions{CrashesAsRate: true})
	require.Equal(t, 1, sum.Crashes, "h1 never came back")
	require.Len(t, events, 1, "crashes as a rate: no crash events")
	require.InEpsilon(t, 1/(2*9.0/3600), h.Env.CrashPerHour, 1e-3, "one crash in 2 workers × 9s")
}

func TestFromEventsPause(t *testing.T) {
	log := newEventLog().
		add(0, lease.EventGrant, "h1", "a", 1, 0).
		add(0, lease.EventGrant, "h1", "b", 2, 0).
		renewals("h1", "a", 1, 0, 10*s, s).
		renewals("h1", "b", 2, 0, 10*s, s).
		// h1 freezes after 10s; both leases see the same silence
		add(16500*time.Millisecond, lease.EventRenew, "h1", "a", 1, 0).
		add(16500*time.Millisecond, lease.EventRenew, "h1", "b", 2, 0).
		renewals("h1", "a", 1, 16500*time.Millisecond, 60*s, s).
		renewals("h1", "b", 2, 16500*time.Millisecond, 60*s, s).
		add(61*s, lease.EventRelease, "h1", "a", 1, 0).
		add(61*s, lease.EventRelease, "h1", "b", 2, 0)
	sum, _, h := fromEvents(t, log, workload.FromEventsOptions{})
	require.True(t, sum.Estimated)
	require.InEpsilon(t, float64(s), float64(sum.RenewInterval), 0.05)
	require.Equal(t, 1, sum.Pauses, "one pause, seen on two leases")
	require.InEpsilon(t, float64(6*s), float64(sum.PauseP50), 0.05, "the 6.5s gap less half a renew interval")
	require.NotNil(t, h.Env.GCPause)
	require.InEpsilon(t, 1/(61.0/60), h.Env.GCPause.PerMinute, 1e-3, "one pause in one worker-minute and a second")
	require.Zero(t, sum.Crashes)
}

// TestFromEventsPausedPastTheDeadline: a holder frozen past its deadline
// loses its lease to another and says so when it resumes. That is a pause,
// not a crash.
func TestFromEventsPausedPastTheDeadline(t *testing.T) {
	log := newEventLog().
		add(0, lease.EventGrant, "h1", "a", 1, 0).
		renewals("h1", "a", 1, 0, 3*s, s).
		add(8*s, lease.EventExpired, "grantor", "a", 1, 0).
		add(8*s+100*time.Millisecond, lease.EventGrant, "h2", "a", 2, 0).
		add(12*s, lease.EventLost, "h1", "a", 1, 0).
		add(13*s, lease.EventRelease, "h2", "a", 2, 0)
	sum, events, _ := fromEvents(t, log, workload.FromEventsOptions{RenewInterval: s})
	require.False(t, sum.Estimated)
	require.Zero(t, sum.Crashes)
	require.Equal(t, 1, sum.Pauses)
	require.InEpsilon(t, float64(8500*time.Millisecond), float64(sum.PauseP50), 0.05, "9s of silence less half an interval")
	require.Len(t, events, 1)
}

func TestFromEventsErrors(t *testing.T) {
	for _, tt := range []struct {
		log, want string
	}{
		{"", "workload: the event log has no events"},
		{`{"kind":"grant","node":"h1","resource":"a","local_ns":0,"wall":"2026-01-01T00:00:00Z"}` + "\n" + `{"kind":"bogus"}`,
			`workload: line 2: lease event: lease: unknown EventKind "bogus"`},
		{`{"kind":"grant","node":"h1","resource":"a","local_ns":0}`,
			"workload: line 1: lease event: wall: missing: FromEvents needs the wall clock of every event"},
		{`not json`, "workload: line 1: lease event: invalid character 'o' in literal null (expecting 'u')"},
	} {
		_, err := workload.FromEvents(strings.NewReader(tt.log), &bytes.Buffer{}, workload.FromEventsOptions{})
		require.ErrorContains(t, err, tt.want)
	}
	_, err := workload.FromEvents(strings.NewReader(""), &bytes.Buffer{}, workload.FromEventsOptions{PauseFactor: 0.5})
	require.EqualError(t, err, "workload: from-events: pause factor: must be in (1, 1000], got 0.5")
}

// TestFromEventsOfASimulatedRun records the observer log of a simulated
// run with known faults, turns it into a workload, and finds them again:
// the tasks, the crash of w2 at 45s, the 4s pause of w1 at 30s (each
// while the worker holds a task, or the log could not show it). The
// workload it writes then runs clean itself.
func TestFromEventsOfASimulatedRun(t *testing.T) {
	src := lines(`{"type":"header","version":1,"name":"recorded","workers":3,"duration":"90s","env":{"restart_after":"10s"}}`)
	var b strings.Builder
	b.WriteString(src)
	for i := range 30 {
		b.WriteString(`{"type":"task","at":"` + (time.Duration(i) * 2 * s).String() + `","id":"t` + itoa(i+1) + `","units":40,"unit_time":"250ms"}` + "\n")
		if i == 15 {
			b.WriteString(`{"type":"pause","at":"30s","worker":"w1","duration":"4s"}` + "\n")
		}
		if i == 22 {
			b.WriteString(`{"type":"crash","at":"45s","worker":"w2"}` + "\n")
		}
	}
	sc, err := workload.ScenarioOf(workload.Bytes([]byte(b.String())), testConfig)
	require.NoError(t, err)
	var log bytes.Buffer
	obs := lease.NewJSONLinesObserver(&log)
	out, err := scenarios.Execute(sc, 3, scenarios.Options{Observer: obs})
	require.NoError(t, err)
	requireClean(t, out)
	require.NoError(t, obs.Err())

	var recorded bytes.Buffer
	sum, err := workload.FromEvents(&log, &recorded, workload.FromEventsOptions{UnitsPerCheckpoint: testConfig.CheckpointEveryUnits})
	require.NoError(t, err)
	t.Logf("summary: %+v", sum)
	require.Len(t, sum.Holders, 3)
	require.Equal(t, 30, sum.Tasks)
	require.Equal(t, 30, sum.Completed)
	require.InEpsilon(t, float64(testConfig.TTL/3), float64(sum.RenewInterval), 0.1, "the default renew interval, TTL/3")

	first := out.History.Tasks[0].Arrival // the log starts at the first grant, just after the first arrival
	h, events, err := readAll(bytes.NewReader(recorded.Bytes()))
	require.NoError(t, err)
	w2 := workload.WorkerName(1 + indexOf(sum.Holders, "w2"))
	var crashes []workload.Event
	units := 0
	for _, e := range events {
		switch e.Type {
		case workload.TypeCrash:
			crashes = append(crashes, e)
		case workload.TypeTask:
			units += e.Units
		}
	}
	require.Len(t, crashes, 1)
	require.Equal(t, w2, crashes[0].Worker)
	crashAt := time.Duration(first) + crashes[0].At
	require.InDelta(t, float64(45*s), float64(crashAt), float64(testConfig.TTL/3), "at w2's last renewal before 45s")
	require.InEpsilon(t, 30*40, units, 0.25, "units from checkpoints every 5 units")
	require.Equal(t, 1, sum.Pauses, "w1's pause")
	require.InDelta(t, float64(4*s), float64(sum.PauseP50), float64(testConfig.TTL/3))
	require.NotNil(t, h.Env.Latency)
	require.LessOrEqual(t, h.Env.Latency.Max, 6*time.Millisecond, "the default link: 1 to 5ms")

	again, err := workload.ScenarioOf(workload.Bytes(recorded.Bytes()), testConfig)
	require.NoError(t, err)
	out, err = scenarios.Execute(again, 1, scenarios.Options{})
	require.NoError(t, err)
	requireClean(t, out)
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func itoa(i int) string { return strconv.Itoa(i) }
