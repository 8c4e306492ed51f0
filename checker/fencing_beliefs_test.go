package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// TestFencingFromBeliefs: an implementation with a spec of its own shows
// its grants through what its holders believed. A write under a token its
// writer believed (by the time the store processed it) is issued; one under
// a token only another holder believed, or believed only later, or that
// nobody believed, is not; one token believed by two holders was issued
// twice. A belief inferred from actions alone issues nothing. In leasesim's
// protocol beliefs issue nothing: the grantor's replies do.
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
			belief("h1", "lock", 1, at(0), at(5000)).write("h2", "lock", 1, at(100), ok), Violated, "had not believed"},
		{"one token believed by two holders (a counter lost in a restart)", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).belief("h2", "lock", 1, at(6000), at(9000)),
			Violated, "h1 and h2 both believed they held \"lock\" under token 1"},
		{"the same holder believing again under its token", newHistory().
			belief("h1", "lock", 1, at(0), at(5000)).belief("h1", "lock", 1, at(6000), at(9000)), OK, ""},
		{"an inferred belief issues nothing", newHistory().
			inferred("h1", "lock", 1, at(100)).write("h1", "lock", 1, at(100), ok), Violated, "had not believed"},
		{"a belief that starts after the write", newHistory().
			write("h1", "lock", 1, at(100), ok).belief("h1", "lock", 1, at(3000), at(5000)), Violated, "had not believed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.h.build()
			h.Spec = "expiring-key"
			r := Fencing(h)
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

// TestBeliefsIssueNothingInLeasesimsProtocol: with leasesim's lease store,
// only the grantor's replies issue tokens; a holder that believes a token it
// was never granted (or was refused) and writes under it fails P2.
func TestBeliefsIssueNothingInLeasesimsProtocol(t *testing.T) {
	granted := newHistory().acquire("a", "lock", 5, at(0)).belief("a", "lock", 5, at(0), at(9000)).
		belief("b", "lock", 5, at(15_000), at(25_000)).write("b", "lock", 5, at(20_000), lease.CodeOK).build()
	r := Fencing(granted)
	require.Equal(t, Violated, r.Status, r.Summary)
	assert.Contains(t, r.Violations[0].Detail, "which the grantor issued to a")

	refused := newHistory().refused("b", "lock", at(0), lease.CodeHeld).belief("b", "lock", 1, at(100), at(5000)).
		write("b", "lock", 1, at(200), lease.CodeOK).build()
	r = Fencing(refused)
	require.Equal(t, Violated, r.Status, r.Summary)
	assert.Contains(t, r.Violations[0].Detail, "never issued to it")
}

// TestBeliefsIssueWithoutLeaseStoreOperations: a history with no
// lease-store operation at all (a goroutine host's, whose code only reports
// beliefs and writes) has its grants in its beliefs, whatever its spec.
func TestBeliefsIssueWithoutLeaseStoreOperations(t *testing.T) {
	h := newHistory().belief("h1", "lock", 1, at(0), at(5000)).write("h1", "lock", 1, at(100), lease.CodeOK).
		write("h2", "lock", 1, at(200), lease.CodeOK).build()
	r := Fencing(h)
	require.Equal(t, Violated, r.Status, r.Summary)
	assert.Contains(t, r.Violations[0].Detail, "h2 with token 1, which the grantor never issued to it")
	assert.Len(t, r.Violations, 1, "h1 believed its token")
}
