package workload_test

import (
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/workload"
)

// quiet is a header without random faults.
const quiet = `{"type":"header","version":1,"name":"quiet","workers":3,"duration":"10m","env":{"restart_after":"10s"}}`

func TestInspectExpandsFaults(t *testing.T) {
	p, err := workload.Inspect(workload.Bytes([]byte(lines(quiet,
		`{"type":"task","at":"1s","id":"t1","units":20,"unit_time":"250ms"}`,
		`{"type":"crash","at":"1m","worker":"w2"}`,
		`{"type":"restart","at":"1m30s","worker":"w2"}`,
		`{"type":"crash","at":"2m","worker":"w1"}`,
		`{"type":"pause","at":"2m10s","worker":"w1","duration":"1s"}`,
		`{"type":"deploy","at":"5m","spacing":"20s","down":"5s"}`,
		`{"type":"task","at":"6m","id":"t2","units":3,"unit_time_dist":{"kind":"uniform","min":"1s","max":"2s"}}`,
		`{"type":"crash","at":"9m55s","worker":"w3"}`,
		`{"type":"deploy","at":"9m58s","spacing":"1s","down":"5s"}`,
	))))
	require.NoError(t, err)
	require.Equal(t, 2, p.Tasks)
	require.Equal(t, int64(23), p.Units)
	require.Equal(t, 6*time.Second, p.WorkMax, "3 units of up to 2s")
	require.Equal(t, 10*time.Minute, p.Duration)
	require.Equal(t, strings.Join([]string{
		"1m0s crash w2",
		"1m30s restart w2",
		"2m0s crash w1",
		"2m10s restart w1", // restart_after, before the pause at the same instant
		"2m10s pause w1 for 1s",
		"5m0s crash w1", // the deploy: w1, w2, w3, 20s apart, 5s down
		"5m5s restart w1",
		"5m20s crash w2",
		"5m25s restart w2",
		"5m40s crash w3",
		"5m45s restart w3",
		"9m55s crash w3", // its restart at 10m05s is past the heal, which restarts it
		"9m58s crash w1", // the deploy at the end is cut at the heal
		"9m59s crash w2",
		"10m0s heal phase",
	}, "\n"), p.Faults.String())
	require.NoError(t, p.Faults.Validate([]string{"w1", "w2", "w3"}))
}

// TestInspectErrors has one row per rule that spans lines.
func TestInspectErrors(t *testing.T) {
	task := `{"type":"task","at":"1s","id":"t1","units":2,"unit_time":"1s"}`
	for _, tt := range []struct {
		rule  string
		input []string
		want  string
	}{
		{"duplicate id", []string{task, `{"type":"crash","at":"1s","worker":"w1"}`, task},
			`workload: line 4: task "t1": id: duplicate: line 2 has a task with the same id`},
		{"crash of a crashed worker", []string{`{"type":"crash","at":"1s","worker":"w1"}`, `{"type":"crash","at":"5s","worker":"w1"}`},
			`workload: line 3: crash: worker: "w1" is already crashed at 5s`},
		{"restart of a running worker", []string{`{"type":"restart","at":"1s","worker":"w2"}`},
			`workload: line 2: restart: worker: "w2" is not crashed at 1s`},
		{"pause of a crashed worker", []string{`{"type":"crash","at":"1s","worker":"w3"}`, `{"type":"pause","at":"2s","worker":"w3","duration":"1s"}`},
			`workload: line 3: pause: worker: "w3" is crashed at 2s and cannot be paused`},
		{"deploy over a crashed worker", []string{`{"type":"crash","at":"1m","worker":"w2"}`,
			`{"type":"deploy","at":"1m","spacing":"2s","down":"1s"}`},
			`workload: line 3: deploy: worker: "w2" is already crashed at 1m2s`},
		{"an explicit restart after the implicit one", []string{`{"type":"crash","at":"1m","worker":"w2"}`,
			`{"type":"pause","at":"2m","worker":"w2","duration":"1s"}`, `{"type":"restart","at":"3m","worker":"w2"}`},
			`workload: line 4: restart: worker: "w2" is not crashed at 3m0s`},
		{"crash of a crashed member", []string{`{"type":"crash","at":"1s","member":"grantor2"}`,
			`{"type":"crash","at":"5s","member":"grantor2"}`},
			`workload: line 3: crash: member: "grantor2" is already crashed at 5s`},
		{"pause of a crashed member", []string{`{"type":"crash","at":"1s","member":"grantor"}`,
			`{"type":"pause","at":"2s","member":"grantor","duration":"1s"}`},
			`workload: line 3: pause: member: "grantor" is crashed at 2s and cannot be paused`},
		{"no duration and nothing after 0s", []string{`{"type":"task","at":"0s","id":"t1","units":2,"unit_time":"1s"}`},
			`workload: line 1: header: duration: missing, and every event is at 0s: give the workload a duration`},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			h := quiet
			if strings.HasPrefix(tt.rule, "no duration") {
				h = strings.Replace(quiet, `"duration":"10m",`, ``, 1)
			}
			_, err := workload.Inspect(workload.Bytes([]byte(lines(append([]string{h}, tt.input...)...))))
			require.EqualError(t, err, tt.want)
			require.ErrorIs(t, err, workload.ErrInvalid)
		})
	}
}

func TestInspectFindsTheEndWithoutADuration(t *testing.T) {
	p, err := workload.Inspect(workload.Bytes([]byte(lines(strings.Replace(quiet, `"duration":"10m",`, ``, 1),
		`{"type":"task","at":"1s","id":"t1","units":2,"unit_time":"1s"}`,
		`{"type":"deploy","at":"1m","spacing":"10s","down":"3s"}`,
		`{"type":"task","at":"1m5s","id":"t2","units":2,"unit_time":"1s"}`,
	))))
	require.NoError(t, err)
	require.Equal(t, time.Minute+23*time.Second, p.Duration, "the deploy's last restart: 1m + 2×10s + 3s")
	require.Len(t, p.Faults.Events, 5, "the last restart is at the heal, which restarts w3 itself")
}

func TestInspectRejectsTooManyRandomFaults(t *testing.T) {
	h := `{"type":"header","version":1,"name":"storm","workers":1000,"duration":"168h","env":{"gc_pause":{"per_minute":6000,"p50":"1ms","p99":"1ms","max":"1ms"}}}`
	_, err := workload.Inspect(workload.Bytes([]byte(lines(h))))
	require.ErrorContains(t, err, "workload: line 1: header: env.gc_pause.per_minute: 6000 pauses a minute on 1000 workers")
}

var testConfig = lease.Config{TTL: 5 * time.Second, Rho: 0.01, Margin: 50 * time.Millisecond, CheckpointEveryUnits: 5}

func TestScenarioFromAWorkload(t *testing.T) {
	data := []byte(lines(header,
		`{"type":"task","at":"1s","id":"t1","units":20,"unit_time":"250ms"}`,
		`{"type":"task","at":"2s","id":"t2","units":8,"unit_time_dist":{"kind":"uniform","min":"100ms","max":"400ms"}}`,
		`{"type":"crash","at":"5m","worker":"w2"}`,
	))
	sc, err := workload.ScenarioOf(workload.Bytes(data), testConfig)
	require.NoError(t, err)
	require.Equal(t, "steady-batch", sc.Name)
	require.Equal(t, 4, sc.Workers)
	require.Equal(t, &sim.LinkConfig{Latency: sim.ParetoDist(time.Millisecond, 500*time.Millisecond, 1.5), Loss: 0.001}, sc.Link)
	require.Equal(t, 30*time.Minute, sc.HealAt, "faults stop when the workload ends")
	p, err := workload.Inspect(workload.Bytes(data))
	require.NoError(t, err)
	require.Equal(t, sc.HealAt+p.Drain(testConfig), sc.Duration)
	require.Greater(t, p.Drain(testConfig), p.WorkMax+testConfig.TTL, "the drain covers the longest task and a lease running out")
	require.Equal(t, "5m0s crash w2\n5m10s restart w2\n30m0s heal phase", sc.Faults.String())
	require.NotNil(t, sc.RandomFaults)

	src, err := sc.TaskSource(rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	var got []scenarios.TaskSpec
	for task, ok := src.Next(); ok; task, ok = src.Next() {
		got = append(got, task)
	}
	require.NoError(t, src.Err())
	require.Len(t, got, 2)
	require.Equal(t, scenarios.TaskSpec{ID: "t1", Arrival: time.Second, Units: 20, UnitTime: 250 * time.Millisecond}, got[0])
	require.Equal(t, "t2", got[1].ID)
	require.GreaterOrEqual(t, got[1].UnitTime, 100*time.Millisecond, "drawn from the distribution")
	require.LessOrEqual(t, got[1].UnitTime, 400*time.Millisecond)
}

// countingOpener counts how often a workload is opened and closed.
type countingOpener struct {
	data          []byte
	opens, closes int
}

func (c *countingOpener) open() (io.ReadCloser, error) {
	c.opens++
	return closer{strings.NewReader(string(c.data)), c}, nil
}

type closer struct {
	io.Reader
	c *countingOpener
}

func (c closer) Close() error { c.c.closes++; return nil }

func TestTaskSourceReopensAndClosesTheFile(t *testing.T) {
	c := &countingOpener{data: []byte(lines(quiet, `{"type":"task","at":"1s","id":"t1","units":2,"unit_time":"1s"}`,
		`{"type":"pause","at":"2s","worker":"w1","duration":"1s"}`))}
	sc, err := workload.ScenarioOf(c.open, testConfig)
	require.NoError(t, err)
	require.Equal(t, c.opens, c.closes, "Inspect closes what it opens")
	before := c.opens
	for run := 1; run <= 3; run++ {
		src, err := sc.TaskSource(rand.New(rand.NewPCG(1, 2)))
		require.NoError(t, err)
		for _, ok := src.Next(); ok; _, ok = src.Next() {
		}
		require.NoError(t, src.Err())
		require.Equal(t, before+run, c.opens, "one open per run")
		require.Equal(t, c.opens, c.closes, "closed at the end of the tasks")
	}

	src, err := sc.TaskSource(rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	_, ok := src.Next()
	require.True(t, ok)
	closer, ok := src.(io.Closer)
	require.True(t, ok, "a run that stops early can close the file")
	require.NoError(t, closer.Close())
	require.NoError(t, closer.Close(), "twice is fine")
	require.Equal(t, c.opens, c.closes)
	_, ok = src.Next()
	require.False(t, ok, "a closed source has no more tasks")
}

func TestTaskSourceReportsABadLine(t *testing.T) {
	good := lines(quiet, `{"type":"task","at":"1s","id":"t1","units":2,"unit_time":"1s"}`)
	calls := 0
	open := func() (io.ReadCloser, error) {
		calls++
		if calls == 1 {
			return io.NopCloser(strings.NewReader(good)), nil
		}
		return io.NopCloser(strings.NewReader(good + `{"type":"task","at":"2s","id":"t2","units":0,"unit_time":"1s"}` + "\n")), nil
	}
	sc, err := workload.ScenarioOf(open, testConfig)
	require.NoError(t, err)
	_, err = scenarios.Execute(sc, 1, scenarios.Options{})
	require.EqualError(t, err, `scenario quiet: tasks: workload: line 3: task "t2": units: must be positive, got 0`)
}

// drawn returns the scenario's random faults for seed.
func drawn(sc scenarios.Scenario, seed uint64) []faults.Event {
	return sc.RandomFaults(rand.New(rand.NewPCG(seed, seed)))
}

func TestRandomFaultsAreCommonRandomNumbers(t *testing.T) {
	data := workload.Bytes([]byte(lines(header, `{"type":"crash","at":"5m","worker":"w2"}`)))
	sc, err := workload.ScenarioOf(data, testConfig)
	require.NoError(t, err)
	other := testConfig
	other.TTL, other.CheckpointEveryUnits = 2*time.Second, 1
	sc2, err := workload.ScenarioOf(data, other)
	require.NoError(t, err)

	first := drawn(sc, 1)
	require.NotEmpty(t, first)
	require.Equal(t, first, drawn(sc, 1), "the same seed draws the same faults")
	require.Equal(t, first, drawn(sc2, 1), "whatever the lease configuration")
	require.NotEqual(t, first, drawn(sc, 2), "another seed draws others")
}

// TestRandomFaultsNeverContradict draws over many seeds, on a workload
// with explicit crashes, pauses and deploys, and checks that every draw
// merges into a valid schedule with nothing dropped: it never crashes a
// crashed worker, never pauses a crashed one, and stops at the heal.
func TestRandomFaultsNeverContradict(t *testing.T) {
	h := `{"type":"header","version":1,"name":"busy","workers":3,"duration":"20m","env":{"gc_pause":{"per_minute":20,"p50":"50ms","p99":"2s","max":"5s"},"crash_per_hour":20,"restart_after":"30s"}}`
	data := workload.Bytes([]byte(lines(h,
		`{"type":"crash","at":"1m","worker":"w1"}`,
		`{"type":"pause","at":"3m","worker":"w2","duration":"10s"}`,
		`{"type":"deploy","at":"5m","spacing":"20s","down":"5s"}`,
		`{"type":"crash","at":"19m59s","worker":"w3"}`,
	)))
	sc, err := workload.ScenarioOf(data, testConfig)
	require.NoError(t, err)
	nodes := sc.Nodes()
	for seed := uint64(1); seed <= 200; seed++ {
		events := drawn(sc, seed)
		require.True(t, slices.IsSortedFunc(events, func(a, b faults.Event) int { return int(a.At - b.At) }))
		merged := sc.Faults
		merged.Events = append(slices.Clone(merged.Events), events...)
		slices.SortStableFunc(merged.Events, func(a, b faults.Event) int { return int(a.At - b.At) })
		require.NoError(t, merged.Validate(nodes), "seed %d", seed)
		for _, e := range events {
			require.Less(t, e.At, sc.HealAt)
			require.Contains(t, []string{"w1", "w2", "w3"}, e.Node)
		}
	}
}

// TestRandomFaultRates checks the drawn rates and pause lengths against
// the header over many seeds: the counts within 10% of the expectation,
// the pauses' median and 99th percentile within 15% of p50 and p99, and
// none above max.
func TestRandomFaultRates(t *testing.T) {
	h := `{"type":"header","version":1,"name":"rates","workers":4,"duration":"1h","env":{"gc_pause":{"per_minute":3,"p50":"20ms","p99":"300ms","max":"2s"},"crash_per_hour":2,"restart_after":"1s"}}`
	sc, err := workload.ScenarioOf(workload.Bytes([]byte(lines(h))), testConfig)
	require.NoError(t, err)
	const seeds = 50
	var pauses []time.Duration
	crashes := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		for _, e := range drawn(sc, seed) {
			switch e.Kind {
			case faults.KindPause:
				pauses = append(pauses, e.Duration)
			case faults.KindCrash:
				crashes++
			}
		}
	}
	wantPauses, wantCrashes := float64(seeds*4*3*60), float64(seeds*4*2)
	require.InEpsilon(t, wantPauses, float64(len(pauses)), 0.1, "GC pauses: 3 a minute per worker")
	require.InEpsilon(t, wantCrashes, float64(crashes), 0.15, "crashes: 2 an hour per worker")
	slices.Sort(pauses)
	require.InEpsilon(t, float64(20*time.Millisecond), float64(pauses[len(pauses)/2]), 0.15, "p50")
	require.InEpsilon(t, float64(300*time.Millisecond), float64(pauses[len(pauses)*99/100]), 0.15, "p99")
	require.LessOrEqual(t, pauses[len(pauses)-1], 2*time.Second, "max")
}

func TestWorkloadsInTestdata(t *testing.T) {
	for _, tt := range []struct {
		file, err string
	}{
		{"every-kind.jsonl", ""},
		{"no-duration.jsonl", ""},
		{"contradiction.jsonl", `workload: line 3: pause: worker: "w1" is crashed at 2s and cannot be paused`},
	} {
		t.Run(tt.file, func(t *testing.T) {
			_, err := workload.Scenario("testdata/workloads/"+tt.file, testConfig)
			if tt.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.err)
		})
	}
	_, err := workload.Scenario("testdata/workloads/missing.jsonl", testConfig)
	require.ErrorContains(t, err, "workload: open: open testdata/workloads/missing.jsonl: no such file or directory")
	require.NotErrorIs(t, err, workload.ErrInvalid)
}
