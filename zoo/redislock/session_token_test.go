package redislock

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// sessionAgeHandover is the story a session-age fencing token gets wrong:
// h1 (the older session, id 1) takes the lock, writes and releases it
// after 2 s; h2 (id 2) takes it and freezes before its first write for
// three TTLs; its lock expires, h1 takes it back and writes under 1; h2
// wakes and its write under 2 lands after h1's.
func sessionAgeHandover() scenarios.Scenario {
	ttl := 5 * time.Second
	return scenarios.Scenario{
		Name:       "session-age-handover",
		Doc:        "the lock passes back to an older session while a younger one is paused before its write",
		Story:      "h1 locks, writes and releases; h2 locks and pauses before its first write; h1 locks again and writes; h2 wakes and writes.",
		Config:     lease.Config{TTL: ttl, Rho: 0.001, Margin: 50 * time.Millisecond},
		Contenders: 2,
		Lock:       scenarios.LockLoad{Stagger: time.Second, WriteEvery: 500 * time.Millisecond, Hold: 2 * time.Second, Idle: 8 * time.Second},
		Faults: faults.Schedule{Events: []faults.Event{{
			At: 1500 * time.Millisecond, Kind: faults.KindFailpoint, Node: "h2",
			Failpoint: lease.FailpointBeforeWrite, Action: faults.ActionPause, Duration: 3 * ttl,
		}}},
		Premises: []scenarios.Premise{
			scenarios.FailpointHit("h2", lease.FailpointBeforeWrite),
			scenarios.FaultWhileHolding("h2 was paused longer than the TTL while it held the lock", ttl, []string{"h2"}, history.FaultPause),
		},
		Duration: time.Minute,
		HealAt:   40 * time.Second,
	}
}

// A lock that fences with a session id (SessionTokenMutant) lets the paused
// younger session's write land after the older session's, which took the
// lock over: every token the store accepted was at least the one before
// and believed by its writer, so only P2's rule on the order the lock
// changed hands sees it. The same story with a token drawn per acquisition
// (Impl) is fenced.
func TestSessionTokenStaleWriteIsAViolation(t *testing.T) {
	sc := sessionAgeHandover()
	for seed := uint64(1); seed <= 3; seed++ {
		out := execute(t, sc, seed, SessionTokenMutant())
		require.Equal(t, checker.OK, verdict(t, out, checker.PropertyPremise).Status, "seed %d: the story happened", seed)
		p2 := verdict(t, out, "P2")
		require.Equal(t, checker.Violated, p2.Status, "seed %d: %s", seed, p2.Summary)
		for _, v := range p2.Violations {
			assert.True(t, strings.Contains(v.Detail, "the lease had changed hands"), "seed %d: only the hand-over rule: %s", seed, v.Detail)
		}
		assert.Contains(t, p2.Violations[0].Detail, "by h2 under token 2 after a write by h1 under token 1")
		assert.Equal(t, checker.OK, verdict(t, out, "P1").Status, "seed %d: h2 stopped believing in time", seed)

		fenced := execute(t, sc, seed, Impl())
		assert.Equal(t, checker.OK, verdict(t, fenced, "P2").Status, "seed %d: %s", seed, verdict(t, fenced, "P2").Summary)
	}
}
