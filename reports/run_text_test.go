package reports

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
)

func TestWriteRunText(t *testing.T) {
	run, out := kleppmann(t)
	violatedRun, violatedOut := withViolation(run, out, fencedWrite(t, out.History).Processed)
	stopped := run
	stopped.Stopped = "limit: events"
	tests := []struct {
		name    string
		opts    TextOptions
		run     Run
		out     *history.History
		want    []string
		notWant []string
	}{
		{
			name: "the run, plain", run: run, out: out.History,
			want: []string{
				"leasesim run  kleppmann-gc-pause  impl correct  seed 1",
				"P1 exclusivity", "P2 fencing", "P6 at-least-once",
				"Events     ", "60.000 simulated seconds",
				"Speed      12000x acceleration",
				"Trace      " + run.TraceHash,
				"Replay     simrun run --scenario kleppmann-gc-pause --seed 1",
				"Faults     ", "1 pause",
				"Metrics", "acquisitions",
				"Fenced (stale actions refused: 1)",
				"13.010421s  h1 write under token 1 refused by store (it had accepted token 2)",
			},
			notWant: []string{"\x1b[", "Violations", "STOPPED"},
		},
		{
			name: "colour on a terminal", opts: TextOptions{Color: true}, run: run, out: out.History,
			want: []string{"\x1b[1mleasesim run\x1b[0m"},
		},
		{
			name: "a violation with its evidence and the faults active then", run: violatedRun, out: violatedOut.History,
			want: []string{
				"Violations (1)",
				"P2 at 13.010421s: store accepted token 1 after token 2",
				"      write lock #1 by h1 accepted at 13.010s",
				// A crafted violation without the checker's list: only the
				// faults active then, and the pause has ended.
				"faults: none active, none ended within one TTL (5s) before on the nodes involved",
				"VIOLATED",
			},
		},
		{
			name: "a violation in colour is red", opts: TextOptions{Color: true}, run: violatedRun, out: violatedOut.History,
			want: []string{ansiBold + ansiRed + "VIOLATED "},
		},
		{
			name: "a run that stopped early says so", run: stopped, out: nil,
			want: []string{"STOPPED EARLY: limit: events"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, tt.opts.WriteRunText(&buf, tt.run, tt.out))
			text := buf.String()
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
			for _, w := range tt.notWant {
				assert.NotContains(t, text, w)
			}
		})
	}
}

// A violation during a fault lists the fault, from the history's windows
// when the checker gave none.
func TestWriteRunTextListsActiveFaults(t *testing.T) {
	run, out := kleppmann(t)
	pause := out.History.Faults[1]
	require.Equal(t, "pause", pause.Kind)
	run, out = withViolation(run, out, pause.Start+1)
	var buf bytes.Buffer
	require.NoError(t, TextOptions{}.WriteRunText(&buf, run, out.History))
	assert.Contains(t, buf.String(), "fault: pause h1 3.007562s–13.007562s, active, began 1ns before")
}

// Without fencing, h1's stale write lands 2.859ms after its pause ended:
// the checker lists the pause as the cause, and the report says when it
// ended relative to the violation.
func TestWriteRunTextListsRecentFaults(t *testing.T) {
	impl, err := mutants.Lookup("mutant/unfenced-resource")
	require.NoError(t, err)
	res, err := scenarios.Execute(scenarios.KleppmannGCPause(), 1, scenarios.Options{Impl: impl})
	require.NoError(t, err)
	run, out := EventRun(res, testWall)
	var buf bytes.Buffer
	require.NoError(t, TextOptions{}.WriteRunText(&buf, run, out.History))
	text := buf.String()
	assert.Equal(t, 2, strings.Count(text, "fault: pause h1 3.007562s–13.007562s, ended 2.859ms before"), "P2 and P3:\n%s", text)
	assert.NotContains(t, text, "none active")

	var page bytes.Buffer
	require.NoError(t, WriteRunHTML(&page, run, out))
	assert.Contains(t, page.String(), "ended within one TTL (5s) before on the nodes involved: pause h1 3.007562s–13.007562s, ended 2.859ms before")
}

type failingWriter struct{}

var errDiskFull = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestWriteTextReportsWriteErrors(t *testing.T) {
	run, out := kleppmann(t)
	err := TextOptions{}.WriteRunText(failingWriter{}, run, out.History)
	require.ErrorIs(t, err, errDiskFull)
	assert.Contains(t, err.Error(), "run summary")
	require.ErrorIs(t, TextOptions{}.WriteSweepText(failingWriter{}, sampleSweep()), errDiskFull)
}

func TestTextOptionsFor(t *testing.T) {
	var buf bytes.Buffer
	assert.False(t, TextOptionsFor(&buf).Color, "a buffer is not a terminal")
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, TextOptionsFor(f).Color, "a file is not a terminal")
	t.Setenv("NO_COLOR", "1")
	assert.False(t, TextOptionsFor(os.Stdout).Color, "NO_COLOR turns colour off")
}

func TestWrapText(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"short", 10, []string{"short"}},
		{"one two three four", 9, []string{"one two", "three", "four"}},
		{"averyveryverylongword x", 5, []string{"averyveryverylongword", "x"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, wrapText(tt.in, tt.width), tt.in)
	}
	for _, line := range wrapText(strings.Repeat("word ", 100), noteWidth) {
		assert.LessOrEqual(t, len(line), noteWidth)
	}
}
