package checker

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/history"
)

func TestExclusivity(t *testing.T) {
	tests := []struct {
		name   string
		h      *hb
		want   Status
		margin *time.Duration // nil: no pair of distinct grants
	}{
		{"one belief", newHistory().belief("h1", "lock", 1, at(0), at(5000)), OK, nil},
		{"handover with a gap", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(5200), at(9000)), OK, dur(200 * time.Millisecond)},
		{"handover touching: closed at start, open at end", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(5000), at(9000)), OK, dur(0)},
		{"overlap", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(4700), at(9000)), Violated, dur(-300 * time.Millisecond)},
		{"one grant believed twice (deadline, then re-confirmed)", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h1", "lock", 1, at(4000), at(9000)), OK, nil},
		{"one token for two holders is two grants", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 1, at(4000), at(9000)), Violated, dur(-time.Second)},
		{"other resources do not conflict", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "other", 1, at(1000), at(9000)), OK, nil},
		{"an instant act inside another's belief", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(3000), at(3000)), Violated, dur(-2 * time.Second)},
		{"an instant act at the start of another's belief", newHistory().
			belief("h1", "lock", 1, at(3000), at(3000)).
			belief("h2", "lock", 2, at(3000), at(6000)), Violated, dur(-3 * time.Second)},
		{"a long belief hidden behind a short one still conflicts", newHistory().
			belief("h1", "lock", 1, at(0), at(20_000)).
			belief("h2", "lock", 2, at(1000), at(2000)).
			belief("h3", "lock", 3, at(10_000), at(12_000)), Violated, dur(-19 * time.Second)},
		{"drift within rho: an overlap is a bug", newHistory().drift(10_000_000).
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(4700), at(9000)), Violated, dur(-300 * time.Millisecond)},
		{"drift beyond rho, no overlap", newHistory().drift(30_000_000).
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(5100), at(9000)), OK, dur(100 * time.Millisecond)},
		{"drift beyond rho and an overlap: assumption exceeded", newHistory().drift(30_000_000).
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(4700), at(9000)), Unknown, dur(-300 * time.Millisecond)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Exclusivity(tt.h.build())
			assert.Equal(t, "P1", r.Property)
			assert.Equal(t, tt.want, r.Status, r.Summary)
			assert.Equal(t, tt.margin, r.MarginMin)
			assert.Equal(t, tt.want == Unknown, r.AssumptionExceeded)
			if tt.want == OK {
				assert.Empty(t, r.Violations)
				return
			}
			require.NotEmpty(t, r.Violations)
			assert.Len(t, r.Violations[0].Evidence, 2, "both beliefs")
		})
	}
}

func dur(d time.Duration) *time.Duration { return &d }

func TestExclusivityEvidence(t *testing.T) {
	h := newHistory().
		belief("h1", "lock", 3, at(1000), at(6000)).
		belief("h2", "lock", 4, at(5500), at(9000)).
		fault(history.FaultPause, "h1", at(2000), at(4000)).
		fault(history.FaultPause, "h3", at(7000), at(8000)).
		build()
	h.Beliefs[0].LastAct = at(5800)
	r := Exclusivity(h)
	require.Equal(t, Violated, r.Status)
	v := r.Violations[0]
	assert.Equal(t, at(5500), v.At)
	assert.Contains(t, v.Detail, "h1 token 3 and h2 token 4")
	assert.Contains(t, v.Evidence[0], "h1 believed \"lock\" token 3 from 1.000000s to 6.000000s (ended by deadline, last act 5.800000s)")
	require.Len(t, v.Faults, 1, "the pause during h1's belief, not the later one")
	assert.Equal(t, "h1", v.Faults[0].Node())
	assert.Contains(t, r.Summary, "1 violation")
}

func TestExclusivityAssumptionSummary(t *testing.T) {
	r := Exclusivity(newHistory().drift(30_000_000).
		belief("h1", "lock", 1, at(0), at(5000)).
		belief("h2", "lock", 2, at(4700), at(9000)).build())
	assert.Contains(t, r.Summary, "drift +30000 ppm exceeded rho 10000 ppm")
	assert.NotEmpty(t, r.Violations, "the overlaps stay as evidence")
}

func TestExclusivityPanicsOnBackwardsBelief(t *testing.T) {
	h := newHistory().belief("h1", "lock", 1, at(5000), at(1000)).build()
	assert.PanicsWithValue(t, "checker: invariant belief-ends-after-start: "+describeBelief(&h.Beliefs[0]),
		func() { Exclusivity(h) })
}

// TestExclusivityProperty draws handovers that never overlap: P1 holds and
// the margin is the smallest gap. Moving one belief to start before its
// predecessor ends breaks it.
func TestExclusivityProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 30).Draw(t, "beliefs")
		b := newHistory()
		now, smallest, prevLength := at(0), time.Duration(1<<62), time.Duration(-1)
		for i := range n {
			gap := time.Duration(rapid.Int64Range(0, 2000).Draw(t, "gap_ms")) * time.Millisecond
			length := time.Duration(rapid.Int64Range(0, 6000).Draw(t, "length_ms")) * time.Millisecond
			if gap == 0 && (length == 0 || prevLength == 0) {
				gap = time.Millisecond // an instant shares its start with what starts there
			}
			if i > 0 {
				smallest = min(smallest, gap)
			}
			start := now.Add(gap)
			b.belief(fmt.Sprintf("h%d", rapid.IntRange(1, 3).Draw(t, "holder")), "lock", uint64(i+1), start, start.Add(length))
			now, prevLength = start.Add(length), length
		}
		r := Exclusivity(b.build())
		require.Equal(t, OK, r.Status, r.Summary)
		require.NotNil(t, r.MarginMin)
		require.Equal(t, smallest, *r.MarginMin)

		// Move one belief so that it starts inside its predecessor (or, if
		// that is an instant, at the same instant).
		i := rapid.IntRange(1, n-1).Draw(t, "shifted")
		h := b.build()
		prev, cur := &h.Beliefs[i-1], &h.Beliefs[i]
		length := cur.End - cur.Start
		cur.Start = prev.Start
		if prev.End > prev.Start {
			cur.Start += history.Time(rapid.Int64Range(0, int64(prev.End-prev.Start)-1).Draw(t, "into"))
		}
		cur.End = cur.Start + length
		r = Exclusivity(h)
		require.Equal(t, Violated, r.Status, r.Summary)
		require.LessOrEqual(t, *r.MarginMin, time.Duration(0))
		if prev.End > prev.Start {
			require.Negative(t, *r.MarginMin)
		}
	})
}

// A holder's instant belief at the end of its own earlier belief still
// shares that instant with another grant's (rapid found it: the summary
// kept the interval, which ends before the instant, and lost the instant).
func TestExclusivityInstantAtTheEndOfItsOwnBelief(t *testing.T) {
	h := newHistory().
		belief("h1", "r", 1, at(8000), at(9000)).
		belief("h1", "r", 1, at(9000), at(9000)).
		belief("h2", "r", 1, at(9000), at(9000)).build()
	r := Exclusivity(h)
	require.Equal(t, Violated, r.Status, r.Summary)
	assert.Contains(t, r.Violations[0].Detail, "both believed")
}

// TestExclusivityMatchesBruteForce compares the sweep with the obvious
// quadratic check on random beliefs of a few holders and tokens.
func TestExclusivityMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := newHistory()
		for range rapid.IntRange(0, 12).Draw(t, "beliefs") {
			start := at(rapid.Int64Range(0, 20).Draw(t, "start_s") * 1000)
			length := time.Duration(rapid.Int64Range(0, 5).Draw(t, "length_s")) * time.Second
			b.belief(fmt.Sprintf("h%d", rapid.IntRange(1, 3).Draw(t, "holder")),
				fmt.Sprintf("r%d", rapid.IntRange(1, 2).Draw(t, "resource")),
				rapid.Uint64Range(1, 3).Draw(t, "token"), start, start.Add(length))
		}
		h := b.build()
		want := OK
		if len(h.Beliefs) == 0 {
			want = Unknown // no data is never a pass
		}
		for i := range h.Beliefs {
			for j := range i {
				if overlapsBrute(&h.Beliefs[i], &h.Beliefs[j]) {
					want = Violated
				}
			}
		}
		require.Equal(t, want, Exclusivity(h).Status)
	})
}

// overlapsBrute reports whether two beliefs of distinct grants on one
// resource share an instant: [Start, End), or {Start} for an instant.
func overlapsBrute(a, b *history.BeliefInterval) bool {
	if a.Resource != b.Resource || (a.Holder == b.Holder && a.Token == b.Token) {
		return false
	}
	in := func(t history.Time, x *history.BeliefInterval) bool {
		return t == x.Start || (x.Start <= t && t < x.End)
	}
	return in(a.Start, b) || in(b.Start, a)
}
