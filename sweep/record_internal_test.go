package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/checker"
)

func TestReasonOfGroupsRunsThatShareACause(t *testing.T) {
	tests := []struct {
		summary, want string
	}{
		{"timed out after 10s", "P3 linearizability: timed out after Ns"},
		{"timed out after 2.5s; and 3 more undecided", "P3 linearizability: timed out after Ns"},
		{"no history to check", "P3 linearizability: no history to check"},
		{"op 1234 at 17m3.2s undecided", "P3 linearizability: op N at NmNs undecided"},
	}
	for _, tt := range tests {
		got := reasonOf(checker.Result{Property: "P3", Name: "linearizability", Summary: tt.summary})
		assert.Equal(t, tt.want, got, tt.summary)
	}
	long := reasonOf(checker.Result{Property: "P4", Name: "liveness", Summary: string(make([]byte, 500))})
	assert.LessOrEqual(t, len(long), maxReasonLen+len("…"))
}
