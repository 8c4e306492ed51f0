package checker_test

import (
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// swarmHistory records one run of the swarm scenario (ten simulated
// minutes, every fault kind) without checking it.
func swarmHistory(b *testing.B) *history.History {
	b.Helper()
	sc, err := scenarios.Lookup("swarm")
	if err != nil {
		b.Fatal(err)
	}
	out, err := scenarios.Execute(sc, 1, scenarios.Options{Check: checker.Options{Skip: true}})
	if err != nil {
		b.Fatal(err)
	}
	return out.History
}

// BenchmarkCheck measures checking a swarm-sized history: each property on
// its own, the five of this package's own files plus Measure (everything
// but porcupine), and Check plus Measure and Cover as a run pays it. ns/op-recorded
// is the cost per recorded operation. simulate-for-scale runs the
// simulation itself (checkers off), to compare against.
func BenchmarkCheck(b *testing.B) {
	h := swarmHistory(b)
	b.Logf("swarm seed 1: %d ops, %d beliefs, %d units, %d tasks", h.NumOps(), len(h.Beliefs), len(h.Units), len(h.Tasks))
	cases := []struct {
		name string
		run  func()
	}{
		{"P1-exclusivity", func() { checker.Exclusivity(h) }},
		{"P2-fencing", func() { checker.Fencing(h) }},
		{"P3-linearizability", func() { checker.Linearizability(h, checker.Options{}) }},
		{"P4-liveness", func() { checker.Liveness(h) }},
		{"P5-handoff", func() { checker.Handoff(h) }},
		{"P6-at-least-once", func() { checker.AtLeastOnce(h) }},
		{"measure", func() { checker.Measure(h) }},
		{"cover", func() { checker.Cover(h) }},
		{"all-but-P3", func() {
			checker.Exclusivity(h)
			checker.Fencing(h)
			checker.Liveness(h)
			checker.Handoff(h)
			checker.AtLeastOnce(h)
			checker.Measure(h)
		}},
		{"check+measure+cover", func() {
			checker.Check(h, checker.Options{})
			checker.Measure(h)
			checker.Cover(h)
		}},
	}
	sc, err := scenarios.Lookup("swarm")
	if err != nil {
		b.Fatal(err)
	}
	cases = append(cases, struct {
		name string
		run  func()
	}{"simulate-for-scale", func() {
		if _, err := scenarios.Execute(sc, 1, scenarios.Options{Check: checker.Options{Skip: true}}); err != nil {
			b.Fatal(err)
		}
	}})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.run()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(h.NumOps()), "ns/op-recorded")
		})
	}
}
