package checker

import (
	"slices"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// Options configures Check.
type Options struct {
	// Skip runs no checker; Check returns nil. Recording still happens, so
	// the run is the same either way.
	Skip bool
	// SkipProperties names properties not to check, as Result.Property
	// names them ("P3", "premise"): Check gives no Result for them.
	SkipProperties []string
	// Spec is the sequential specification P3 checks the lease store's
	// operations against; its Model and Explain read the history's
	// operations (*history.Operation inputs, *history.Payload outputs).
	// The zero Spec means the one the history names (History.Spec,
	// through model.SpecFor). Only P3 depends on it; the fenced store's
	// operations are always checked against the fenced register.
	Spec model.Spec
	// LinearizabilitySteps bounds the porcupine search (P3) of each
	// resource in model steps, so that the verdict does not depend on the
	// machine or its load; running out gives Unknown ("undecided after N
	// model steps"), never OK. Zero means DefaultLinearizabilitySteps.
	LinearizabilitySteps int64
	// Visualize asks P3 for porcupine's visualisation of the run on a
	// violation or an unknown verdict, returned in its Result
	// (Visualization) for reports to write; the checkers write no file.
	// Rendering it costs a porcupine run over the partitions the
	// checker proved illegal, so sweeps leave it off.
	Visualize bool
}

// DefaultLinearizabilitySteps bounds the porcupine search of one resource:
// half a million model steps. porcupine spends about 15 µs a step on a
// hard history (it caches every state it reaches), so this is a few
// seconds of search, as long as the former 10 s timeout on a loaded
// 2-core machine, but the same verdict on any machine.
const DefaultLinearizabilitySteps = 500_000

// properties are the checkers Check runs, in property order.
var properties = []struct {
	name  string
	check func(*analysis, Options) Result
}{
	{"P1", func(a *analysis, _ Options) Result { return checkExclusivity(a) }},
	{"P2", func(a *analysis, _ Options) Result { return checkFencing(a) }},
	{"P3", func(a *analysis, opts Options) Result { return Linearizability(a.h, opts) }},
	{"P4", func(a *analysis, _ Options) Result { return checkLiveness(a) }},
	{"P5", func(a *analysis, _ Options) Result { return checkHandoff(a) }},
	{"P6", func(a *analysis, _ Options) Result { return atLeastOnce(a) }},
	{"P7", func(a *analysis, _ Options) Result { return checkAccuracy(a) }},
	{"P8", func(a *analysis, _ Options) Result { return checkCompleteness(a) }},
}

// Check runs every property checker on h, in property order, but those
// opts skips.
func Check(h *history.History, opts Options) []Result { return check(newAnalysis(h), opts) }

// check is Check on an analysis that other checkers may share (Judge).
func check(a *analysis, opts Options) []Result {
	h := a.h
	if opts.Skip {
		return nil
	}
	rs := make([]Result, 0, len(properties)+1)
	for _, p := range properties {
		if !slices.Contains(opts.SkipProperties, p.name) {
			rs = append(rs, p.check(a, opts))
		}
	}
	if r, ok := Premises(h); ok && !slices.Contains(opts.SkipProperties, PropertyPremise) {
		rs = append(rs, r)
	}
	return rs
}
