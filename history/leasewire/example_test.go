package leasewire_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/scenarios"
)

// A simulated run's history goes to a file and comes back as what the
// checkers read, with the same verdicts: what `simrun check FILE` does.
func Example() {
	sc, _ := scenarios.Lookup("kleppmann-gc-pause")
	out, _ := scenarios.Execute(sc, 1, scenarios.Options{})

	var file bytes.Buffer
	_ = leasewire.WriteHistory(&file, out.History, leasewire.Meta{Scenario: sc.Name, Seed: 1})
	header, _, _ := strings.Cut(file.String(), "\n")
	fmt.Println(header[:strings.Index(header, `,"lease"`)] + ", …}")

	h, meta, err := leasewire.ReadHistory(&file, "history.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(meta.Scenario, meta.Determinism, h.Spec)
	for _, r := range checker.Check(h, checker.Options{}) {
		fmt.Printf("%s %s\n", r.Property, r.Status)
	}
	// Output:
	// {"type":"header","version":1,"producer":"leasesim event host","spec":"lease-store","determinism":"exact","scenario":"kleppmann-gc-pause","seed":1, …}
	// kleppmann-gc-pause exact lease-store
	// P1 ok
	// P2 ok
	// P3 ok
	// P4 ok
	// P5 n/a
	// P6 n/a
	// P7 n/a
	// P8 n/a
	// premise ok
}

// A hand-written history file in which the fenced store accepted a stale
// write, under tokens no grant issued: P2 breaks three ways.
func ExampleReadHistory() {
	const file = `{"type":"header","version":1,"producer":"hand-written","spec":"lease-store","determinism":"exact","lease":{"ttl_ns":10000000000},"lease_servers":["g"],"fenced_servers":["r"],"holders":["h1","h2"],"resources":["lock"],"start_ns":0,"heal_ns":0}
{"type":"operation","client":"h2","incarnation":0,"server":"r","id":1,"call_ns":1000,"processed_ns":2000,"return_ns":3000,"input":{"kind":"write","resource":"lock","key":"k","value":"new","holder":"h2","token":2},"output":{"kind":"write_reply","resource":"lock","token":2,"ok":true}}
{"type":"operation","client":"h1","incarnation":0,"server":"r","id":1,"call_ns":4000,"processed_ns":5000,"return_ns":6000,"input":{"kind":"write","resource":"lock","key":"k","value":"stale","holder":"h1","token":1},"output":{"kind":"write_reply","resource":"lock","token":1,"ok":true}}
{"type":"end","at_ns":9000,"max_drift_ppb":0}
`
	h, _, err := leasewire.ReadHistory(strings.NewReader(file), "stale.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	p2 := checker.Fencing(h)
	fmt.Println(p2.Property, p2.Status)
	for _, v := range p2.Violations {
		fmt.Println(v.Detail)
	}
	// Output:
	// P2 violated
	// the store accepted a write to "lock" by h2 with token 2, which the grantor never issued to it
	// the store accepted a write to "lock" with token 1 after one with token 2
	// the store accepted a write to "lock" by h1 with token 1, which the grantor never issued to it
}
