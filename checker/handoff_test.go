package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

func TestHandoff(t *testing.T) {
	const ok, fenced = lease.CodeOK, lease.CodeFenced
	tests := []struct {
		name   string
		h      *hb
		want   Status
		detail string
	}{
		{"empty history: nothing to judge", newHistory(), NotApplicable, ""},
		{"grants without tasks or checkpoints: nothing to judge", newHistory().acquire("w1", "t1", 1, at(0)), NotApplicable, ""},
		{"first grant on a task hands over nothing", newHistory().task("t1", 2, time.Second, at(0), history.Never).
			acquire("w1", "t1", 1, at(0)), OK, ""},
		{"handover of the latest checkpoint", newHistory().
			acquire("w1", "t1", 1, at(0)).
			checkpoint("w1", "t1", 1, at(1000), "4", ok).
			checkpoint("w1", "t1", 1, at(2000), "8", ok).
			acquire("w2", "t1", 2, at(9000)).
			checkpoint("w2", "t1", 2, at(10_000), "12", ok).
			acquire("w1", "t1", 3, at(20_000)), OK, ""},
		{"a rejected checkpoint is not handed over", newHistory().
			acquire("w1", "t1", 1, at(0)).checkpoint("w1", "t1", 1, at(1000), "4", ok).
			acquire("w2", "t1", 2, at(9000)).
			checkpoint("w1", "t1", 1, at(9500), "8", fenced).
			acquire("w3", "t1", 3, at(20_000)), OK, ""},
		{"lost checkpoint: an older state handed over", newHistory().
			acquire("w1", "t1", 1, at(0)).
			checkpoint("w1", "t1", 1, at(1000), "4", ok).
			checkpoint("w1", "t1", 1, at(2000), "8", ok).
			acquireHanding("w2", "t1", 2, at(9000), "4", 1), Violated, "lost checkpoint"},
		{"lost checkpoint: nothing handed over", newHistory().
			acquire("w1", "t1", 1, at(0)).
			checkpoint("w1", "t1", 1, at(1000), "4", ok).
			acquireHanding("w2", "t1", 2, at(9000), "", 0), Violated, "but the latest accepted checkpoint is \"4\" of token 1"},
		{"the right state under the wrong token", newHistory().
			acquire("w1", "t1", 1, at(0)).
			checkpoint("w1", "t1", 1, at(1000), "4", ok).
			acquireHanding("w2", "t1", 2, at(9000), "4", 2), Violated, "lost checkpoint"},
		{"a state handed over that was never accepted", newHistory().
			acquireHanding("w1", "t1", 1, at(0), "4", 1), Violated, "no checkpoint was ever accepted"},
		{"a stale holder overwrites the checkpoint", newHistory().
			acquire("w1", "t1", 1, at(0)).
			acquire("w2", "t1", 2, at(9000)).
			checkpoint("w2", "t1", 2, at(9500), "12", ok).
			checkpoint("w1", "t1", 1, at(9600), "8", ok), Violated, "stale holder w1 (token 1)"},
		{"a checkpoint before any grant", newHistory().
			checkpoint("w1", "t1", 1, at(100), "8", ok), Violated, "nothing was granted on it yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Handoff(tt.h.build())
			assert.Equal(t, "P5", r.Property)
			require.Equal(t, tt.want, r.Status, r.Summary)
			if tt.want != Violated {
				assert.Empty(t, r.Violations)
				return
			}
			require.NotEmpty(t, r.Violations)
			assert.Contains(t, r.Violations[0].Detail, tt.detail)
			assert.NotEmpty(t, r.Violations[0].Evidence)
		})
	}
}

// TestHandoffOvertakenCheckpoint: the grantor stores nothing for a
// checkpoint overtaken by a newer request of the same holder and token
// (it is linearised before it), so the newer one is the one to hand over.
func TestHandoffOvertakenCheckpoint(t *testing.T) {
	b := newHistory().acquire("w1", "t1", 1, at(0)).
		checkpoint("w1", "t1", 1, at(1000), "4", lease.CodeOK).
		checkpoint("w1", "t1", 1, at(2000), "8", lease.CodeOK)
	// The request for "4" was sent first but arrived last.
	editOp(b.h, 1, func(op *history.Operation) { op.Processed = at(2000) })
	editOp(b.h, 2, func(op *history.Operation) { op.Processed = at(1000) })
	b.acquireHanding("w2", "t1", 2, at(9000), "8", 1)
	assert.Equal(t, OK, Handoff(b.build()).Status)

	// A different holder's checkpoint is not overtaken: with the same token
	// it would be a stale (or forged) one, and it is the latest.
	h := b.build()
	editOp(h, 1, func(op *history.Operation) { op.Client = "w9" })
	r := Handoff(h)
	require.Equal(t, Violated, r.Status)
	assert.Contains(t, r.Violations[0].Detail, "latest accepted checkpoint is \"4\"")
}

func TestHandoffFaults(t *testing.T) {
	r := Handoff(newHistory().
		acquire("w1", "t1", 1, at(0)).
		checkpoint("w1", "t1", 1, at(1000), "4", lease.CodeOK).
		fault(history.FaultCrash, "grantor", at(3000), at(4000)).
		acquireHanding("w2", "t1", 2, at(9000), "", 0).build())
	require.Equal(t, Violated, r.Status)
	require.Len(t, r.Violations[0].Faults, 1, "the grantor's crash between the checkpoint and the grant")
	assert.Equal(t, "grantor", r.Violations[0].Faults[0].Node())
}
