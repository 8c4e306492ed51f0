package scenarios_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// fakeProcesses stands in for a real-time host (zoo/etcd is one): it
// returns a history of two holders, h2 starting at h2Start, with a
// premise record of its own, and remembers what it was asked to run.
type fakeProcesses struct {
	h2Start  time.Duration
	err      error
	seed     uint64
	schedule faults.Schedule
	ctx      context.Context
}

func (f *fakeProcesses) Nodes() []string { return []string{"m0", "h1", "h2"} }

func (f *fakeProcesses) Run(ctx context.Context, seed uint64, schedule faults.Schedule) (*history.History, error) {
	f.ctx, f.seed, f.schedule = ctx, seed, schedule
	if f.err != nil {
		return nil, f.err
	}
	return &history.History{Resource: "store", End: history.Time(4 * time.Second),
		Beliefs: []history.BeliefInterval{
			{Holder: "h1", Incarnation: 1, Resource: "lock", Token: 1, Start: 0, End: history.Time(time.Second),
				Reason: history.EndDeadline, LastAct: history.Unknown},
			{Holder: "h2", Incarnation: 1, Resource: "lock", Token: 2, Start: history.Time(f.h2Start),
				End: history.Time(3 * time.Second), Reason: history.EndRun, LastAct: history.Unknown}},
		Premises: []history.PremiseRecord{{Name: "the host's own", Held: true}}}, nil
}

func processScenario(p scenarios.Processes) scenarios.Scenario {
	return scenarios.Scenario{Name: "fake-real-time", Processes: p, Duration: 4 * time.Second, HealAt: 3 * time.Second,
		Faults: faults.Schedule{Events: []faults.Event{{At: time.Second, Kind: faults.KindPause, Node: "h1", Duration: time.Second}}},
		Premises: []scenarios.Premise{{Name: "h2 believed", Holds: func(h *history.History) (bool, string) {
			return len(h.Beliefs) == 2, "beliefs"
		}}}}
}

// Execute runs a Processes scenario on the real-time host: its schedule
// (HealAt filled in) and context reach the host, the host's premise
// records come first, the scenario's after them, and the history is
// judged as on every host.
func TestExecuteOnTheRealTimeHost(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h2Start time.Duration
		p1      checker.Status
	}{
		{"apart", 2 * time.Second, checker.OK},
		{"overlapping", 500 * time.Millisecond, checker.Violated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeProcesses{h2Start: tc.h2Start}
			ctx := context.WithValue(context.Background(), fakeKey{}, "mine")
			out, err := scenarios.Execute(processScenario(f), 7, scenarios.Options{Context: ctx})
			require.NoError(t, err)
			assert.Equal(t, scenarios.HostProcess, out.Host)
			assert.Equal(t, uint64(7), f.seed)
			assert.Equal(t, "mine", f.ctx.Value(fakeKey{}))
			assert.Equal(t, 3*time.Second, f.schedule.HealAt, "HealAt comes from the scenario")
			require.Len(t, f.schedule.Events, 1)
			assert.Equal(t, f.schedule, out.Schedule)
			require.Len(t, out.History.Premises, 2)
			assert.Equal(t, "the host's own", out.History.Premises[0].Name)
			assert.Equal(t, "h2 believed", out.History.Premises[1].Name)
			assert.Equal(t, tc.p1, out.Verdict("P1"))
			assert.Equal(t, checker.OK, out.Verdict(checker.PropertyPremise))
			assert.NoError(t, out.Err())
		})
	}
}

type fakeKey struct{}

// A replay's schedule replaces the scenario's, and is checked against the
// processes' names before anything runs; a host's error is returned
// wrapped; a scenario that also sets the event host's roles is refused.
func TestExecuteOnTheRealTimeHostRefuses(t *testing.T) {
	f := &fakeProcesses{}
	bad := faults.Schedule{Version: faults.Version, Events: []faults.Event{{At: time.Second, Kind: faults.KindPause, Node: "h9", Duration: time.Second}}}
	_, err := scenarios.Execute(processScenario(f), 1, scenarios.Options{Schedule: &bad})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "h9")
	assert.Nil(t, f.ctx, "nothing ran")

	boom := errors.New("boom")
	_, err = scenarios.Execute(processScenario(&fakeProcesses{err: boom}), 1, scenarios.Options{})
	require.ErrorIs(t, err, boom)

	sc := processScenario(f)
	sc.Contenders = 2
	assert.ErrorContains(t, sc.Validate(), "processes")
	assert.Equal(t, []string{"m0", "h1", "h2"}, processScenario(f).Nodes())
}

// A real-time host's story is a Scenario with Processes: Execute runs it
// and judges its history like any other.
func ExampleProcesses() {
	sc := scenarios.Scenario{Name: "two-holders", Processes: &fakeProcesses{h2Start: 2 * time.Second}}
	out, err := scenarios.Execute(sc, 1, scenarios.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Host, out.Verdict("P1"), out.Verdict("P2"))
	// Output: process ok ok
}
