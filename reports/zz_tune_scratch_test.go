package reports

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/tune"
)

func TestScratchTune(t *testing.T) {
	rs, _ := tune.ParseList("ttl/3,ttl/6", tune.ParseRenew)
	cs, _ := tune.ParseList("2u,5u,none", tune.ParseCheckpoint)
	lim := 3.0
	res, err := tune.Run(context.Background(), tune.Config{Workload: "../examples/steady-batch.jsonl", TTLs: []time.Duration{time.Second, 2 * time.Second, 10 * time.Second},
		Renews: rs, Checkpoints: cs, Rho: 0.01, Margin: 50 * time.Millisecond, Seeds: sweep.Seeds{First: 1, Last: 3}, Constraints: tune.Constraints{MaxStoreWritesPerSecond: &lim}}, nil)
	if err != nil { t.Fatal(err) }
	WriteTuneText(os.Stdout, res)
	paths, err := WriteTuneDir("/tmp/tt", res)
	t.Log(paths, err)
}
