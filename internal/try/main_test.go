package try

import (
	"fmt"
	"testing"
	"time"

	"github.com/leasesim/leasesim/scenarios"
)

func TestTry(t *testing.T) {
	for _, sc := range scenarios.Catalog() {
		start := time.Now()
		out, err := scenarios.Execute(sc, 1, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		h := out.History
		fenced := 0
		for _, op := range h.Ops {
			if op.Out.Err != 0 && op.In.Kind.String() == "write" {
				fenced++
			}
		}
		fmt.Printf("%-22s events=%7d ops=%5d beliefs=%4d units=%4d effects=%4d fencedWrites=%d faults=%d hash=%s err=%v wall=%v accel=%.0f\n",
			sc.Name, out.Sim.Events, len(h.Ops), len(h.Beliefs), len(h.Units), len(h.Effects), fenced, len(out.Faults), out.Sim.TraceHashString(), out.Sim.Err, el, sc.Duration.Seconds()/el.Seconds())
	}
}
