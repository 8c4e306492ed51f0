package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
)

// TestIncarnationsAreActors: a restarted process is a new actor. A token
// the grantor re-confirms to a holder's later incarnation is issued twice
// (what the dead one left in flight would pass the fenced store); one it
// re-confirms to an earlier incarnation (a request the dead process left in
// flight) grants nothing new; two incarnations believing one token at once
// are two believers (P1), one incarnation's two beliefs are not.
func TestIncarnationsAreActors(t *testing.T) {
	t.Run("P2: the same token to a later incarnation", func(t *testing.T) {
		h := newHistory().acquire("h1", "lock", 1, at(0)).acquire("h1", "lock", 1, at(3000)).build()
		require.Equal(t, OK, Fencing(h).Status, "one incarnation re-confirming its own grant")
		editOp(h, 1, func(op *history.Operation) { op.Incarnation = 1 })
		r := Fencing(h)
		require.Equal(t, Violated, r.Status, r.Summary)
		assert.Contains(t, r.Violations[0].Detail, "not above the highest token 1")
	})
	t.Run("P2: the same token to an earlier incarnation", func(t *testing.T) {
		h := newHistory().acquire("h1", "lock", 1, at(0)).acquire("h1", "lock", 2, at(3000)).
			acquire("h1", "lock", 2, at(4000)).build()
		editOp(h, 1, func(op *history.Operation) { op.Incarnation = 1 }) // the restarted holder gets a new token
		r := Fencing(h)
		assert.Equal(t, OK, r.Status, "the reply to the dead incarnation's late acquire grants nothing new: %s", r.Summary)
	})
	t.Run("P1: two incarnations believing one token at once", func(t *testing.T) {
		h := newHistory().belief("h1", "lock", 1, at(0), at(5000)).belief("h1", "lock", 1, at(1000), at(6000)).build()
		require.Equal(t, OK, Exclusivity(h).Status, "one incarnation's two beliefs in one grant")
		h.Beliefs[1].Incarnation = 1
		r := Exclusivity(h)
		require.Equal(t, Violated, r.Status, r.Summary)
		assert.Contains(t, r.Violations[0].Detail, "h1 (incarnation 0) token 1 and h1 (incarnation 1) token 1 both believed")
	})
}
