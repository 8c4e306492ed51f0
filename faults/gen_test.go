package faults

import (
	"math"
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/sim"
)

// Generators shared by the property tests.

var testNodes = []string{"n1", "n2", "n3", "n4", "n5"}

func genDuration() *rapid.Generator[time.Duration] {
	return rapid.Custom(func(t *rapid.T) time.Duration {
		return time.Duration(rapid.Int64().Draw(t, "ns"))
	})
}

func genName() *rapid.Generator[string] {
	return rapid.OneOf(rapid.SampledFrom(append([]string{"", AnyNode}, testNodes...)), rapid.String())
}

func genFloat() *rapid.Generator[float64] {
	return rapid.OneOf(rapid.Float64Range(-2, 2), rapid.Float64Range(-math.MaxFloat64, math.MaxFloat64),
		rapid.SampledFrom([]float64{0, math.Copysign(0, -1), 1e-9, -1, 0.01}))
}

func genDist() *rapid.Generator[sim.Dist] {
	return rapid.Custom(func(t *rapid.T) sim.Dist {
		lo := time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "lo"))
		hi := lo + time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "span"))
		switch rapid.IntRange(0, 2).Draw(t, "dist") {
		case 0:
			return sim.FixedDist(lo)
		case 1:
			return sim.UniformDist(lo, hi)
		}
		return sim.ParetoDist(lo, hi, rapid.Float64Range(0.01, 10).Draw(t, "alpha"))
	})
}

func genLink() *rapid.Generator[*sim.LinkConfig] {
	return rapid.Custom(func(t *rapid.T) *sim.LinkConfig {
		if rapid.Bool().Draw(t, "nil") {
			return nil
		}
		return &sim.LinkConfig{
			Latency: genDist().Draw(t, "latency"), Loss: genFloat().Draw(t, "loss"),
			Duplicate: genFloat().Draw(t, "dup"), Reorder: genFloat().Draw(t, "reorder"),
			ReorderDelay: sim.Duration(genDuration().Draw(t, "reorder_delay")),
			InFlightMax:  rapid.Int().Draw(t, "in_flight_max"),
		}
	})
}

// genEvent draws any event, valid or not, that JSON can carry.
func genEvent() *rapid.Generator[Event] {
	return rapid.Custom(func(t *rapid.T) Event {
		var kindNames []Kind
		for _, k := range Kinds() {
			kindNames = append(kindNames, k.Name)
		}
		groups := rapid.SliceOfN(rapid.SliceOf(genName()), 0, 4).Draw(t, "groups")
		if len(groups) == 0 {
			groups = nil
		}
		return Event{
			At:   genDuration().Draw(t, "at"),
			Kind: rapid.OneOf(rapid.SampledFrom(kindNames), rapid.Map(rapid.String(), func(s string) Kind { return Kind(s) })).Draw(t, "kind"),
			Node: genName().Draw(t, "node"), From: genName().Draw(t, "from"), To: genName().Draw(t, "to"),
			Groups: groups, Bridge: genName().Draw(t, "bridge"),
			Duration: genDuration().Draw(t, "duration"), Drift: genFloat().Draw(t, "drift"),
			Step: genDuration().Draw(t, "step"), Link: genLink().Draw(t, "link"),
			Failpoint: rapid.String().Draw(t, "failpoint"),
			Action:    Action(rapid.SampledFrom([]string{"", "pause", "crash", "explode"}).Draw(t, "action")),
		}
	})
}

func genSchedule() *rapid.Generator[Schedule] {
	return rapid.Custom(func(t *rapid.T) Schedule {
		events := rapid.SliceOfN(genEvent(), 0, 8).Draw(t, "events")
		if len(events) == 0 {
			events = nil
		}
		return Schedule{Version: rapid.Int().Draw(t, "version"), Events: events, HealAt: genDuration().Draw(t, "heal_at")}
	})
}

var drawable = []Kind{KindPartition, KindPartitionOneWay, KindIsolate, KindBridge, KindLink,
	KindDrift, KindStep, KindPause, KindCrash, KindFailpoint}

// genNemesis draws a valid nemesis over testNodes.
func genNemesis() *rapid.Generator[Nemesis] {
	return rapid.Custom(func(t *rapid.T) Nemesis {
		ms := func(lo, hi int64, label string) time.Duration {
			return time.Duration(rapid.Int64Range(lo, hi).Draw(t, label)) * time.Millisecond
		}
		n := Nemesis{
			Targets:       rapid.SliceOfNDistinct(rapid.SampledFrom(testNodes), 0, 5, rapid.ID).Draw(t, "targets"),
			Partitionable: rapid.SliceOfNDistinct(rapid.SampledFrom(testNodes), 0, 5, rapid.ID).Draw(t, "partitionable"),
			// rapid leans towards the first entry and small numbers; put the
			// busy settings first so that most draws have work to do.
			FaultsPerMinute: rapid.SampledFrom([]float64{60, 20, 120, 5, 0.5, 0}).Draw(t, "per_minute"),
			Phase:           rapid.SampledFrom([]time.Duration{20 * time.Second, 5 * time.Second, time.Minute, time.Second}).Draw(t, "phase") + ms(0, 999, "phase_jitter"),
			Boundaries:      rapid.SliceOfN(rapid.Custom(func(t *rapid.T) time.Duration { return ms(1, 20_000, "b") }), 0, 4).Draw(t, "boundaries"),
			Kinds:           rapid.SliceOfDistinct(rapid.SampledFrom(drawable), rapid.ID).Draw(t, "kinds"),
			Rho:             rapid.SampledFrom([]float64{0, 1e-4, 1e-3, 0.01, 0.1}).Draw(t, "rho"),
			DriftBeyondRho:  rapid.Bool().Draw(t, "beyond"),
			PauseMax:        ms(0, 20_000, "pause_max"),
			DelayMax:        ms(0, 2_000, "delay_max"),
			StepMax:         ms(0, 20_000, "step_max"),
			WindowMax:       ms(0, 60_000, "window_max"),
			Failpoints:      rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"before-write", "after-renew"}), 0, 2, rapid.ID).Draw(t, "failpoints"),
		}
		// Keep only the listed kinds the rest of the draw made possible.
		n.Kinds = slices.DeleteFunc(n.Kinds, func(k Kind) bool { return n.lacks(k) != "" })
		if len(n.Pool()) == 0 {
			n.Targets = []string{"n1"} // crash needs nothing else
		}
		return n
	})
}
