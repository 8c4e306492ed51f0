package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/sweep"
)

// The scenarios a sweep skipped are one line, grouped by what they need.
func TestSkippedLine(t *testing.T) {
	for _, tc := range []struct {
		name    string
		skipped []sweep.Skipped
		want    string
	}{
		{"none", nil, ""},
		{"one", []sweep.Skipped{{Scenario: "a", Reason: "needs checkpoints"}}, "skipped 1 scenario: needs checkpoints: a"},
		{"grouped by need, detail dropped", []sweep.Skipped{
			{Scenario: "a", Reason: "needs 3 members (acts on grantor3)"},
			{Scenario: "b", Reason: "needs checkpoints"},
			{Scenario: "c", Reason: "needs 3 members (acts on @leader)"},
		}, "skipped 3 scenarios: needs 3 members: a, c; needs checkpoints: b"},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, skippedLine(tc.skipped)) })
	}
}
