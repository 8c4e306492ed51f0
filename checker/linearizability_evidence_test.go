package checker

import (
	"strings"
	"testing"

	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestGrantorClockLabels(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"renew(h1, tok 1) -> ok @g=58m15.074755937s", "renew(h1, tok 1) -> ok at grantor clock 58m15.074756s"},
		{"succeeded at g=5.15s, but tok 1 expired at g=5s, before g=5.15s",
			"succeeded at grantor clock 5.15s, but tok 1 expired at grantor clock 5s, before grantor clock 5.15s"},
		{"held by h1 tok 1 until 58m13.921659508s; g=58m8.871659508s",
			"held by h1 tok 1 until grantor clock 58m13.92166s; grantor clock 58m8.87166s"},
		{"ErrHeld to h2, which holds tok 3 until g=1h2m3.5s", "ErrHeld to h2, which holds tok 3 until grantor clock 1h2m3.5s"},
		{"grantor time went backwards: g=500ms after g=1µs", "grantor time went backwards: grantor clock 500ms after grantor clock 1µs"},
		{`write(h1, tok 1, "x"="g=5s") -> ok`, `write(h1, tok 1, "x"="grantor clock 5s") -> ok`}, // a value that looks like one is relabelled too, harmlessly
		{"held until further notice; highest tok 2", "held until further notice; highest tok 2"},
	} {
		assert.Equal(t, tc.want, grantorClock(tc.in), tc.in)
	}
}

// TestP3EvidenceSpeaksTrueTime: every instant in a lease-store violation
// is true time since the run's start, and every grantor reading says it is
// one, with a line that explains the grantor clock.
func TestP3EvidenceSpeaksTrueTime(t *testing.T) {
	h := linHistoryOf(linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""), linGrant("h2", span{2, 3, 4}, 2, 0, ""))
	ops := h.CopyOps()
	for i := range ops { // the grantor's clock started long before the run
		ops[i].Output.Clock += 58 * time.Minute
	}
	h.SetOps(ops)
	r := Linearizability(h, Options{})
	require.Equal(t, Violated, r.Status)
	v := r.Violations[0]
	text := v.Detail + "\n" + strings.Join(v.Evidence, "\n")
	assert.NotContains(t, text, "g=", "no unlabelled grantor reading:\n%s", text)
	assert.Contains(t, v.Detail, "acquire(h2, ttl 5s) -> tok 2 at grantor clock 58m3s cannot be linearised")
	assert.Contains(t, v.Evidence[0], "sent 2.000000s, processed 3.000000s by grantor (grantor clock 58m3s) → ok token 2")
	assert.Equal(t, "state before it: held by h1 tok 1 until grantor clock 58m5.15s; grantor clock 58m0.1s", v.Evidence[1])
	last := v.Evidence[len(v.Evidence)-1]
	assert.True(t, strings.HasPrefix(last, "grantor clock: the reading of the grantor's monotonic clock"), last)
	assert.Contains(t, last, "processed this operation at true time 3.000000s, when its clock read 58m3s")

	reg := Linearizability(linHistoryOf(linWrite("h2", span{0, 0.1, 0.2}, 2, "b", lease.CodeOK, 2),
		linWrite("h1", span{1, 1.1, 1.2}, 1, "a", lease.CodeOK, 1)), Options{})
	require.Equal(t, Violated, reg.Status)
	for _, e := range reg.Violations[0].Evidence {
		assert.NotContains(t, e, "grantor clock", "the fenced resource has no grantor clock")
	}
}

// TestVisualisationNamesItsRows: the page has a title and a header that
// say what it shows, and its rows are labelled with node names, not
// porcupine's client numbers.
func TestVisualisationNamesItsRows(t *testing.T) {
	h := linHistoryOf(linGrant("h1", span{0, 0.1, 0.2}, 1, 0, ""), linGrant("h2", span{2, 3, 4}, 2, 0, ""))
	r := Linearizability(h, Options{Visualize: true})
	require.Equal(t, Violated, r.Status)
	page := string(r.Visualization)
	for _, tc := range []struct {
		name, text string
		want       bool
	}{
		{"porcupine's title is gone", "<title>Porcupine</title>", false},
		{"the title names the property", "<title>P3 linearizability · leasesim</title>", true},
		{"a header says what the page shows", "P3 linearizability: porcupine's view of the run", true},
		{"the rows' node names", `const leasesimClients = ["h1","h2"]`, true},
		{"row labels come from the node names", clientLabel, true},
		{"no row is labelled by number", porcupineLabel, false},
		{"no row width is measured by number", porcupineLabelTag, false},
	} {
		assert.Equal(t, tc.want, strings.Contains(page, tc.text), tc.name)
	}
}

func TestDecorateLeavesAnUnknownPageWhole(t *testing.T) {
	page := "<html><head><title>Other</title></head><body><script>draw(i)</script></body></html>"
	got := string(decorate([]byte(page), []string{"h1"}))
	assert.NotContains(t, got, "leasesimClients", "no label script where there are no labels to change")
	assert.Contains(t, got, "<title>Other</title>")
	assert.Contains(t, got, "P3 linearizability: porcupine's view of the run")
}
