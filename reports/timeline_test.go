package reports

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
)

// laneNamed returns the lane of a node.
func laneNamed(t *testing.T, tl timeline, name string) lane {
	t.Helper()
	i := slices.IndexFunc(tl.Lanes, func(l lane) bool { return l.Name == name })
	require.GreaterOrEqual(t, i, 0, "lane %s", name)
	return tl.Lanes[i]
}

func barsOf(ln lane, class string) []bar {
	var out []bar
	for _, b := range ln.Bars {
		if b.Class == class {
			out = append(out, b)
		}
	}
	return out
}

func marksOf(ln lane, kind string) []mark {
	var out []mark
	for _, m := range ln.Marks {
		if m.Kind == kind {
			out = append(out, m)
		}
	}
	return out
}

func shadesOf(ln lane, class string) []shade {
	var out []shade
	for _, s := range ln.Shades {
		if s.Class == class {
			out = append(out, s)
		}
	}
	return out
}

// The Kleppmann story, as the timeline must tell it: h1's belief ends, h1
// is paused, h2 believes under another colour, and h1's write after the
// pause is fenced, on h1's lane, after the pause.
func TestTimelineTellsTheKleppmannStory(t *testing.T) {
	run, out := kleppmann(t)
	tl := buildTimeline(run, out.History)

	names := make([]string, len(tl.Lanes))
	for i, l := range tl.Lanes {
		names[i] = l.Name
	}
	require.Equal(t, []string{"grantor", "store", "h1", "h2"}, names)

	h1, h2, store := laneNamed(t, tl, "h1"), laneNamed(t, tl, "h2"), laneNamed(t, tl, "store")
	b1, b2 := barsOf(h1, "belief"), barsOf(h2, "belief")
	require.Len(t, b1, 1)
	require.Len(t, b2, 1)
	assert.NotEqual(t, b1[0].Fill, b2[0].Fill, "different tokens, different colours")
	assert.Less(t, b1[0].X+b1[0].W, b2[0].X, "h1 stops believing before h2 starts")

	fences := barsOf(store, "fence")
	require.Len(t, fences, 2)
	assert.Equal(t, []string{b1[0].Fill, b2[0].Fill}, []string{fences[0].Fill, fences[1].Fill},
		"the same token has the same colour on every lane")

	pauses := shadesOf(h1, "f-pause")
	require.Len(t, pauses, 1)
	assert.Contains(t, pauses[0].Label, "pause")
	fenced := marksOf(h1, "fenced")
	require.Len(t, fenced, 1, "one fenced write, on the writer's lane")
	assert.GreaterOrEqual(t, fenced[0].X, pauses[0].X+pauses[0].W, "the fenced write comes after the pause")
	assert.Greater(t, fenced[0].X, b2[0].X, "and after h2 took over")
	assert.Contains(t, fenced[0].Title, "FENCED")
	assert.Empty(t, marksOf(h2, "fenced"))
	assert.NotEmpty(t, marksOf(h2, "write"))
	assert.Len(t, marksOf(laneNamed(t, tl, "grantor"), "grant"), 2, "two grants issued")

	require.Len(t, tl.Lines, 1)
	assert.Equal(t, "heal", tl.Lines[0].Class)
	require.Len(t, tl.Grants, 2)
	assert.Equal(t, "lock #1", tl.Grants[0].Label)
}

func TestTimelineMarksViolations(t *testing.T) {
	run, out := kleppmann(t)
	at := fencedWrite(t, out.History).Processed
	run, out = withViolation(run, out, at)
	tl := buildTimeline(run, out.History)
	i := slices.IndexFunc(tl.Lines, func(v vline) bool { return v.Class == "violation" })
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, "P2", tl.Lines[i].Label)
	assert.InDelta(t, timeScale{end: out.History.End}.x(at), tl.Lines[i].X, 1e-9)
	assert.Contains(t, tl.Lines[i].Title, "write lock #1 by h1", "the evidence is in the hover text")
}

// Every lane lies below the axis, and lanes do not overlap.
func TestTimelineLanesStack(t *testing.T) {
	for _, name := range []string{"swarm", "worker-crash-handoff", "service-registry"} {
		t.Run(name, func(t *testing.T) {
			run, out := runScenario(t, name, 1)
			tl := buildTimeline(run, out.History)
			y := axisHeight
			for _, l := range tl.Lanes {
				assert.InDelta(t, y, l.Y, 1e-9, l.Name)
				assert.Positive(t, l.H)
				for _, b := range l.Bars {
					assert.GreaterOrEqual(t, b.Y, l.Y, l.Name)
					assert.LessOrEqual(t, b.Y+b.H, l.Y+l.H, l.Name)
					assert.GreaterOrEqual(t, b.X, plotPad)
					assert.LessOrEqual(t, b.X, plotPad+plotWidth)
				}
				y += l.H + laneGap
			}
			assert.InDelta(t, y, tl.Height, 1e-9)
		})
	}
}

func TestPackRows(t *testing.T) {
	tests := []struct {
		name  string
		spans []span
		rows  []int
		n     int
	}{
		{"none", nil, []int{}, 1},
		{"apart", []span{{0, 1}, {2, 3}}, []int{0, 0}, 1},
		{"touching share a row", []span{{0, 2}, {2, 3}}, []int{0, 0}, 1},
		{"overlap", []span{{0, 5}, {1, 2}, {3, 6}}, []int{0, 1, 1}, 2},
		{"three deep", []span{{0, 9}, {1, 8}, {2, 7}, {9, 10}}, []int{0, 1, 2, 0}, 3},
		{"instants", []span{{4, 4}, {4, 4}}, []int{0, 0}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, n := packRows(tt.spans)
			assert.Equal(t, tt.rows, rows)
			assert.Equal(t, tt.n, n)
		})
	}
}

func TestCompareNodes(t *testing.T) {
	names := []string{"r1", "h10", "zeta", "w2", "store", "h2", "s1", "grantor", "h1", "alpha"}
	slices.SortFunc(names, compareNodes)
	assert.Equal(t, []string{"grantor", "store", "h1", "h2", "h10", "w2", "s1", "r1", "alpha", "zeta"}, names)
}

func TestNiceStep(t *testing.T) {
	tests := []struct {
		in, want time.Duration
	}{
		{0, 1}, {1, 1}, {3, 5}, {7, 10},
		{4 * time.Second, 5 * time.Second},
		{5 * time.Second, 5 * time.Second},
		{5100 * time.Millisecond, 10 * time.Second},
		{1500 * time.Millisecond, 2 * time.Second},
		{90 * time.Millisecond, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, niceStep(tt.in), "niceStep(%v)", tt.in)
	}
}

func TestAxisTicks(t *testing.T) {
	tests := []struct {
		end        time.Duration
		firstMajor string
		lastLabel  string
		majors     int
	}{
		{time.Minute, "0s", "60s", 13},
		{10 * time.Minute, "0s", "600s", 13},
		{time.Second, "0ms", "1s", 11},
		{2500 * time.Millisecond, "0ms", "2.5s", 6},
	}
	for _, tt := range tests {
		t.Run(tt.end.String(), func(t *testing.T) {
			scale := timeScale{end: history.Time(tt.end)}
			ticks, minorPx := axisTicks(scale.end, scale)
			var majors []tick
			for _, tk := range ticks {
				if !tk.Minor {
					majors = append(majors, tk)
				}
			}
			require.Len(t, majors, tt.majors)
			assert.LessOrEqual(t, len(majors), maxMajorTicks+1)
			assert.Equal(t, tt.firstMajor, majors[0].Label)
			assert.Equal(t, tt.lastLabel, ticks[len(ticks)-1].Label)
			assert.Positive(t, minorPx)
			assert.InDelta(t, plotPad+plotWidth, ticks[len(ticks)-1].X, 1e-9)
		})
	}
}

func TestCutFromGrantor(t *testing.T) {
	tests := []struct {
		name   string
		window history.FaultWindow
		want   []string
	}{
		{"minority cut off", history.FaultWindow{Kind: history.FaultPartition, Detail: "[grantor h1 store] | [h2 h3]"}, []string{"h2", "h3"}},
		{"grantor in the minority", history.FaultWindow{Kind: history.FaultPartition, Detail: "[h1 h2] | [grantor]"}, []string{"h1", "h2"}},
		{"split, grantor in no group", history.FaultWindow{Kind: history.FaultSplit, Detail: "[h1] | [h2]"}, nil},
		{"grantor bridges", history.FaultWindow{Kind: history.FaultBridge, Nodes: []string{"grantor"}, Detail: "[h1] | [h2]"}, nil},
		{"three groups", history.FaultWindow{Kind: history.FaultSplit, Detail: "[store] | [h3 w2] | [grantor h2]"}, []string{"store", "h3", "w2"}},
		{"no detail", history.FaultWindow{Kind: history.FaultPartition}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, cutFromGrantor(tt.window, "grantor"))
		})
	}
}

func TestMarkKinds(t *testing.T) {
	op := func(kind lease.Kind, err lease.ErrCode, token uint64) history.Operation {
		return leasewire.NewOperation("h1", "grantor", 0, 0, 0, lease.Message{Kind: kind, Resource: "lock", Token: token},
			lease.Message{Kind: kind.Reply(), Resource: "lock", Token: token, Err: err})
	}
	ops := []history.Operation{
		op(lease.KindAcquire, lease.CodeOK, 1),
		op(lease.KindAcquire, lease.CodeOK, 1), // the holder re-confirms its own grant
		op(lease.KindAcquire, lease.CodeHeld, 0),
		op(lease.KindRenew, lease.CodeOK, 1),
		op(lease.KindRenew, lease.CodeLeaseExpired, 1),
		op(lease.KindWrite, lease.CodeOK, 1),
		op(lease.KindWrite, lease.CodeFenced, 1),
		op(lease.KindCheckpoint, lease.CodeOK, 1),
		op(lease.KindCheckpoint, lease.CodeFenced, 1),
		op(lease.KindRelease, lease.CodeOK, 1),
		op(lease.KindAcquire, lease.CodeOK, 2),
		op(lease.KindWrite, lease.CodeOK, 2),
		op(lease.KindWrite, lease.CodeOK, 1), // accepted after token 2: stale
	}
	for i := range ops {
		ops[i].Processed = history.Time(i)
	}
	h := &history.History{}
	h.SetOps(ops)
	assert.Equal(t, []string{"grant", "reacquire", "", "renew", "renew-refused", "write", "fenced",
		"checkpoint", "checkpoint-fenced", "", "grant", "write", "stale-write"}, markKinds(h))
}

func TestFences(t *testing.T) {
	write := func(resource string, token uint64, at history.Time, err lease.ErrCode) history.Operation {
		return leasewire.NewOperation("h", "store", at, at, at,
			lease.Message{Kind: lease.KindWrite, Resource: resource, Token: token},
			lease.Message{Kind: lease.KindWriteReply, Resource: resource, Err: err})
	}
	h := &history.History{Resource: "store"}
	h.SetOps([]history.Operation{
		write("lock", 1, 10, lease.CodeOK),
		write("b", 1, 12, lease.CodeOK),
		write("lock", 1, 20, lease.CodeOK),
		write("lock", 2, 30, lease.CodeOK),
		write("lock", 1, 35, lease.CodeFenced), // not accepted: no fence
		write("lock", 2, 40, lease.CodeOK),
	})
	assert.Equal(t, []fence{
		{Resource: "b", Token: 1, Start: 12, End: 12},
		{Resource: "lock", Token: 1, Start: 10, End: 30},
		{Resource: "lock", Token: 2, Start: 30, End: 40},
	}, fences(h))
}

func TestGrantColorsAreStable(t *testing.T) {
	h := &history.History{Beliefs: []history.BeliefInterval{
		{Holder: "h2", Resource: "lock", Token: 2, Start: 50},
		{Holder: "h1", Resource: "lock", Token: 1, Start: 10},
		{Holder: "w1", Resource: "t1", Token: 1, Start: 10},
	}}
	c := newGrantColors(h)
	assert.Equal(t, grantPalette[0], c.of(grant{"lock", 1}), "first to start, first colour")
	assert.Equal(t, grantPalette[1], c.of(grant{"t1", 1}))
	assert.Equal(t, grantPalette[2], c.of(grant{"lock", 2}))
	assert.Equal(t, colorUnknown, c.of(grant{"lock", 9}))
	assert.NotContains(t, grantPalette, colorFenced, "red is kept for fenced and violated")
}

func TestViolationLinesShareAndStep(t *testing.T) {
	h := &history.History{HealAt: 0}
	scale := timeScale{end: history.Time(60 * time.Second)}
	v := func(p string, at time.Duration) checker.Violation {
		return checker.Violation{Property: p, At: history.Time(at), Detail: p + " broke"}
	}
	run := Run{Violations: []checker.Violation{
		v("P3", 13*time.Second), v("P2", 13*time.Second), // the same instant: one line
		v("P1", 13500*time.Millisecond), // close by: its label steps down
		v("P5", 40*time.Second),         // far away: back at the top
	}}
	lines := timelineLines(run, h, scale)
	require.Len(t, lines, 3)
	assert.Equal(t, "P2 P3", lines[0].Label, "in property order")
	assert.Contains(t, lines[0].Title, "P2 broke")
	assert.Contains(t, lines[0].Title, "P3 broke")
	assert.Equal(t, "P1", lines[1].Label)
	assert.Equal(t, labelTop+labelStep, lines[1].LabelY)
	assert.Equal(t, labelTop, lines[2].LabelY)
}

// A goroutine host's stall-conns window shades the network lane, named
// by its groups.
func TestTimelineShowsStalledConnections(t *testing.T) {
	run, out := runScenario(t, "partition-heal", 1)
	h := out.History
	h.Faults = append(h.Faults, history.FaultWindow{Kind: history.FaultStallConns, Start: 1, End: history.Never,
		Detail: "[h1] | [grantor]"})
	tl := buildTimeline(run, h)
	shades := shadesOf(laneNamed(t, tl, networkLane), "f-net")
	labels := make([]string, len(shades))
	for i, s := range shades {
		labels[i] = s.Label
	}
	assert.Contains(t, labels, "stall-conns [h1] | [grantor]")
}
