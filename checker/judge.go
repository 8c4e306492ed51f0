package checker

import "github.com/leasesim/leasesim/history"

// Judgement is what a run reports of its history: the verdicts (Check),
// the metrics (Measure) and the behaviours reached (Cover).
type Judgement struct {
	Checks   []Result
	Metrics  Metrics
	Coverage Coverage
}

// Judge returns what Check, Measure and Cover return for h, Coverage zero
// when opts.Skip (coverage is part of checking). It computes once what
// more than one of them reads: the at-least-once accounting (P6 and
// Measure) and the repeated side effects (P6, Measure and Cover).
func Judge(h *history.History, opts Options) Judgement {
	a := newAnalysis(h)
	j := Judgement{Checks: check(a, opts), Metrics: measure(a)}
	if !opts.Skip {
		j.Coverage = cover(a)
	}
	return j
}

// analysis is a history with what several checkers compute from it, each
// computed when first asked for and then kept.
type analysis struct {
	h       *history.History
	rw      *rework
	first   []int32      // firstEffects(h.Effects), nil until asked for
	opRows  []opRow      // opRows(h), nil until asked for
	opLives []clientLife // the client lives opRows names, with opRows
	order   []int32      // the rows in processed order; empty if they are in it, nil until asked for
	// silence are the silent holders (silentHolders), once silenceFound.
	silence      []silentGrant
	silenceFound bool
}

func newAnalysis(h *history.History) *analysis { return &analysis{h: h} }

// rework returns the history's at-least-once accounting (measureRework).
func (a *analysis) rework() *rework {
	if a.rw == nil {
		rw := measureRework(a)
		a.rw = &rw
	}
	return a.rw
}

// firstEffects returns firstEffects(h.Effects).
func (a *analysis) firstEffects() []int32 {
	if a.first == nil {
		a.first = firstEffects(a.h.Effects)
	}
	return a.first
}

// duplicateEffects counts unfenced side effects performed more than once:
// for each (resource, id), every performance after the first.
func (a *analysis) duplicateEffects() int {
	dups := 0
	for i, f := range a.firstEffects() {
		if int(f) != i {
			dups++
		}
	}
	return dups
}
