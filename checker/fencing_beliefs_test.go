package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// TestFencingFromBeliefs: an implementation that keeps its own protocol
// shows its grants through what its holders believed. A write under a
// token its writer believed is issued; one under a token only another
// holder believed, or that nobody believed, is not; one token believed by
// two holders was issued twice. A belief inferred from actions alone
// issues nothing.
func TestFencingFromBeliefs(t *testing.T) {
	const ok = lease.CodeOK
	tests := []struct {
		name   string
		h      *hb
		want   Status
		detail string
	}{
		{"writes under believed tokens", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).write("h1", "lock", 1, at(100), ok).
			belief("h2", "lock", 2, at(6000), at(9000)).write("h2", "lock", 2, at(6100), ok), OK, ""},
		{"a token only another holder believed", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).write("h2", "lock", 1, at(100), ok), Violated, "never issued to it"},
		{"one token believed by two holders (a counter lost in a restart)", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).belief("h2", "lock", 1, at(6000), at(9000)),
			Violated, "h1 and h2 both believed they held \"lock\" under token 1"},
		{"the same holder believing again under its token", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).belief("h1", "lock", 1, at(6000), at(9000)), OK, ""},
		{"an inferred belief issues nothing", newHistory().
			inferred("h1", "lock", 1, at(100)).write("h1", "lock", 1, at(100), ok), Violated, "never issued to it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Fencing(tt.h.build())
			require.Equal(t, tt.want, r.Status, r.Summary)
			if tt.want == OK {
				assert.Contains(t, r.Summary, "reported by holders")
				return
			}
			assert.Contains(t, r.Violations[0].Detail, tt.detail)
			assert.NotEmpty(t, r.Violations[0].Evidence)
		})
	}
}
