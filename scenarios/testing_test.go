package scenarios_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/leasesim/leasesim/faults"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// TestYourOwnImplementation is the door a user's implementation comes in
// by: an Impl whose constructors build each node from the lease.Env the
// harness hands over. Here the constructors are package lease's own; put
// yours in their place.
func TestYourOwnImplementation(t *testing.T) {
	mine := lease.Impl{
		Name:        "mine",
		NewGrantor:  lease.NewGrantor,
		NewHolder:   lease.NewHolder,
		NewResource: lease.NewResource,
		// What the implementation supports beyond the core; a scenario that
		// needs more is skipped with the reason.
		Capabilities: lease.AllCapabilities(),
	}
	for _, sc := range scenarios.CatalogFor(lease.Correct()) {
		t.Run(sc.Name, func(t *testing.T) {
			scenarios.Run(t, sc, scenarios.Seeds(1, 3), scenarios.WithImpl(mine), scenarios.Parallel())
		})
	}
}

// recordingTB captures what Report says instead of failing the test.
type recordingTB struct {
	testing.TB
	errors, logs []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Log(args ...any) { r.logs = append(r.logs, fmt.Sprint(args...)) }

// A broken implementation fails through the same door, and the failure
// names the property and the lines that replay it: the test's own go test
// line, and the simrun line because the scenario and the mutant are
// built-in names.
func TestReportNamesPropertyAndReplay(t *testing.T) {
	impl, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	out, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{Impl: impl})
	require.NoError(t, err)

	tb := &recordingTB{TB: t}
	scenarios.Report(tb, out)
	require.NotEmpty(t, tb.errors, "the stale write is accepted: P2 must fail")
	assert.Contains(t, strings.Join(tb.errors, "\n"), "P2 fencing violated")
	logs := strings.Join(tb.logs, "\n")
	assert.Contains(t, logs, "replay: go test -run '^TestReportNamesPropertyAndReplay$' ./scenarios\n")
	assert.Contains(t, logs, "or: simrun run --scenario kleppmann-gc-pause --seed 1 --impl mutant/unfenced-resource")
}

// A user's own implementation gets no simrun line (simrun cannot load it),
// only the go test line.
func TestReportOwnImplementationPrintsOnlyGoTest(t *testing.T) {
	broken, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	mine := broken
	mine.Name = "mine"
	out, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{Impl: mine})
	require.NoError(t, err)

	tb := &recordingTB{TB: t}
	scenarios.Report(tb, out)
	require.NotEmpty(t, tb.errors)
	logs := strings.Join(tb.logs, "\n")
	assert.Contains(t, logs, "replay: go test -run '^TestReportOwnImplementationPrintsOnlyGoTest$' ./scenarios")
	assert.NotContains(t, logs, "simrun")
}

func TestExecuteRejectsBadScenarios(t *testing.T) {
	good := scenarios.KleppmannGCPause()
	tests := []struct {
		name   string
		change func(*scenarios.Scenario)
		want   string
	}{
		{"no name", func(s *scenarios.Scenario) { s.Name = "" }, "name is empty"},
		{"no duration", func(s *scenarios.Scenario) { s.Duration = 0 }, "duration"},
		{"heal after the end", func(s *scenarios.Scenario) { s.HealAt = s.Duration + 1 }, "heal_at"},
		{"nobody", func(s *scenarios.Scenario) { s.Contenders = 0 }, "no holders"},
		{"negative TTL", func(s *scenarios.Scenario) { s.Config.TTL = -1 }, "TTL"},
		{"workers without tasks", func(s *scenarios.Scenario) { s.Workers = 1 }, "workers without tasks"},
		{"negative keys", func(s *scenarios.Scenario) { s.Lock.Keys = -1 }, "lock.keys"},
		{"fault on an unknown node", func(s *scenarios.Scenario) { s.Faults.Events[0].Node = "h9" }, "h9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := good
			sc.Faults.Events = append(sc.Faults.Events[:0:0], good.Faults.Events...)
			tt.change(&sc)
			_, err := scenarios.Execute(sc, 1, scenarios.Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestUndeclaredCapabilitiesSkip: an implementation that declares nothing
// optional runs the scenarios it can (those with optional workers without
// them, and the outcome says so) and skips the others with the reason, in
// Run (go test), Supports and Execute alike; none is failed for it.
func TestUndeclaredCapabilitiesSkip(t *testing.T) {
	bare := lease.Impl{Name: "bare", NewGrantor: lease.NewGrantor, NewHolder: lease.NewHolder, NewResource: lease.NewResource}
	tests := []struct {
		scenario string
		missing  []string // nil: runs
	}{
		{"partition-heal", nil},
		{"swarm", nil}, // its workers and its drawn read-back are optional: it runs without them
		{"worker-crash-handoff", []string{"checkpoints", "side effects", "failpoint before-checkpoint"}},
		{"service-registry", []string{"registrations"}},
		{"kleppmann-gc-pause", []string{"failpoint before-write"}},
		{"multi-key-read-back", []string{"reads"}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			sc, err := scenarios.Lookup(tt.scenario)
			require.NoError(t, err)
			err = scenarios.Supports(sc, bare)
			var inner *testing.T
			t.Run("run", func(t *testing.T) {
				inner = t
				scenarios.Run(t, sc, scenarios.Seeds(1, 1), scenarios.WithImpl(bare))
			})
			if tt.missing == nil {
				require.NoError(t, err)
				assert.False(t, inner.Skipped())
				out, err := scenarios.Execute(sc, 1, scenarios.Options{Impl: bare})
				require.NoError(t, err)
				assert.Equal(t, scenarios.Adaptations(sc, bare), out.Adapted)
				if sc.Workers > 0 {
					require.Len(t, out.Adapted, 2)
					assert.Contains(t, out.Adapted[0], "ran without its 2 workers")
					assert.Empty(t, out.History.Tasks, "the optional workers were left out")
					assert.Contains(t, out.Adapted[1], "one key blind on every seed", "its drawn read-back needs reads")
				}
				return
			}
			var u *scenarios.UnsupportedError
			require.ErrorAs(t, err, &u)
			assert.Equal(t, tt.missing, u.Missing)
			assert.Contains(t, err.Error(), "scenario "+tt.scenario+" needs")
			assert.True(t, inner.Skipped(), "an unsupported scenario is skipped, not run")
			_, err = scenarios.Execute(sc, 1, scenarios.Options{Impl: bare})
			require.ErrorAs(t, err, &u)
		})
	}
}

// TestForImplDrawsOnlyReachableFailpoints: a nemesis arms only failpoints
// the implementation reaches (its declared ones and the event triggers),
// none at all when it reaches none of the scenario's, and leasesim's own
// runs the scenario unchanged.
func TestForImplDrawsOnlyReachableFailpoints(t *testing.T) {
	herd, err := scenarios.Lookup("thundering-herd")
	require.NoError(t, err)
	require.Contains(t, herd.Nemesis.Kinds, faults.KindFailpoint)
	assert.Same(t, herd.Nemesis, herd.ForImpl(lease.Correct()).Nemesis, "leasesim's own reaches every failpoint")
	bare := lease.Impl{Name: "bare"}
	got := herd.ForImpl(bare).Nemesis
	assert.Contains(t, got.Kinds, faults.KindFailpoint)
	assert.Equal(t, scenarios.Triggers(), got.Failpoints, "every implementation reaches the event triggers")

	handoff, err := scenarios.Lookup("worker-crash-handoff") // names before-checkpoint and before-write only
	require.NoError(t, err)
	got = handoff.ForImpl(bare).Nemesis
	assert.NotContains(t, got.Kinds, faults.KindFailpoint)
	assert.Empty(t, got.Failpoints)
	assert.Contains(t, handoff.Nemesis.Kinds, faults.KindFailpoint, "the catalogue's scenario is not changed")
}
