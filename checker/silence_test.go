package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
)

// No data is never a pass: a holder that was granted a lease and reported
// no belief for it makes P1 unknown, with the holder named.
func TestExclusivitySilentHolder(t *testing.T) {
	tests := []struct {
		name    string
		h       *hb
		want    Status
		mention string
	}{
		{"granted and believed", newHistory().
			acquire("h1", "lock", 1, at(1000)).
			belief("h1", "lock", 1, at(1000), at(5000)), OK, ""},
		{"granted, no belief at all", newHistory().
			acquire("h1", "lock", 1, at(1000)), Unknown, "holder h1 was granted lock (token 1)"},
		{"granted, only an action inferred later", newHistory().
			acquire("h1", "lock", 1, at(1000)).
			belief("h1", "lock", 1, at(3000), at(3000)), Unknown, "reported no belief"},
		{"granted, a belief inferred from an action at once", newHistory().
			acquire("h1", "lock", 1, at(1000)).
			inferred("h1", "lock", 1, at(1000)), Unknown, "reported no belief"},
		{"one grant ignored, another believed", newHistory().
			acquire("h1", "lock", 1, at(1000)).
			acquire("h1", "lock", 2, at(8000)).
			belief("h1", "lock", 2, at(8000), at(9000)), OK, ""},
		{"a grant that arrived too late to believe", newHistory().
			acquire("h1", "lock", 1, at(1000)).calledAt(at(-4000)).
			belief("h2", "lock", 2, at(7000), at(9000)), OK, ""},
		{"the grant never reached the holder", newHistory().
			acquire("h1", "lock", 1, at(1000)).lost().
			belief("h2", "lock", 2, at(7000), at(9000)), OK, ""},
		{"no belief and no grant: nothing to judge", newHistory(), Unknown, "nothing to judge"},
		{"only beliefs inferred from actions", newHistory().
			inferred("h1", "lock", 1, at(1000)), Unknown, "only inferred from actions"},
		{"drift beyond rho and a silent holder: not only an assumption", newHistory().drift(30_000_000).
			acquire("h3", "lock", 9, at(100)).
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(4700), at(9000)), Unknown, "holder h3 was granted"},
		{"an overlap still violates although another holder is silent", newHistory().
			acquire("h3", "lock", 9, at(100)).
			belief("h1", "lock", 1, at(0), at(5000)).
			belief("h2", "lock", 2, at(4700), at(9000)), Violated, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Exclusivity(tc.h.build())
			assert.Equal(t, tc.want, r.Status, r.Summary)
			assert.Contains(t, r.Summary, tc.mention)
			assert.False(t, r.AssumptionOnly(), "a silent holder is unknown for want of data, not a broken assumption")
		})
	}
}

// inferred adds a belief the recorder inferred from an action at t alone.
func (b *hb) inferred(holder, res string, token uint64, t history.Time) *hb {
	b.h.Beliefs = append(b.h.Beliefs, history.BeliefInterval{Holder: holder, Resource: res, Token: token,
		Start: t, End: t, Reason: history.EndLost, LastAct: t, Inferred: true})
	return b
}
