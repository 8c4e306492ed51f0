package reports

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
)

func TestMetricRowsDropUnitSuffixes(t *testing.T) {
	m := checker.Aggregate(checker.Metrics{Runs: 1, SimTime: time.Minute, StoreWrites: 3, UnitsExecuted: 3,
		UnitsReexecuted: 1, FailoverSamples: []time.Duration{1500 * time.Millisecond}})
	rows, err := metricRows(struct {
		checker.Metrics
		Wall  float64 `json:"wall_seconds"`
		Drift int64   `json:"max_drift_ppb"`
	}{m, 2.5, 120_000})
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range rows {
		assert.NotContains(t, got, r.Name, "display names are distinct")
		got[r.Name] = r.Value
		for _, unit := range []string{"_ns", "_seconds", "_per_s", "_ppb", "_"} {
			assert.False(t, strings.Contains(r.Name, unit), "display name %q keeps %q", r.Name, unit)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"failover p99", "1.5s"},
		{"sim time", "1m0s"},
		{"store writes", "3"},
		{"store writes rate", "0.05/s"},
		{"wall", "2.500s"},
		{"max drift", "+120 ppm"},
		{"reexecuted fraction", "0.3333"},
	} {
		assert.Equal(t, tc.want, got[tc.name], tc.name)
	}
}

func TestRunJSONKeepsUnitSuffixes(t *testing.T) {
	run, out := kleppmann(t)
	var text strings.Builder
	require.NoError(t, TextOptions{}.WriteRunText(&text, run, out.History))
	assert.Contains(t, text.String(), "failover p99")
	assert.NotContains(t, text.String(), "failover_p99_ns")
	b, err := json.Marshal(run)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"failover_p99_ns"`, "the JSON keeps its keys")
}

// A metric the run could not measure shows as n/a with why, never as its
// zero, and the list of them is not a row of its own.
func TestMetricRowsShowNotApplicable(t *testing.T) {
	m := checker.Metrics{Runs: 1, Acquisitions: 4, NotApplicable: map[string]string{"renewals": "not recorded"}}
	rows, err := metricRows(m)
	require.NoError(t, err)
	got := map[string]string{}
	for _, r := range rows {
		got[r.Name] = r.Value
		assert.NotContains(t, r.Name, "not applicable")
	}
	assert.Equal(t, "n/a (not recorded)", got["renewals"])
	assert.Equal(t, "0", got["renewal failures"], "only what is named")
	assert.Equal(t, "4", got["acquisitions"])
}
