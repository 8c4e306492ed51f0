package sweep_test

import (
	"context"
	"fmt"

	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sweep"
)

// A sweep of one scenario over ten seeds, on every core. The summary is the
// same at any parallelism.
func ExampleRun() {
	s, err := sweep.Run(context.Background(), sweep.Config{
		Scenarios: []scenarios.Scenario{scenarios.KleppmannGCPause()},
		Seeds:     sweep.Seeds{First: 1, Last: 10},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s seeds %d-%d: %d runs, %d failures, partial %v\n",
		s.Impl, s.SeedFirst, s.SeedLast, s.Runs, len(s.Failures), s.Partial)
	// Output:
	// correct seeds 1-10: 10 runs, 0 failures, partial false
}

// Two machines each run one shard of a sweep; Merge makes one summary of
// their two.
func ExampleMerge() {
	cfg := sweep.Config{
		Scenarios: []scenarios.Scenario{scenarios.KleppmannGCPause()},
		Seeds:     sweep.Seeds{First: 1, Last: 9},
	}
	var parts []sweep.Summary
	for _, shard := range []string{"1/2", "2/2"} {
		cfg.Shard, _ = sweep.ParseShard(shard)
		s, err := sweep.Run(context.Background(), cfg)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("shard %s: %d runs\n", s.Shard, s.Runs)
		parts = append(parts, s)
	}
	whole, err := sweep.Merge(parts...)
	fmt.Printf("merged %s: %d runs, err %v\n", whole.Shard, whole.Runs, err)
	_, err = sweep.Merge(parts[0], parts[0])
	fmt.Println(err)
	// Output:
	// shard 1/2: 5 runs
	// shard 2/2: 4 runs
	// merged 1/1: 9 runs, err <nil>
	// part 2: shard 1/2 is already merged
}

// Seed ranges and shards come from the command line; bad ones say what is
// wrong.
func ExampleParseSeeds() {
	r, err := sweep.ParseSeeds("1-2000")
	fmt.Println(r.Count(), err)
	_, err = sweep.ParseSeeds("5-2")
	fmt.Println(err)
	sh, _ := sweep.ParseShard("2/3")
	fmt.Println(sh.Len(r), sh.Seed(r, 0), sh.Seed(r, 1))
	// Output:
	// 2000 <nil>
	// seeds 5-2: the last seed is below the first
	// 667 2 5
}
