package workload_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/workload"
)

// A workload streams line by line; a bad line is reported with its line
// number and field.
func ExampleNewReader() {
	file := `{"type":"header","version":1,"name":"tiny","workers":2,"duration":"1m"}
{"type":"task","at":"1s","id":"t1","units":20,"unit_time":"250ms"}
{"type":"pause","at":"5s","worker":"w1","duration":"800ms"}
{"type":"task","at":"9s","id":"t9","units":0,"unit_time":"250ms"}
`
	r, err := workload.NewReader(strings.NewReader(file))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Header().Name, r.Header().Workers, "workers")
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println(e)
	}
	// Output:
	// tiny 2 workers
	// 1s task "t1" 20×250ms
	// 5s pause w1 for 800ms
	// workload: line 4: task "t9": units: must be positive, got 0
}

// A Writer writes the canonical form, checking every event as the Reader
// would.
func ExampleWriter() {
	w, err := workload.NewWriter(os.Stdout, workload.Header{Name: "handmade", Workers: 3, Duration: 10 * time.Minute})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range []workload.Event{
		{Type: workload.TypeTask, At: time.Second, ID: "t1", Units: 20, UnitTime: 250 * time.Millisecond},
		{Type: workload.TypeDeploy, At: 5 * time.Minute, Spacing: 20 * time.Second, Down: 5 * time.Second},
		{Type: workload.TypeCrash, At: 4 * time.Minute, Worker: "w3"},
	} {
		if err = w.Write(e); err != nil {
			break
		}
	}
	if ferr := w.Flush(); ferr != nil {
		fmt.Println(ferr)
	}
	fmt.Println(err)
	// Output:
	// {"type":"header","version":1,"name":"handmade","workers":3,"duration":"10m0s"}
	// {"type":"task","at":"1s","id":"t1","units":20,"unit_time":"250ms"}
	// {"type":"deploy","at":"5m0s","spacing":"20s","down":"5s"}
	// workload: line 4: crash: at: 4m0s is before 5m0s, the time of the previous event: events must come in time order
}

// Generate draws a synthetic workload from a seed: the same seed gives the
// same bytes.
func ExampleGenerate() {
	p := workload.GenParams{
		Name: "bursts", Workers: 2, Duration: 3 * time.Minute,
		BurstSize: 2, BurstEvery: time.Minute, BurstSpread: 10 * time.Second,
		UnitsMin: 5, UnitsMax: 10, UnitTime: 100 * time.Millisecond,
		DeployEvery: 2 * time.Minute, DeploySpacing: 10 * time.Second, DeployDown: 3 * time.Second,
	}
	if err := workload.Generate(p, rand.New(rand.NewPCG(1, 2)), os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"type":"header","version":1,"name":"bursts","workers":2,"duration":"3m0s"}
	// {"type":"task","at":"1m0.241s","id":"t1","units":6,"unit_time":"100ms"}
	// {"type":"task","at":"1m6.653s","id":"t2","units":10,"unit_time":"100ms"}
	// {"type":"deploy","at":"2m0s","spacing":"10s","down":"3s"}
	// {"type":"task","at":"2m4.155s","id":"t3","units":9,"unit_time":"100ms"}
	// {"type":"task","at":"2m8.397s","id":"t4","units":8,"unit_time":"100ms"}
}

// A workload becomes a scenario: its explicit faults expanded, its
// environment's faults drawn from each seed, its tasks streamed on every
// run. Here it runs once, clean.
func ExampleScenario() {
	file := `{"type":"header","version":1,"name":"small-fleet","workers":3,"duration":"1m","env":{"restart_after":"5s"}}
{"type":"task","at":"1s","id":"t1","units":20,"unit_time":"250ms"}
{"type":"task","at":"2s","id":"t2","units":20,"unit_time":"250ms"}
{"type":"crash","at":"3s","worker":"w1"}
{"type":"deploy","at":"20s","spacing":"5s","down":"2s"}
`
	cfg := lease.Config{TTL: 2 * time.Second, Rho: 0.01, Margin: 20 * time.Millisecond, CheckpointEveryUnits: 5}
	sc, err := workload.ScenarioOf(workload.Bytes([]byte(file)), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sc.Faults)
	out, err := scenarios.Execute(sc, 1, scenarios.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(out.History.Tasks), "tasks,", len(out.Violated()), "violations")
	// Output:
	// 3s crash w1
	// 8s restart w1
	// 20s crash w1
	// 22s restart w1
	// 25s crash w2
	// 27s restart w2
	// 30s crash w3
	// 32s restart w3
	// 1m0s heal phase
	// 2 tasks, 0 violations
}

// FromEvents turns a lease observer log into a workload: here a holder
// takes a task, checkpoints it three times and releases it.
func ExampleFromEvents() {
	var log bytes.Buffer
	obs := lease.NewJSONLinesObserver(&log)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, e := range []struct {
		at   time.Duration
		kind lease.EventKind
		rtt  time.Duration
	}{
		{0, lease.EventGrant, 0},
		{time.Second, lease.EventCheckpoint, 4 * time.Millisecond},
		{2 * time.Second, lease.EventCheckpoint, 4 * time.Millisecond},
		{3 * time.Second, lease.EventCheckpoint, 4 * time.Millisecond},
		{3 * time.Second, lease.EventRelease, 0},
	} {
		obs.Observe(lease.Event{Kind: e.kind, Node: "worker-a", Resource: "nightly-report", Token: 1,
			Local: e.at, Wall: start.Add(e.at), Duration: e.rtt})
	}
	sum, err := workload.FromEvents(&log, os.Stdout, workload.FromEventsOptions{Name: "recorded", UnitsPerCheckpoint: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Tasks, "task,", sum.LatencySamples, "latency samples, holders", sum.Holders)
	// Output:
	// {"type":"header","version":1,"name":"recorded","workers":1,"duration":"3s","env":{"latency":{"kind":"fixed","min":"2ms"}}}
	// {"type":"task","at":"0s","id":"nightly-report","units":30,"unit_time":"100ms"}
	// 1 task, 3 latency samples, holders [worker-a]
}
