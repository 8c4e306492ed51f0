package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
)

// A row says what the checkers ask of an operation before they read it.
func TestOpRowsSayWhatTheCheckersAsk(t *testing.T) {
	h := &history.History{Grantor: "grantor", Resource: "store"}
	op := func(server, client, kind, err string, ret history.Time) history.Operation {
		return history.Operation{Server: server, Client: client, Input: history.Payload{Kind: kind},
			Output: history.Payload{Kind: kind + "_reply", Err: err}, Return: ret, Incarnation: 2, ID: 7}
	}
	ops := []history.Operation{
		op("grantor", "h1", kindAcquire, "", 5),
		op("grantor", "h2", kindAcquire, errHeld, history.Never),
		op("grantor", "h1", kindRenew, errGrace, 5),
		op("grantor", "h2", kindRelease, "expired", 5),
		op("grantor", "h1", kindRevoke, "", 5),
		op("grantor", "h1", kindCheckpoint, errFenced, 5),
		op("store", "h2", kindWrite, "", 5),
		op("store", "h1", kindRead, "", 5),
		op("grantor", "r1", kindList, "", 5),
		op("grantor2", "h1", "set_nx_px", "", 5),
	}
	ops[len(ops)-1].Incarnation = 3 // h1 restarted
	h.SetOps(ops)
	want := []opRow{
		{id: 7, life: 0, kind: opAcquire, err: errNone, at: atGrantor | gotReply},
		{id: 7, life: 1, kind: opAcquire, err: errIsHeld, at: atGrantor},
		{id: 7, life: 0, kind: opRenew, err: errIsGrace, at: atGrantor | gotReply},
		{id: 7, life: 1, kind: opRelease, err: errOther, at: atGrantor | gotReply},
		{id: 7, life: 0, kind: opRevoke, err: errNone, at: atGrantor | gotReply},
		{id: 7, life: 0, kind: opCheckpoint, err: errIsFenced, at: atGrantor | gotReply},
		{id: 7, life: 1, kind: opWrite, err: errNone, at: atFenced | gotReply},
		{id: 7, life: 0, kind: opRead, err: errNone, at: atFenced | gotReply},
		{id: 7, life: 2, kind: opList, err: errNone, at: atGrantor | gotReply},
		{id: 7, life: 3, kind: opOther, err: errNone, at: gotReply},
	}
	rows, lives := opRows(h)
	assert.Equal(t, want, rows)
	assert.Equal(t, []clientLife{{0, 2}, {1, 2}, {2, 2}, {0, 3}}, lives, "h1, h2 and r1 in their second life; h1 in its third")
	assert.True(t, want[0].grantorOK(opAcquire))
	assert.False(t, want[1].grantorOK(opAcquire), "refused")
	assert.False(t, want[6].grantorOK(opWrite), "not the grantor's")
}

// The rows come in processed order, ties in recording order, whether or
// not the operations were recorded in it.
func TestRowsInProcessedOrder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		processed []history.Time
		want      []int
	}{
		{"none", nil, nil},
		{"in order", []history.Time{1, 2, 2, 3}, []int{0, 1, 2, 3}},
		{"out of order", []history.Time{3, 1, 2, 1}, []int{1, 3, 2, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &history.History{}
			for _, p := range tc.processed {
				h.AppendOp(history.Operation{Processed: p})
			}
			a := newAnalysis(h)
			for range 2 { // computed once, then kept
				var got []int
				for i, r := range a.inProcessedOrder() {
					assert.Equal(t, h.Op(i).Processed, r.processed)
					got = append(got, i)
				}
				assert.Equal(t, tc.want, got)
			}
		})
	}
}
