package sim_test

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// A world with two nodes: the client's timer fires after 100 ms of its own
// clock and it sends a message, which the server receives 5 ms later.
// Running the same seed again gives the same trace hash.
func Example() {
	run := func() sim.Result {
		link := sim.LinkConfig{Latency: sim.FixedDist(5 * time.Millisecond)}
		w := sim.New(sim.Config{Seed: 1, Link: &link})
		server := w.AddNode("server", func(n *sim.Node) {
			n.Handle(func(from sim.NodeID, payload any) {
				fmt.Printf("%v: server got %q from %s\n", w.Now(), payload, w.Node(from).Name())
			})
		})
		w.AddNode("client", func(n *sim.Node) {
			n.SetTimer(100*time.Millisecond, func() {
				fmt.Printf("%v: client timer fired\n", w.Now())
				n.Send(server.ID(), "hello")
			})
		})
		return w.RunFor(time.Second)
	}
	first := run()
	second := run()
	fmt.Println("events:", first.Events, "err:", first.Err)
	fmt.Println("same trace hash:", first.TraceHash == second.TraceHash)
	// Output:
	// 100ms: client timer fired
	// 105ms: server got "hello" from client
	// 100ms: client timer fired
	// 105ms: server got "hello" from client
	// events: 4 err: <nil>
	// same trace hash: true
}

// A pause armed on a failpoint lands between a check and the write that
// depends on it: the write runs when the pause ends, after a rival's.
func ExampleNode_Failpoint() {
	w := sim.New(sim.Config{})
	holder := w.AddNode("holder", nil)
	holder.ArmFailpoint("before-write", sim.FailPause, 2*time.Second)
	w.At(0, func() {
		fmt.Printf("%v: holder checks its lease\n", w.Now())
		holder.Failpoint("before-write", func() {
			fmt.Printf("%v: holder writes\n", w.Now())
		})
	})
	w.At(sim.Time(time.Second), func() { fmt.Printf("%v: rival writes\n", w.Now()) })
	w.RunFor(time.Minute)
	// Output:
	// 0s: holder checks its lease
	// 1s: rival writes
	// 2s: holder writes
}

// A series of calls at set times holds one place in the queue at a time,
// and runs as At calls made now would: the call queued for the same instant
// afterwards runs after the series' own.
func ExampleWorld_Series() {
	w := sim.New(sim.Config{})
	times := []time.Duration{time.Second, 2 * time.Second, 2 * time.Second}
	w.Series(len(times), func(i int) sim.Time { return sim.Time(times[i]) }, func(i int) {
		fmt.Printf("%v: step %d\n", w.Now(), i)
	})
	w.At(sim.Time(2*time.Second), func() { fmt.Printf("%v: queued after the series\n", w.Now()) })
	w.RunFor(time.Minute)
	// Output:
	// 1s: step 0
	// 2s: step 1
	// 2s: step 2
	// 2s: queued after the series
}
