package checker

import (
	"time"

	"github.com/leasesim/leasesim/history"
)

// Options configures Check.
type Options struct {
	// Skip runs no checker; Check returns nil. Recording still happens, so
	// the run is the same either way.
	Skip bool
	// LinearizabilityTimeout bounds the porcupine search (P3); running out
	// gives Unknown, never OK. Zero means DefaultLinearizabilityTimeout.
	LinearizabilityTimeout time.Duration
	// Visualize asks P3 for porcupine's visualisation of the run on a
	// violation or an unknown verdict, returned in its Result
	// (Visualization) for reports to write; the checkers write no file.
	// Rendering it costs a porcupine run over the partitions the
	// checker proved illegal, so sweeps leave it off.
	Visualize bool
}

// DefaultLinearizabilityTimeout bounds one porcupine check.
const DefaultLinearizabilityTimeout = 10 * time.Second

// Check runs every property checker on h, in property order.
func Check(h *history.History, opts Options) []Result {
	if opts.Skip {
		return nil
	}
	rs := []Result{
		Exclusivity(h),
		Fencing(h),
		Linearizability(h, opts),
		Liveness(h),
		Handoff(h),
		AtLeastOnce(h),
	}
	if r, ok := Premises(h); ok {
		rs = append(rs, r)
	}
	return rs
}
