package checker

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// Two grants of "lock", the second exactly one TTL after the first:
// legal for a store that holds a lease for exactly its TTL, a violation
// for leasesim's, which holds it rho longer. P3 judges by the spec
// options give, or else by the one the history names.
func TestLinearizabilityJudgesByTheChosenSpec(t *testing.T) {
	h := linHistoryOf(linGrant("h1", span{0, 1, 1.1}, 1, 0, ""), linGrant("h2", span{6, 6, 6.1}, 2, 0, ""))
	require.Equal(t, int64(10_000_000), h.Lease.HoldPPB, "the history declares leasesim's hold")
	assert.Equal(t, Violated, Linearizability(h, Options{}).Status)
	exact := Linearizability(h, Options{Spec: model.LeaseStoreSpec(model.ExactTTL())})
	assert.Equal(t, OK, exact.Status, exact.Summary)

	h.Spec = "no-such-spec"
	r := Linearizability(h, Options{})
	assert.Equal(t, Unknown, r.Status, "no data is never a pass")
	assert.Contains(t, r.Summary, "no specification to check the lease store against")
	assert.Contains(t, r.Summary, "no-such-spec")
	assert.Equal(t, Unknown, Check(h, Options{})[2].Status)
}

// A Redis-style lock judged against the expiring-key specification: b
// takes the key while a's is still set, which no order explains. The
// grantor-reading proof is leasesim's lease store's and is not used.
func TestLinearizabilityJudgesAnExpiringKey(t *testing.T) {
	op := func(client string, kind string, at float64, ok bool) history.Operation {
		return history.Operation{Client: client, Server: "grantor", Call: secs(at), Processed: secs(at),
			Return: secs(at + 0.001), Input: history.Payload{Kind: kind, Key: "lock", Value: client, TTL: 3 * time.Second},
			Output: history.Payload{Kind: kind + "_reply", OK: ok, Clock: time.Duration(secs(at))}}
	}
	legal := linHistoryOf(op("a", "set_nx_px", 1, true), op("b", "set_nx_px", 2, false), op("b", "set_nx_px", 4.5, true))
	legal.Spec = "expiring-key"
	r := Linearizability(legal, Options{})
	assert.Equal(t, OK, r.Status, r.Summary)
	assert.Contains(t, r.Summary, "3 expiring-key and 0 fenced-resource operations")

	broken := linHistoryOf(op("a", "set_nx_px", 1, true), op("b", "set_nx_px", 2, true))
	broken.Spec = "expiring-key"
	assert.False(t, newLin(broken).byReading, "no grantor-reading proof for another specification")
	r = Linearizability(broken, Options{})
	require.Equal(t, Violated, r.Status, r.Summary)
	assert.Contains(t, r.Violations[0].Detail, "set, but the key is")
}

// Properties can be switched off one by one; the others do not depend on
// the spec and stay.
func TestCheckSkipsProperties(t *testing.T) {
	h := newHistory().acquire("h1", "lock", 1, at(1000)).belief("h1", "lock", 1, at(1001), at(5000)).build()
	h.Premises = []history.PremiseRecord{{Name: "it happened", Held: true, Detail: "yes"}}
	names := func(rs []Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Property)
		}
		return out
	}
	assert.Equal(t, []string{"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", PropertyPremise}, names(Check(h, Options{})))
	assert.Equal(t, []string{"P1", "P2", "P4", "P5", "P6", "P7", "P8"},
		names(Check(h, Options{SkipProperties: []string{"P3", PropertyPremise}})))
	assert.Empty(t, Check(h, Options{Skip: true}))
}
