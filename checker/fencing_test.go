package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
)

func TestFencing(t *testing.T) {
	const ok, fenced = lease.CodeOK, lease.CodeFenced
	tests := []struct {
		name   string
		h      *hb
		want   Status
		detail string // in the first violation
	}{
		{"empty history: nothing to judge", newHistory(), NotApplicable, ""},
		{"a handover, writes in token order", newHistory().
			acquire("h1", "lock", 1, at(0)).write("h1", "lock", 1, at(100), ok).write("h1", "lock", 1, at(200), ok).
			acquire("h2", "lock", 2, at(6000)).write("h2", "lock", 2, at(6100), ok), OK, ""},
		{"a stale write rejected is fine", newHistory().
			acquire("h1", "lock", 1, at(0)).acquire("h2", "lock", 2, at(6000)).write("h2", "lock", 2, at(6100), ok).
			write("h1", "lock", 1, at(6200), fenced), OK, ""},
		{"a stale write accepted", newHistory().
			acquire("h1", "lock", 1, at(0)).acquire("h2", "lock", 2, at(6000)).write("h2", "lock", 2, at(6100), ok).
			write("h1", "lock", 1, at(6200), ok), Violated, "with token 1 after one with token 2"},
		{"tokens order per resource only", newHistory().
			acquire("h1", "a", 5, at(0)).acquire("h2", "b", 1, at(0)).
			write("h1", "a", 5, at(100), ok).write("h2", "b", 1, at(200), ok), OK, ""},
		{"a token the grantor never issued", newHistory().
			acquire("h1", "lock", 1, at(0)).write("h1", "lock", 7, at(100), ok), Violated, "never issued to it"},
		{"a token issued to someone else", newHistory().
			acquire("h1", "lock", 1, at(0)).write("h2", "lock", 1, at(100), ok), Violated, "which the grantor issued to h1"},
		{"a token issued for another resource", newHistory().
			acquire("h1", "other", 1, at(0)).write("h1", "lock", 1, at(100), ok), Violated, "never issued to it"},
		{"a write processed before its grant", newHistory().
			write("h1", "lock", 1, at(100), ok).acquire("h1", "lock", 1, at(200)), Violated, "never issued"},
		{"one token to two clients", newHistory().
			acquire("h1", "lock", 1, at(0)).acquire("h2", "lock", 1, at(6000)), Violated, "after it had issued it to h1"},
		{"a new grant must exceed every earlier token (counter reset by a restart)", newHistory().
			acquire("h1", "lock", 1, at(0)).acquire("h2", "lock", 2, at(6000)).acquire("h3", "lock", 1, at(20_000)),
			Violated, "issued token 1 on \"lock\" to h3 after it had issued it to h1"},
		{"a new grant below the highest token, never issued before", newHistory().
			acquire("h1", "lock", 1, at(0)).acquire("h2", "lock", 3, at(6000)).acquire("h3", "lock", 2, at(20_000)),
			Violated, "with token 2, not above the highest token 3"},
		{"re-confirming the holder's own current grant is not a new grant", newHistory().
			acquire("h1", "lock", 1, at(0)).acquire("h1", "lock", 1, at(3000)).write("h1", "lock", 1, at(3100), ok),
			OK, ""},
		{"re-confirming an old grant after a newer one", newHistory().
			acquire("h1", "lock", 1, at(0)).acquire("h2", "lock", 2, at(6000)).acquire("h1", "lock", 1, at(12_000)),
			Violated, "not above the highest token 2"},
		{"refused acquires issue nothing", newHistory().
			acquire("h1", "lock", 1, at(0)).refused("h2", "lock", at(100), lease.CodeHeld).write("h2", "lock", 0, at(200), ok),
			Violated, "never issued"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Fencing(tt.h.build())
			assert.Equal(t, "P2", r.Property)
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

// TestFencingProcessedOrder: the ops slice may be in any order; the checker
// reads them in the order they were processed.
func TestFencingProcessedOrder(t *testing.T) {
	h := newHistory().
		write("h2", "lock", 2, at(6100), lease.CodeOK).
		acquire("h2", "lock", 2, at(6000)).
		acquire("h1", "lock", 1, at(0)).
		write("h1", "lock", 1, at(100), lease.CodeOK).
		build()
	assert.Equal(t, OK, Fencing(h).Status)
	editOp(h, 3, func(op *history.Operation) { op.Processed = at(6200) }) // the stale write now lands after the newer one
	r := Fencing(h)
	require.Equal(t, Violated, r.Status)
	assert.Equal(t, at(6200), r.Violations[0].At)
}

func TestFencingFaultsAndCap(t *testing.T) {
	b := newHistory().acquire("h1", "lock", 1, at(0)).acquire("h2", "lock", 2, at(6000)).
		write("h2", "lock", 2, at(6100), lease.CodeOK).
		fault(history.FaultPause, "h1", at(1000), at(7000))
	for i := range 2 * maxViolations {
		b.write("h1", "lock", 1, at(6500+int64(i)), lease.CodeOK)
	}
	r := Fencing(b.build())
	require.Equal(t, Violated, r.Status)
	assert.Len(t, r.Violations, maxViolations, "bounded")
	assert.Contains(t, r.Summary, "40 violation(s)")
	require.Len(t, r.Violations[0].Faults, 1)
	assert.Equal(t, history.FaultPause, r.Violations[0].Faults[0].Kind)
}

// TestFencingProperty: a store that accepts exactly the writes whose token
// is at least the highest accepted, under tokens granted in increasing
// order, always passes; accepting one stale write always fails.
func TestFencingProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := newHistory()
		holders := []string{"h1", "h2", "h3"}
		var highest, granted uint64
		now := int64(0)
		var stale []int // indexes of fenced writes
		for range rapid.IntRange(1, 40).Draw(t, "steps") {
			now += rapid.Int64Range(1, 1000).Draw(t, "dt_ms")
			if granted == 0 || rapid.IntRange(0, 3).Draw(t, "grant") == 0 {
				granted += rapid.Uint64Range(1, 3).Draw(t, "token_step")
				b.acquire(holders[granted%3], "lock", granted, at(now))
				continue
			}
			token := rapid.Uint64Range(1, granted).Draw(t, "write_token")
			// Only tokens actually issued: step back to one that was.
			for !issuedTo(b, token) {
				token++
			}
			code := lease.CodeOK
			if token < highest {
				code = lease.CodeFenced
				stale = append(stale, b.h.NumOps())
			}
			highest = max(highest, token)
			b.write(holders[token%3], "lock", token, at(now), code)
		}
		h := b.build()
		require.Equal(t, OK, Fencing(h).Status)
		if len(stale) > 0 {
			editOp(h, stale[rapid.IntRange(0, len(stale)-1).Draw(t, "accept")], func(op *history.Operation) {
				op.Output.Err, op.Output.OK = "", true
			})
			require.Equal(t, Violated, Fencing(h).Status)
		}
	})
}

func issuedTo(b *hb, token uint64) bool {
	for _, op := range b.h.AllOps() {
		if op.Input.Kind == kindAcquire && op.Output.Token == token {
			return true
		}
	}
	return false
}
