package k8slease_test

import (
	"fmt"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/zoo/k8slease"
)

// Kleppmann's story under Kubernetes-style leader election: the leader
// checks that it leads, pauses for twice the LeaseDuration, and writes.
// Its belief ended at its deadline, so exclusivity (P1) holds either way;
// only a store that checks leaseTransitions as a fencing token refuses the
// stale write (P2).
func Example() {
	sc, err := scenarios.Lookup("kleppmann-gc-pause")
	if err != nil {
		panic(err)
	}
	for _, impl := range []lease.Impl{k8slease.Impl(), k8slease.Unfenced()} {
		out, err := scenarios.Execute(sc, 1, scenarios.Options{Impl: impl})
		if err != nil {
			panic(err)
		}
		for _, r := range out.Checks {
			if r.Property == "P1" || r.Property == "P2" {
				fmt.Println(impl.Name, r.Property, r.Status)
			}
		}
	}
	// Output:
	// zoo/k8slease P1 ok
	// zoo/k8slease P2 ok
	// zoo/k8slease/unfenced-resource P1 ok
	// zoo/k8slease/unfenced-resource P2 violated
}
