package scenarios_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// TestEventTriggeredFaults: a failpoint armed on an event trigger fires at
// the node's message boundary, for leasesim's own implementation, with the
// fault it names, once; the scenario's properties still hold for the
// correct implementation, and the premise says the trigger fired.
func TestEventTriggeredFaults(t *testing.T) {
	tests := []struct {
		trigger string
		action  faults.Action
		effect  sim.FaultKind // the fault recorded at the instant of the hit
	}{
		{scenarios.TriggerOnReply, faults.ActionPause, sim.FaultPause},
		{scenarios.TriggerAfterRequest, faults.ActionPause, sim.FaultPause},
		{scenarios.TriggerAfterWrite, faults.ActionCrash, sim.FaultCrash},
	}
	for _, tt := range tests {
		t.Run(tt.trigger+"/"+string(tt.action), func(t *testing.T) {
			sc := scenarios.KleppmannGCPause()
			sc.Name = "triggered-" + tt.trigger
			sc.Faults = faults.Schedule{Events: []faults.Event{{
				At: 3 * time.Second, Kind: faults.KindFailpoint, Node: "h1",
				Failpoint: tt.trigger, Action: tt.action,
			}}}
			if tt.action == faults.ActionPause {
				sc.Faults.Events[0].Duration = 10 * time.Second
			}
			sc.Premises = []scenarios.Premise{scenarios.FailpointHit("h1", tt.trigger)}
			out, err := scenarios.Execute(sc, 1, scenarios.Options{})
			require.NoError(t, err)

			var hits []sim.FaultRecord
			for _, f := range out.Faults {
				if f.Kind == sim.FaultFailpointHit && f.Node == "h1" {
					hits = append(hits, f)
				}
			}
			require.Len(t, hits, 1, "an armed trigger fires once")
			assert.Contains(t, hits[0].Detail, tt.trigger)
			assert.GreaterOrEqual(t, hits[0].At, sim.Time(3*time.Second))
			effect := false
			for _, f := range out.Faults {
				effect = effect || (f.Kind == tt.effect && f.Node == "h1" && f.At == hits[0].At)
			}
			assert.True(t, effect, "the %s happens at the instant of the hit", tt.effect)
			for _, r := range out.Checks {
				assert.NotEqual(t, checker.Violated, r.Status, "%s %s: %s", r.Property, r.Name, r.Summary)
				if r.Property == "premise" {
					assert.Equal(t, checker.OK, r.Status, r.Summary)
				}
			}
		})
	}
}

// TestUnarmedTriggersLeaveTheTraceAlone: reaching no trigger records
// nothing, so every run without event-triggered faults keeps its trace
// hash (TestGoldenHashes pins them); an armed trigger changes it.
func TestUnarmedTriggersLeaveTheTraceAlone(t *testing.T) {
	sc := scenarios.KleppmannGCPause()
	plain, err := scenarios.Execute(sc, 1, scenarios.Options{Check: checker.Options{Skip: true}})
	require.NoError(t, err)
	sc.Faults.Events = append(sc.Faults.Events, faults.Event{At: 20 * time.Second, Kind: faults.KindFailpoint,
		Node: "h2", Failpoint: scenarios.TriggerOnReply, Action: faults.ActionPause, Duration: time.Second})
	armed, err := scenarios.Execute(sc, 1, scenarios.Options{Check: checker.Options{Skip: true}})
	require.NoError(t, err)
	assert.NotEqual(t, plain.Sim.TraceHash, armed.Sim.TraceHash)
}
