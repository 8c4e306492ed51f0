package gohost

import (
	"errors"
	"fmt"
	"testing"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
)

// ErrNothingToShrink is Shrink's error for a seed whose run violated no
// property.
var ErrNothingToShrink = errors.New("gohost: nothing to shrink: the run violated no property")

// ErrNotReproducible is Shrink's error for a violation that the same seed
// and schedule did not violate again.
var ErrNotReproducible = errors.New("gohost: the violation did not reproduce")

// Shrunk is a failing seed's smallest schedule that still violates the
// same property.
type Shrunk struct {
	// Target is the property the seed violated first.
	Target checker.Result
	// Original is the schedule the seed ran; Schedule the smallest found.
	Original, Schedule faults.Schedule
	// Hash is the trace hash of the run with the smallest schedule.
	Hash  uint64
	Stats faults.ShrinkStats
}

// Shrink runs sc for seed, takes the first property the run violates, and
// removes and shortens faults (faults.Shrink) for as long as the same seed
// with the smaller schedule still violates it; at most maxAttempts runs
// (0: faults.DefaultShrinkAttempts).
func Shrink(t *testing.T, sc Scenario, seed uint64, maxAttempts int) (*Shrunk, error) {
	t.Helper()
	out := Execute(t, sc, seed, Options{})
	violated := out.Violated()
	if len(violated) == 0 {
		return nil, fmt.Errorf("%w (scenario %s, seed %d)", ErrNothingToShrink, sc.Name, seed)
	}
	target := violated[0]
	fails := func(s faults.Schedule) bool {
		return Execute(t, sc, seed, Options{Schedule: &s}).Verdict(target.Property) == checker.Violated
	}
	if !fails(out.Schedule) {
		return nil, fmt.Errorf("%w: %s of scenario %s seed %d", ErrNotReproducible, target.Property, sc.Name, seed)
	}
	cfg := sc.Config(seed)
	small, stats := faults.Shrink(out.Schedule, fails, faults.ShrinkOptions{Nodes: cfg.nodeNames(), MaxAttempts: maxAttempts})
	res := &Shrunk{Target: target, Original: out.Schedule, Schedule: small, Stats: stats}
	// The last failing run may have been a larger candidate: run the
	// smallest once more for its hash.
	res.Hash = Execute(t, sc, seed, Options{Schedule: &small}).Result.Hash
	return res, nil
}
