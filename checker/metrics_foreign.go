package checker

import (
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The metrics that depend on the lease store's protocol (grants, renewals,
// the store's durable writes) are counted from leasesim's protocol where
// the history speaks it (countOps). A lease store of another protocol (an
// implementation with a specification of its own, or one whose server
// records no operation) is measured from what every host records alike,
// so the metrics mean the same for every implementation and host:
//
//   - a grant is a (resource, token) some holder believed it held: the
//     spec's success reply that made the holder believe (a grant whose
//     reply never reached its holder is not seen, since a foreign store's
//     replies need not say which token they issued);
//   - a renewal is a successful lease-store request that is not a read,
//     sent by a holder that believed it held a lease and answered while it
//     still did (the spec's success reply to the holder's own write, such
//     as a Kubernetes Lease update, a Redis PEXPIRE, an etcd keepalive); a
//     renewal failure is such a request that failed or went unanswered;
//   - the lease store's durable writes are counted only where the host
//     measures them.
//
// What the history cannot tell is not counted as zero: its metric is
// named in Metrics.NotApplicable with the reason.

// The metric names NotApplicable uses: the Metrics JSON keys.
const (
	metricRenewals        = "renewals"
	metricRenewalFailures = "renewal_failures"
	metricStoreWrites     = "store_writes"
	metricStoreWritesRate = "store_writes_per_s"
)

// foreignRead is the read of every foreign specification (a Kubernetes
// Lease's get, Redis GET, etcd Range).
const foreignRead = string(model.OpRecordGet)

// leasesimProtocol reports whether the history's lease store speaks
// leasesim's protocol: its spec is leasesim's lease store and its
// operations are in the history.
func leasesimProtocol(a *analysis) bool {
	if !leaseStoreSpec(a.h.Spec) {
		return false
	}
	for _, r := range a.rows() {
		if r.grantor() {
			return true
		}
	}
	return false
}

// countForeign counts grants and renewals of a lease store whose protocol
// is not leasesim's, and says what it cannot count.
func (m *Metrics) countForeign(a *analysis) {
	h := a.h
	type grant struct {
		resource string
		token    uint64
	}
	seen := make(map[grant]bool) // looked up, never iterated
	for _, b := range h.Beliefs {
		if g := (grant{b.Resource, b.Token}); !seen[g] {
			seen[g] = true
			m.Acquisitions++
		}
	}
	storeOps := 0
	var op history.Operation
	for i, r := range a.inProcessedOrder() {
		if !r.grantor() {
			continue
		}
		storeOps++
		a.h.LoadOp(i, &op)
		if !believing(h.Beliefs, op) {
			continue
		}
		if r.err == errNone && r.returned() {
			m.Renewals++
		} else {
			m.RenewalFailures++
		}
	}
	if storeOps == 0 {
		why := "the lease store's operations are not in the history: its server records none"
		m.notApplicable(metricRenewals, why)
		m.notApplicable(metricRenewalFailures, why)
	}
	if h.GrantorSyncs == 0 {
		why := "the host does not measure the lease store's durable writes"
		m.notApplicable(metricStoreWrites, why)
		m.notApplicable(metricStoreWritesRate, why)
	}
}

// believing reports whether op's client believed it held a lease from
// before op's reply until after it: a request of a believing holder.
// A read (the specs' "get") is not one.
func believing(beliefs []history.BeliefInterval, op history.Operation) bool {
	if op.Input.Kind == foreignRead {
		return false
	}
	answered := op.Return
	if answered == history.Never {
		answered = op.Processed
	}
	for _, b := range beliefs {
		if b.Holder == op.Client && b.Incarnation == op.Incarnation && b.Start < op.Call && answered <= b.End {
			return true
		}
	}
	return false
}

// notApplicable marks a metric as not measured in this run, with why.
func (m *Metrics) notApplicable(metric, why string) {
	if m.NotApplicable == nil {
		m.NotApplicable = make(map[string]string)
	}
	if _, ok := m.NotApplicable[metric]; !ok {
		m.NotApplicable[metric] = why
	}
}
