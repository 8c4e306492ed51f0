package faults_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/sim"
)

// A nemesis for a lease with a 2s TTL, renewed every 500ms, on clocks
// that drift at most 1%: pauses and windows cluster around those durations.
func ExampleNemesis_Draw() {
	ttl, rho := 2*time.Second, 0.01
	n := faults.Nemesis{
		Targets:         []string{"holder-1", "holder-2"},
		Partitionable:   []string{"grantor", "holder-1", "holder-2"},
		Kinds:           []faults.Kind{faults.KindPause, faults.KindPartition, faults.KindDrift, faults.KindCrash},
		FaultsPerMinute: 12,
		Phase:           20 * time.Second,
		Boundaries: []time.Duration{ttl, time.Duration(float64(ttl) * (1 - rho)),
			time.Duration(float64(ttl) * (1 + rho)), 500 * time.Millisecond},
		Rho:      rho,
		PauseMax: 5 * time.Second,
	}
	if err := n.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	s := n.Draw(rand.New(rand.NewPCG(102, 102)))
	fmt.Println(s)
	// Output:
	// 2.060925109s drift holder-1 -0.01
	// 2.766858879s pause holder-2 for 2.049496981s
	// 5.154772054s crash holder-2
	// 7.606199805s restart holder-2
	// 10.905619152s drift holder-1 +0.002424188
	// 20s heal phase
}

// Parse reads a schedule strictly; Validate checks it against the nodes of
// a scenario, naming the entry and the field at fault.
func ExampleParse() {
	s, err := faults.Parse(strings.NewReader(`{"version": 1, "heal_at": "30s", "events": [
		{"at": "5s", "kind": "pause", "node": "n1", "duration": "3s"},
		{"at": "9s", "kind": "restart", "node": "n2"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Validate([]string{"n1", "n2"}))

	_, err = faults.Parse(strings.NewReader(`{"version": 1,
		"events": [{"at": "5s", "kind": "pause", "duration": "3 s"}]}`))
	fmt.Println(err)
	// Output:
	// faults: event 1 (restart): node: "n2" is not crashed at 9s
	// faults: line 2, column 56: events[0].duration: duration: time: unknown unit " s" in duration "3 s"
}

// A schedule applied to a world acts through the kernel; Windows reads the
// kernel's fault log back as the intervals each fault was in force.
func ExampleSchedule_Apply() {
	w := sim.New(sim.Config{Seed: 1})
	for _, name := range []string{"n1", "n2", "n3"} {
		w.AddNode(name, nil)
	}
	s := faults.Schedule{Version: faults.Version, HealAt: 10 * time.Second, Events: []faults.Event{
		{At: time.Second, Kind: faults.KindIsolate, Node: "n1"},
		{At: 2 * time.Second, Kind: faults.KindPause, Node: "n2", Duration: 3 * time.Second},
		{At: 4 * time.Second, Kind: faults.KindCrash, Node: "n3"},
	}}
	if err := s.Apply(w); err != nil {
		fmt.Println(err)
		return
	}
	w.RunUntil(sim.Time(12 * time.Second))
	for _, win := range faults.Windows(w.Faults(), w.Now()) {
		fmt.Printf("%-8s %-2s %v..%v\n", win.Kind, win.Node, win.Start, win.End)
	}
	// Output:
	// isolate  n1 1s..10s
	// pause    n2 2s..5s
	// crash    n3 4s..10s
}

// Kinds is the catalogue "simrun list" prints.
func ExampleKinds() {
	for _, k := range faults.Kinds()[:3] {
		fmt.Printf("%-16s %s\n", k.Name, k.Description)
	}
	// Output:
	// partition        cut every link between two or more groups, both ways
	// partition-oneway cut messages from one node to another; the reverse direction stays up
	// isolate          cut one node off from every other node, both ways
}
