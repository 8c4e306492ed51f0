package tune_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/leasesim/leasesim/sim"
	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/tune"
	"github.com/leasesim/leasesim/workload"
)

// A small workload, tuned over two TTLs and two checkpoint policies on the
// same three seeds, with the store's load limited.
func ExampleRun() {
	var file bytes.Buffer
	if err := workload.Generate(workload.GenParams{
		Name: "small", Workers: 3, Duration: 10 * time.Minute,
		TasksPerMinute: 6, UnitsMin: 20, UnitsMax: 40, UnitTime: 500 * time.Millisecond,
		Env: workload.Env{Latency: ptrTo(sim.UniformDist(time.Millisecond, 5*time.Millisecond)), CrashPerHour: 6},
	}, newRand(), &file); err != nil {
		fmt.Println(err)
		return
	}
	limit := 1.0 // store writes per second of workload
	res, err := tune.Run(context.Background(), tune.Config{
		Workload: "small.jsonl", Open: workload.Bytes(file.Bytes()),
		TTLs:        []time.Duration{2 * time.Second, 10 * time.Second},
		Renews:      []tune.Renew{{Divisor: 3}},
		Checkpoints: []tune.Checkpoint{{EveryUnits: 2}, {}},
		Rho:         tune.DefaultRho, Margin: tune.DefaultMargin,
		Seeds:       sweep.Seeds{First: 1, Last: 3},
		Constraints: tune.Constraints{MaxStoreWritesPerSecond: &limit},
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Configs {
		fmt.Printf("%-34s pareto=%-5v feasible=%v\n", c.Label, c.Pareto, c.Feasible)
	}
	fmt.Println(res.Explanation)
	// Output:
	// ttl=2s renew=ttl/3 checkpoint=2u   pareto=true  feasible=false
	// ttl=2s renew=ttl/3 checkpoint=none pareto=true  feasible=true
	// ttl=10s renew=ttl/3 checkpoint=2u  pareto=false feasible=false
	// ttl=10s renew=ttl/3 checkpoint=none pareto=true  feasible=true
	// ttl=2s renew=ttl/3 checkpoint=none: the lowest p99 failover (1.95 s) of the 2 valid configs that stay under 1 store writes/s (it needs 0.423/s); 3 configs are on the Pareto frontier; its p99 failover rests on only 7 failovers, so more seeds would firm it up.
}

// Renew intervals are durations or fractions of the TTL.
func ExampleParseRenew() {
	for _, s := range []string{"ttl/3", "1s"} {
		r, err := tune.ParseRenew(s)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s under a 6s TTL: %v\n", r, r.For(6*time.Second))
	}
	// Output:
	// ttl/3 under a 6s TTL: 2s
	// 1s under a 6s TTL: 1s
}

// Checkpoint policies: every N units, on a timer, or never.
func ExampleParseCheckpoint() {
	for _, s := range []string{"5u", "30s", "none"} {
		c, err := tune.ParseCheckpoint(s)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: every %d units, interval %v\n", c, c.EveryUnits, c.Interval)
	}
	// Output:
	// 5u: every 5 units, interval 0s
	// 30s: every 0 units, interval 30s
	// none: every 0 units, interval 0s
}

func ptrTo[T any](v T) *T { return &v }

// newRand seeds the generator of the example's workload.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(7, 7)) }
