package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

const unit = 100 * time.Millisecond

// oneWorker: w1 runs t1's four units and completes it.
func oneWorker() *hb {
	return newHistory().task("t1", 4, unit, at(0), at(1000)).
		acquire("w1", "t1", 1, at(0)).
		units("t1", "w1", 1, 0, 4, at(100)).
		checkpoint("w1", "t1", 1, at(1000), "done:4", lease.CodeOK)
}

// handoff: w1 runs units 0..5 of t1 and checkpoints 4; w2 takes over from
// the handed progress (or from from, if given) and completes.
func handoff(handed string, from int) *hb {
	b := newHistory().task("t1", 8, unit, at(0), at(20_000)).
		acquire("w1", "t1", 1, at(0)).
		units("t1", "w1", 1, 0, 4, at(100)).
		checkpoint("w1", "t1", 1, at(500), "4", lease.CodeOK).
		units("t1", "w1", 1, 4, 6, at(600))
	if handed == "" {
		b.acquire("w2", "t1", 2, at(9000))
	} else {
		b.acquireHanding("w2", "t1", 2, at(9000), handed, 1)
	}
	return b.units("t1", "w2", 2, from, 8, at(9100)).
		checkpoint("w2", "t1", 2, at(20_000), "done:8", lease.CodeOK)
}

func TestAtLeastOnce(t *testing.T) {
	tests := []struct {
		name    string
		h       *hb
		want    Status
		detail  string
		summary string
	}{
		{"no tasks, no effects: nothing to judge", newHistory(), NotApplicable, "", "not applicable: no task ran"},
		{"one worker, every unit once", oneWorker(), OK, "", "1 tasks completed once"},
		{"a unit never executed", newHistory().task("t1", 4, unit, at(0), at(1000)).
			acquire("w1", "t1", 1, at(0)).units("t1", "w1", 1, 0, 3, at(100)).
			checkpoint("w1", "t1", 1, at(1000), "done:4", lease.CodeOK), Violated, "its unit 3 never executed", ""},
		{"a unit executed only after completion", newHistory().task("t1", 4, unit, at(0), at(1000)).
			task("t2", 1, unit, at(0), history.Never).
			acquire("w1", "t1", 1, at(0)).units("t1", "w1", 1, 0, 3, at(100)).
			checkpoint("w1", "t1", 1, at(1000), "done:4", lease.CodeOK).
			units("t1", "w1", 1, 3, 4, at(2000)), Violated, "its unit 3 executed only at 2s", ""},
		{"completion recorded twice", oneWorker().acquire("w2", "t1", 2, at(9000)).
			checkpoint("w2", "t1", 2, at(9500), "done:4", lease.CodeOK), Violated, "recorded twice, under tokens 1 and 2", ""},
		{"completion by one token, twice (a retry)", oneWorker().
			checkpoint("w1", "t1", 1, at(1100), "done:4", lease.CodeOK), OK, "", ""},
		{"a handoff re-executes the work since the checkpoint", handoff("", 4), OK, "",
			"1 handoffs re-executed 2 units (2.00 per handoff, max 2)"},
		{"a handoff from a stale checkpoint re-executes too much", handoff("0", 0), Violated,
			"w2 (token 2, handed progress 0) re-executed 6 units from unit 0, beyond the work done since the last accepted checkpoint (progress 4, bound 2 units)", ""},
		{"a handoff skipping work is caught at completion", handoff("", 7), Violated, "its unit 6 never executed", ""},
		{"duplicate side effects are measured", oneWorker().effect("t1", "t1/0", at(100)).effect("t1", "t1/0", at(200)).
			effect("t1", "t1/1", at(300)), OK, "", "1 duplicate side effects"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := AtLeastOnce(tt.h.build())
			assert.Equal(t, "P6", r.Property)
			require.Equal(t, tt.want, r.Status, r.Summary)
			assert.Contains(t, r.Summary, tt.summary)
			if tt.want != NotApplicable {
				assert.NotEmpty(t, r.Bound)
			}
			if tt.want != Violated {
				assert.Empty(t, r.Violations)
				return
			}
			require.NotEmpty(t, r.Violations)
			assert.Contains(t, r.Violations[0].Detail, tt.detail)
		})
	}
}

// TestAtLeastOnceLateUnit: the old holder finishes a unit it started before
// it lost the lease, after the new grant. The new holder re-executes it;
// that is work done since the checkpoint, within the bound.
func TestAtLeastOnceLateUnit(t *testing.T) {
	b := handoff("", 4)
	b.units("t1", "w1", 1, 6, 7, at(9050))
	r := AtLeastOnce(b.build())
	require.Equal(t, OK, r.Status, r.Summary)
	assert.Contains(t, r.Summary, "re-executed 3 units")
}

// TestAtLeastOnceResumeSameToken: a holder that lost its belief and had the
// same grant re-confirmed resumes from its own latest checkpoint; that run
// is checked against the bound too.
func TestAtLeastOnceResumeSameToken(t *testing.T) {
	b := newHistory().task("t1", 8, unit, at(0), at(20_000)).
		acquire("w1", "t1", 1, at(0)).
		units("t1", "w1", 1, 0, 6, at(100)).
		checkpoint("w1", "t1", 1, at(500), "4", lease.CodeOK).
		acquire("w1", "t1", 1, at(9000))
	good := b.clone()
	good.units("t1", "w1", 1, 4, 8, at(9100)).checkpoint("w1", "t1", 1, at(20_000), "done:8", lease.CodeOK)
	assert.Equal(t, OK, AtLeastOnce(good.build()).Status)

	b.units("t1", "w1", 1, 2, 8, at(9100)).checkpoint("w1", "t1", 1, at(20_000), "done:8", lease.CodeOK)
	r := AtLeastOnce(b.build())
	require.Equal(t, Violated, r.Status)
	assert.Contains(t, r.Violations[0].Detail, "from unit 2")
}

func TestAtLeastOnceUnitsWithoutGrant(t *testing.T) {
	// Units under a token no recorded grant issued still count.
	r := AtLeastOnce(newHistory().task("t1", 2, unit, at(0), at(1000)).
		units("t1", "w1", 7, 0, 2, at(100)).units("t1", "w2", 8, 0, 2, at(300)).
		checkpoint("w2", "t1", 8, at(1000), "done:2", lease.CodeOK).build())
	require.Equal(t, OK, r.Status, r.Summary)
	assert.Contains(t, r.Summary, "1 handoffs re-executed 2 units")
}

// TestAtLeastOnceIgnoredGrant: a late reply to an acquire that had timed
// out re-confirms the grant the holder already acts on; the holder ignores
// it, so it starts no run, although it hands over a newer checkpoint than
// the run resumed from. Only grants that started a belief start a run.
func TestAtLeastOnceIgnoredGrant(t *testing.T) {
	b := newHistory().task("t1", 8, unit, at(0), at(9000)).
		acquire("w1", "t1", 1, at(0)).belief("w1", "t1", 1, at(0)+ms, at(3000)).
		units("t1", "w1", 1, 0, 6, at(100)).
		checkpoint("w1", "t1", 1, at(300), "2", lease.CodeOK).
		acquire("w1", "t1", 1, at(4000)).belief("w1", "t1", 1, at(4000)+ms, at(9000)).
		checkpoint("w1", "t1", 1, at(4100), "4", lease.CodeOK). // sent by the first run, delayed
		acquire("w1", "t1", 1, at(4500)).                       // the late reply: no belief starts
		units("t1", "w1", 1, 2, 8, at(4600)).
		checkpoint("w1", "t1", 1, at(9000), "done:8", lease.CodeOK)
	r := AtLeastOnce(b.build())
	require.Equal(t, OK, r.Status, r.Summary)
	assert.Contains(t, r.Summary, "re-executed 4 units")

	// Without the belief, the late reply would be the run, and the units
	// below its progress 4 would count as beyond the bound.
	h := b.build()
	h.Beliefs = h.Beliefs[:1]
	h.Beliefs = append(h.Beliefs, b.h.Beliefs[0])
	h.Beliefs[1].Start = at(4500) + ms
	assert.Equal(t, Violated, AtLeastOnce(h).Status)
}

// TestAtLeastOnceInterleavedStraggler: a paused holder finishes a unit it
// had already re-executed, after another holder re-executed it too. Its
// run re-executed that unit once, not twice.
func TestAtLeastOnceInterleavedStraggler(t *testing.T) {
	b := newHistory().task("t1", 8, unit, at(0), history.Never).
		acquire("w2", "t1", 1, at(0)).units("t1", "w2", 1, 0, 8, at(100)).
		checkpoint("w2", "t1", 1, at(500), "4", lease.CodeOK).
		acquire("w1", "t1", 2, at(2000)).units("t1", "w1", 2, 4, 8, at(2100)).
		acquire("w3", "t1", 3, at(3000)).units("t1", "w3", 3, 4, 8, at(3100)).
		units("t1", "w1", 2, 5, 6, at(4000))
	r := AtLeastOnce(b.build())
	require.Equal(t, OK, r.Status, r.Summary)
	assert.Contains(t, r.Summary, "2 handoffs re-executed 8 units")
}
