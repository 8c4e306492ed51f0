package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/model"
)

// casOp is a Kubernetes-style Lease request of client on the API server,
// sent 1ms before t and answered at t, failing with errCode unless "".
func casOp(id uint64, client string, kind model.RecordOp, t history.Time, errCode model.RecordErr) history.Operation {
	return history.Operation{Client: client, Incarnation: 1, Server: "apiserver", ID: id, Call: t - ms, Processed: t, Return: t,
		Input:  history.Payload{Kind: string(kind), Key: "default/lock", Holder: client},
		Output: history.Payload{Kind: string(kind) + "_reply", Err: string(errCode), OK: errCode == ""}}
}

// TestMeasureForeignStore: for a lease store of its own protocol, grants
// and renewals come from the holders' beliefs and their own successful
// writes, as on every host; what the history cannot tell is not applicable,
// not zero.
func TestMeasureForeignStore(t *testing.T) {
	belief := func(holder string, token uint64, start, end history.Time) history.BeliefInterval {
		return history.BeliefInterval{Holder: holder, Incarnation: 1, Resource: "default/lock", Token: token,
			Start: start, End: end, Reason: history.EndDeadline, LastAct: history.Unknown}
	}
	beliefs := []history.BeliefInterval{belief("h1", 1, at(10), at(30_000)), belief("h2", 2, at(31_010), at(60_000))}
	ops := []history.Operation{
		casOp(1, "h1", model.OpRecordCreate, at(5), ""),                        // the grant: sent before the belief
		casOp(2, "h1", model.OpRecordGet, at(5_000), ""),                       // a read: not a renewal
		casOp(3, "h1", model.OpRecordUpdate, at(10_000), ""),                   // a renewal
		casOp(4, "h1", model.OpRecordUpdate, at(20_000), model.RecordConflict), // a failed renewal
		casOp(5, "h2", model.OpRecordUpdate, at(31_000), ""),                   // the takeover's grant
		casOp(6, "h2", model.OpRecordUpdate, at(40_000), ""),                   // a renewal
		casOp(7, "h3", model.OpRecordUpdate, at(45_000), model.RecordConflict), // a candidate that never held
	}
	for _, tt := range []struct {
		name                  string
		ops                   []history.Operation
		renewals, failures    int
		renewalsNotApplicable bool
	}{
		{"the store's operations recorded", ops, 2, 1, false},
		{"a server that records none", nil, 0, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &history.History{Spec: model.CASRecordSpec().Name, Grantor: "apiserver", Resource: "store", End: at(60_000),
				Lease: testLease(), Beliefs: beliefs}
			h.SetOps(tt.ops)
			m := Measure(h)
			assert.Equal(t, 2, m.Acquisitions, "two grants believed")
			assert.Equal(t, tt.renewals, m.Renewals)
			assert.Equal(t, tt.failures, m.RenewalFailures)
			_, na := m.NotApplicable[metricRenewals]
			assert.Equal(t, tt.renewalsNotApplicable, na, "%v", m.NotApplicable)
			assert.Contains(t, m.NotApplicable, metricStoreWrites, "the host counts no durable writes")
		})
	}
}

// TestMeasureLeasesimProtocolIsApplicable: leasesim's own protocol
// measures every metric.
func TestMeasureLeasesimProtocolIsApplicable(t *testing.T) {
	m := Measure(newHistory().acquire("h1", "lock", 1, at(0)).renew("h1", "lock", 1, at(1000), lease.CodeOK).build())
	assert.Empty(t, m.NotApplicable)
	assert.Equal(t, 1, m.Acquisitions)
	assert.Equal(t, 1, m.Renewals)
}
