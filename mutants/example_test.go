package mutants_test

import (
	"fmt"

	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// A mutant runs wherever an implementation runs: here, the Kleppmann GC
// pause story against a store that does not check fencing tokens.
func ExampleLookup() {
	impl, err := mutants.Lookup("mutant/unfenced-resource")
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{Impl: impl})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range out.Checks {
		if r.Property == "P2" {
			fmt.Println(r.Property, r.Name, r.Status)
		}
	}
	// Output:
	// P2 fencing violated
}

func ExampleNames() {
	for _, name := range mutants.Names()[:3] {
		fmt.Println(name)
	}
	_, err := mutants.Lookup("mutant/typo")
	fmt.Println(err != nil)
	// Output:
	// mutant/unfenced-resource
	// mutant/expiry-from-receipt
	// mutant/no-drift-margin
	// true
}
