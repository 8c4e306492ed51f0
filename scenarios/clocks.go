package scenarios

import (
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

// driftRho is the wider drift bound of the clock scenarios: at 5% the
// windows that a drift bug opens are hundreds of milliseconds wide.
const driftRho = 0.05

func driftConfig() lease.Config {
	return lease.Config{TTL: ttl, Rho: driftRho, Margin: margin}
}

// worstCaseDrift runs the grantor fast and every holder slow by drift: the
// grantor expires as early, and the holders believe as long, as drift
// allows.
func worstCaseDrift(drift float64, holders ...string) []faults.Event {
	events := []faults.Event{{Kind: faults.KindDrift, Node: GrantorNode, Drift: drift}}
	for _, h := range holders {
		events = append(events, faults.Event{Kind: faults.KindDrift, Node: h, Drift: -drift})
	}
	return events
}

// ClockDrift runs every clock at the edge of the drift bound.
func ClockDrift() Scenario {
	return Scenario{
		Name: "clock-drift",
		Doc:  "clocks drift up to rho, the worst way round; exclusivity must hold",
		Story: "The grantor's clock runs 5% fast and every holder's 5% slow, the worst combination the " +
			"configured bound rho = 5% allows: the grantor expires leases as early as it may and holders " +
			"believe as long as they may. The nemesis isolates and pauses holders so that leases really " +
			"expire and move, and changes drift within rho. Exclusivity (P1) must hold with a margin >= 0.",
		Config:     driftConfig(),
		Contenders: 3,
		Lock:       LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 250 * time.Millisecond},
		Faults:     faults.Schedule{Events: worstCaseDrift(driftRho, "h1", "h2", "h3")},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindIsolate, faults.KindPause, faults.KindDrift},
			FaultsPerMinute: 6,
		},
		Premises: []Premise{
			DriftApplied(false),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}

// ClockDriftBeyond drifts clocks three times past the bound.
func ClockDriftBeyond() Scenario {
	sc := ClockDrift()
	sc.Name = "clock-drift-beyond"
	sc.Doc = "clocks drift 3x beyond rho: exclusivity may fail (assumption exceeded), fencing must hold"
	sc.Story = "The same story as clock-drift, but the clocks drift three times beyond the bound the " +
		"implementation was configured for. Exclusivity may now fail, and P1 reports that the assumption " +
		"was exceeded rather than a bug. Fencing (P2) must still hold: it is the last line of defence."
	sc.Faults = faults.Schedule{Events: worstCaseDrift(3*driftRho, "h1", "h2", "h3")}
	sc.Nemesis.DriftBeyondRho = true
	sc.Premises = []Premise{DriftApplied(true)}
	return sc
}

// ClockStep steps wall clocks by more than a TTL, both ways.
func ClockStep() Scenario {
	return Scenario{
		Name: "clock-step",
		Doc:  "wall clocks step by more than a TTL; expiry must not notice",
		Story: "NTP steps the grantor's wall clock two TTLs forward and the holders' backward. A lease " +
			"implementation that measures expiry with the wall clock expires leases early (or late) and " +
			"breaks exclusivity; one that uses the monotonic clock does not notice. The nemesis adds more " +
			"steps, isolations and pauses.",
		Config:     baseConfig(),
		Contenders: 3,
		Lock:       LockLoad{Stagger: 500 * time.Millisecond, WriteEvery: 250 * time.Millisecond},
		Faults: faults.Schedule{Events: []faults.Event{
			{At: 4 * time.Second, Kind: faults.KindStep, Node: GrantorNode, Step: 2 * ttl},
			{At: 6 * time.Second, Kind: faults.KindStep, Node: "h1", Step: -ttl},
			{At: 20 * time.Second, Kind: faults.KindStep, Node: GrantorNode, Step: -3 * ttl},
		}},
		Nemesis: &faults.Nemesis{
			Kinds:           []faults.Kind{faults.KindStep, faults.KindIsolate, faults.KindPause},
			FaultsPerMinute: 6,
			StepMax:         3 * ttl,
		},
		Premises: []Premise{
			FaultWhileLeaseLive("a wall clock was stepped while a lease was live", []string{history.FaultStep}),
		},
		Duration: 2 * time.Minute,
		HealAt:   90 * time.Second,
	}
}
