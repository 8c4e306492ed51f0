package try

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

// TRY="scenario:seed,seed;scenario:seed"
func TestTry(t *testing.T) {
	for _, part := range strings.Split(os.Getenv("TRY"), ";") {
		name, seeds, _ := strings.Cut(part, ":")
		sc, err := scenarios.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range strings.Split(seeds, ",") {
			seed, _ := strconv.ParseUint(s, 10, 64)
			impl, _ := mutants.Lookup(os.Getenv("IMPL"))
			out, err := scenarios.Execute(sc, seed, scenarios.Options{Impl: impl})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range out.Checks {
				if r.Status != checker.OK {
					fmt.Printf("%s %d %s %s: %s\n", name, seed, r.Property, r.Status, r.Summary)
					for _, v := range r.Violations {
						fmt.Printf("   %v %s %v\n", v.At, v.Detail, v.Evidence)
					}
				}
			}
		}
	}
}
