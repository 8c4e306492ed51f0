package scenarios_test

import (
	"testing"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/scenarios"
)

// BenchmarkSwarmScaling runs the swarm scenario, checked, for longer and
// longer simulated durations, with the task backlog growing in proportion
// (twenty tasks every ten minutes) and the nemesis active throughout, so
// that beliefs, tasks and history all grow with the run. Cost should stay
// linear in events: ns/event (and allocs/event) should not grow with the
// duration.
func BenchmarkSwarmScaling(b *testing.B) {
	for _, d := range []time.Duration{10 * time.Minute, time.Hour, 6 * time.Hour} {
		sc := scenarios.Swarm()
		sc.Name = "swarm-" + d.String()
		sc.Duration, sc.HealAt = d, d-time.Minute
		sc.Tasks = scenarios.EvenTasks(int(20*d/(10*time.Minute)), 20, 500*time.Millisecond, 30*time.Second)
		sc.Nemesis = &faults.Nemesis{FaultsPerMinute: 6}
		b.Run(d.String(), func(b *testing.B) {
			benchmarkPerEvent(b, sc, scenarios.Options{})
		})
	}
}
