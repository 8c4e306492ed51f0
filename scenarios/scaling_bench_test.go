package scenarios_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/scenarios"
)

// BenchmarkSwarmScaling runs the swarm scenario, checked, with the nemesis
// active throughout, along four series, each growing one dimension of the
// run by 4x and 16x (36x for the duration): its simulated duration (with the
// task backlog growing in proportion, twenty tasks every ten minutes, up to
// a churny six-hour run), its contending holders, its workers (with as many
// tasks per worker) and its tasks (a backlog the workers never clear).
// Cost should stay linear in events: ns/event (and allocs/event) should
// not grow along a series. Each series runs under simrun's GC policy and
// under Go's default (gcPolicies); internal/benchratio reports each
// series' largest ns/event against its smallest. Each iteration runs
// seeds until it has seen scalingEvents events (one seed of the largest
// runs, dozens of the smallest), so every size is measured over as much
// work and as warm.
func BenchmarkSwarmScaling(b *testing.B) {
	for _, gc := range gcPolicies {
		b.Run(gc.name, func(b *testing.B) {
			defer gc.apply()()
			for _, s := range scalingSeries() {
				b.Run(s.name, func(b *testing.B) {
					benchmarkEvents(b, s.sc, scenarios.Options{}, scalingEvents)
				})
			}
		})
	}
}

// scalingEvents is the least number of kernel events each iteration of
// BenchmarkSwarmScaling runs: less than one seed of its largest runs, so
// that they run the same seeds (1, 2, …) as they would one seed an
// iteration.
const scalingEvents = 300_000

// scaled is one run of a scaling series: its sub-benchmark name
// ("series=value") and its scenario.
type scaled struct {
	name string
	sc   scenarios.Scenario
}

// scalingSeries builds BenchmarkSwarmScaling's runs.
func scalingSeries() []scaled {
	base := func(name string) scenarios.Scenario {
		sc := scenarios.Swarm()
		sc.Name = "swarm-" + name
		sc.Nemesis = &faults.Nemesis{FaultsPerMinute: 6}
		return sc
	}
	var out []scaled
	for _, d := range []time.Duration{10 * time.Minute, time.Hour, 6 * time.Hour} {
		sc := base("duration=" + d.String())
		sc.Duration, sc.HealAt = d, d-time.Minute
		sc.Tasks = scenarios.EvenTasks(int(20*d/(10*time.Minute)), 20, 500*time.Millisecond, 30*time.Second)
		out = append(out, scaled{"duration=" + d.String(), sc})
	}
	for _, n := range []int{3, 12, 48} {
		sc := base("contenders=" + strconv.Itoa(n))
		sc.Contenders = n
		out = append(out, scaled{"contenders=" + strconv.Itoa(n), sc})
	}
	for _, n := range []int{2, 8, 32} {
		sc := base("workers=" + strconv.Itoa(n))
		sc.Workers = n
		sc.Tasks = scenarios.EvenTasks(10*n, 20, 500*time.Millisecond, 25*time.Second/time.Duration(n/2))
		out = append(out, scaled{"workers=" + strconv.Itoa(n), sc})
	}
	for _, n := range []int{20, 80, 320} {
		sc := base("tasks=" + strconv.Itoa(n))
		sc.Tasks = scenarios.EvenTasks(n, 20, 500*time.Millisecond, 10*time.Minute/time.Duration(n))
		out = append(out, scaled{"tasks=" + strconv.Itoa(n), sc})
	}
	return out
}
