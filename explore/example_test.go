package explore_test

import (
	"fmt"
	"strconv"

	"github.com/leasesim/leasesim/explore"
	"github.com/leasesim/leasesim/scenarios"
)

// itoa formats a seed.
func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

// Explore searches the swarm's fault schedules of leasesim's own
// implementation for a violation; within a small budget it finds none and
// says which behaviours its runs reached and which they never did.
func ExampleExplore() {
	sc, _ := scenarios.Lookup("swarm")
	r, err := explore.Explore(explore.Config{Scenario: sc, Seed: 1, Budget: 5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("runs:", r.Runs, "failure:", r.Failure != nil)
	fmt.Println("reached some:", len(r.Reached) > 0, "never reached:", r.Unreached[len(r.Unreached)-1])
	// Output:
	// runs: 5 failure: false
	// reached some: true never reached: read-after-fenced-write
}

// A search runs on any Host: here fakeHost (host_test.go), whose fresh
// draws pause n1 and whose runs violate P1 when a fault hits n2. A
// mutation moves a fault there; the host shrinks the failure.
func ExampleHost() {
	r, err := explore.Explore(explore.Config{Host: &fakeHost{}, Seed: 4, Budget: 200})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Scenario, r.Impl, "violated:", r.Failure.Violated.Property, "shrunk to", len(r.Failure.Shrunk.Events), "event(s)")
	// Output:
	// story fake violated: P1 shrunk to 1 event(s)
}
