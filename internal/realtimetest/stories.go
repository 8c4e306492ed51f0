package realtimetest

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// StoriesEnv names the environment variable that switches the verdict
// stories on: the number of times each is run (make realtime-stories sets
// it). Unset, a story is skipped, so `go test` and `make test` never
// assert a verdict that depends on timing.
const StoriesEnv = "LEASESIM_REALTIME_STORIES"

// MinRateEnv names the environment variable with the lowest reproduction
// rate, in percent, at which a story passes (default 100).
const MinRateEnv = "LEASESIM_REALTIME_MIN_RATE"

// Story runs one verdict story the number of times StoriesEnv says, and
// prints how often it reproduced: "realtime story NAME: reproduced K/N
// (P%)". run performs one real run and returns nil when the verdicts were
// the expected ones, or an error saying which were not. Each run is a
// subtest (run=I), so its cleanups run before the next; a failure to set
// a run up fails that subtest (run calls t.Fatal). The test fails when the
// rate is below MinRateEnv.
func Story(t *testing.T, name string, run func(t *testing.T) error) {
	t.Helper()
	runs, minRate := settings(t)
	reproduced := 0
	for i := range runs {
		t.Run(fmt.Sprintf("run=%d", i+1), func(t *testing.T) {
			if err := run(t); err != nil {
				t.Logf("not reproduced: %v", err)
				return
			}
			reproduced++
		})
	}
	rate := 100 * float64(reproduced) / float64(runs)
	line := fmt.Sprintf("realtime story %s: reproduced %d/%d (%.0f%%)", name, reproduced, runs, rate)
	fmt.Println(line)
	if rate < minRate {
		t.Errorf("%s, below %s=%.0f%%", line, MinRateEnv, minRate)
	}
}

// settings reads StoriesEnv and MinRateEnv, skipping the test when the
// stories are off and failing it on a value that is not a number.
func settings(t *testing.T) (runs int, minRate float64) {
	t.Helper()
	v, ok := os.LookupEnv(StoriesEnv)
	if !ok {
		t.Skipf("a verdict story that depends on timing: run it with make realtime-stories (%s=N)", StoriesEnv)
	}
	runs, err := strconv.Atoi(v)
	if err != nil || runs < 1 {
		t.Fatalf("%s=%q: want a positive number of runs", StoriesEnv, v)
	}
	minRate = 100
	if v, ok := os.LookupEnv(MinRateEnv); ok {
		minRate, err = strconv.ParseFloat(v, 64)
		if err != nil || minRate < 0 || minRate > 100 {
			t.Fatalf("%s=%q: want a percentage in [0, 100]", MinRateEnv, v)
		}
	}
	return runs, minRate
}
