package checker

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/leasesim/leasesim/history"
)

// Exclusivity checks P1, exclusivity in true time: on every resource, no
// two beliefs of distinct grants overlap. A grant is a (holder, incarnation,
// token) triple, so a token a buggy grantor handed to two holders, or to a
// holder and its restarted self, is two grants. A belief
// covers [Start, End) in true time; a belief of one instant (Start == End)
// covers that instant, and two beliefs that start at the same instant
// overlap.
//
// The result carries MarginMin, the smallest next.Start − prev.End over
// consecutive beliefs of distinct grants (negative is an overlap). An
// overlap while some clock drifted beyond rho (h.MaxDriftPPB above
// h.Lease.RhoPPB) breaks the property's assumption, not the property: the
// result is then Unknown with AssumptionExceeded set, never Violated and
// never OK.
func Exclusivity(h *history.History) Result { return checkExclusivity(newAnalysis(h)) }

// checkExclusivity is Exclusivity on an analysis that other checkers may
// share (Judge).
func checkExclusivity(a *analysis) Result {
	h := a.h
	v := newVerdict(h, "P1")
	reportedBeliefs(v, a)
	bs := h.Beliefs
	order := sortedIndices(len(bs), func(a, b int32) int {
		x, y := &bs[a], &bs[b]
		// Longer first among equal starts, so that an instant belief is
		// checked against the longer one.
		return cmp.Or(cmp.Compare(x.Resource, y.Resource), cmp.Compare(x.Start, y.Start), cmp.Compare(y.End, x.End))
	})
	var margin *time.Duration
	overlaps := 0
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && bs[order[hi]].Resource == bs[order[lo]].Resource {
			hi++
		}
		m, n := checkResourceBeliefs(v, bs, order[lo:hi])
		overlaps += n
		if m != nil && (margin == nil || *m < *margin) {
			margin = m
		}
		lo = hi
	}
	return exclusivityResult(v, margin, overlaps)
}

// exclusivityResult turns what the sweep found into P1's result.
func exclusivityResult(v *verdict, margin *time.Duration, overlaps int) Result {
	h := v.h
	ok := fmt.Sprintf("no two grants believed at once across %d beliefs", len(h.Beliefs))
	if margin != nil {
		ok += fmt.Sprintf("; smallest margin %v", *margin)
	}
	if driftExceeded(h) {
		ok += "; " + driftNote(h) + " but exclusivity held anyway"
	}
	r := v.result("exclusivity", ok)
	r.MarginMin = margin
	if overlaps > 0 && driftExceeded(h) {
		r.Status = Unknown
		r.AssumptionExceeded = v.undecided == 0 // no other reason to be unknown
		r.Summary = fmt.Sprintf("assumption exceeded: %s, so %d overlap(s) of beliefs are not a bug "+
			"(first: %s)", driftNote(h), overlaps, r.Violations[0].Detail)
		if len(v.unknown) > 0 {
			r.Summary += "; " + strings.Join(v.unknown, "; ")
		}
	}
	return r
}

// believed is the running summary of earlier beliefs on one resource: the
// belief that reaches furthest, and the furthest-reaching belief of another
// grant than that one. Any later belief that overlaps an earlier one of a
// different grant overlaps one of these two.
type believed struct {
	first, second *history.BeliefInterval
}

// prior returns the earlier belief of a grant other than g that reaches
// furthest, or nil.
func (s *believed) prior(g grantID) *history.BeliefInterval {
	if s.first != nil && beliefGrant(s.first) != g {
		return s.first
	}
	return s.second
}

// add folds b into the summary.
func (s *believed) add(b *history.BeliefInterval) {
	g := beliefGrant(b)
	switch {
	case s.first == nil:
		s.first = b
	case beliefGrant(s.first) == g:
		if reachesFurther(b, s.first) {
			s.first = b
		}
	case reachesFurther(b, s.first):
		s.first, s.second = b, s.first
	case s.second == nil || reachesFurther(b, s.second):
		s.second = b
	}
}

// reachesFurther reports whether a covers a later instant than b: a belief
// covers [Start, End), and an instant (Start == End) covers its Start, so
// of two that end together the instant reaches further.
func reachesFurther(a, b *history.BeliefInterval) bool {
	if a.End != b.End {
		return a.End > b.End
	}
	return a.Start == a.End && b.Start != b.End
}

func beliefGrant(b *history.BeliefInterval) grantID {
	return grantID{holder: b.Holder, incarnation: b.Incarnation, token: b.Token}
}

// checkResourceBeliefs sweeps the beliefs of one resource, sorted by start,
// and returns the smallest margin and the number of overlaps.
func checkResourceBeliefs(v *verdict, bs []history.BeliefInterval, order []int32) (*time.Duration, int) {
	var s believed
	var margin *time.Duration
	overlaps := 0
	for _, i := range order {
		b := &bs[i]
		if b.End < b.Start {
			panic(fmt.Sprintf("checker: invariant belief-ends-after-start: %s", describeBelief(b)))
		}
		if p := s.prior(beliefGrant(b)); p != nil {
			m := b.Start.Sub(p.End)
			if margin == nil || m < *margin {
				margin = &m
			}
			if b.Start < p.End || b.Start == p.Start {
				overlaps++
				v.violateDuring(b.Start, p.Start, b.Start,
					fmt.Sprintf("%s token %d and %s token %d both believed they held %q at %v (overlap %v)",
						believer(p, b), p.Token, believer(b, p), b.Token, b.Resource, b.Start, overlap(p, b)),
					describeBelief(p), describeBelief(b))
			}
		}
		s.add(b)
	}
	return margin, overlaps
}

// believer names b's holder, with its incarnation when other is another
// incarnation of the same holder: a restarted process is a new actor.
func believer(b, other *history.BeliefInterval) string {
	if b.Holder == other.Holder && b.Incarnation != other.Incarnation {
		return fmt.Sprintf("%s (incarnation %d)", b.Holder, b.Incarnation)
	}
	return b.Holder
}

// overlap is how long two beliefs overlap, p starting no later than b.
func overlap(p, b *history.BeliefInterval) time.Duration {
	end := min(p.End, b.End)
	if end <= b.Start {
		return 0
	}
	return end.Sub(b.Start)
}
