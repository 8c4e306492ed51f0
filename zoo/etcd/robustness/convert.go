package robustness

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
	lessorspec "github.com/leasesim/leasesim/model"
	"go.etcd.io/etcd/tests/v3/robustness/model"
	"go.etcd.io/etcd/tests/v3/robustness/report"
)

// Server is the etcd cluster's name as the converted history's one lease
// server (etcd is one linearizable store, whichever member answered).
const Server = "etcd"

// errLeaseNotFound is how etcd's client reports a lease that does not
// exist (rpctypes.ErrLeaseNotFound), as etcd's history records its text.
const errLeaseNotFound = "etcdserver: requested lease not found"

// errUnavailable is the converted history's error for a request that
// failed otherwise (a timeout, a lost connection, no leader): the lessor
// specification leaves such a request's fate open, as etcd's validation
// does (a failed write may still have been persisted).
const errUnavailable = "unavailable"

// Lessor converts etcd robustness-test operation logs (what etcd's
// RecordingClients recorded, or report.LoadClientReports read back) into a
// history that leasesim's checkers judge under the lessor specification,
// with ttl the TTL every lease was granted (LeaseTTL for Record's traffic:
// etcd's format does not carry it).
//
// Each operation keeps its client (the RecordingClient), call and return
// (nanoseconds since the traffic started); its processing time, which a
// client cannot see, is its return, as zoo/etcd's host records etcd's
// answers. etcd's single-key Range is a get, a one-put transaction a put,
// LeaseGrant a grant and LeaseRevoke a revoke. What etcd's format leaves
// out, the history supplies from the log itself: a key read back is
// attached to the lease of the put that wrote the value read (every value
// the traffic writes is unique, and in etcd only a put sets a key's value
// and its lease together); its create revision is unknown (0), which the
// specification allows. A failed read is left out (it has no effect; etcd's
// validation leaves it out too); a failed write is kept, refused with
// "unavailable" and no return (it may take effect at any time after its
// call, or never), or refused with LessorLeaseNotFound where etcd said the
// lease was not found. Any other request
// (deletes, ranges over several keys, reads at a past revision,
// transactions with conditions or several operations) is an error that
// names it: the lessor specification does not model it.
func Lessor(reports []report.ClientReport, ttl time.Duration) (*history.History, error) {
	leaseOf := map[string]int64{} // value -> the lease its put attached; looked up, never iterated
	for _, r := range reports {
		for _, op := range r.KeyValue {
			if put, ok := singlePut(op.Input.(model.EtcdRequest)); ok {
				leaseOf[putValue(put)] = put.LeaseID
			}
		}
	}
	var ops []history.Operation
	end := history.Time(0)
	for _, r := range reports {
		for i, op := range r.KeyValue {
			o, keep, err := convert(op, leaseOf, ttl)
			if err != nil {
				return nil, fmt.Errorf("robustness: client %d, operation %d: %w", r.ClientID, i, err)
			}
			end = max(end, history.Time(op.Return)+1)
			if !keep {
				continue
			}
			o.Server, o.Client, o.ID = Server, fmt.Sprintf("c%d", r.ClientID), uint64(i+1)
			ops = append(ops, o)
		}
	}
	slices.SortStableFunc(ops, func(a, b history.Operation) int { return cmp.Compare(a.Call, b.Call) })
	h := &history.History{Spec: lessorspec.LessorSpec().Name, Lease: history.Lease{TTL: ttl}, Grantor: Server, End: end}
	h.SetOps(ops)
	return h, nil
}

// convert converts one operation; keep is false for a failed read.
func convert(op porcupine.Operation, leaseOf map[string]int64, ttl time.Duration) (history.Operation, bool, error) {
	req, resp := op.Input.(model.EtcdRequest), op.Output.(model.MaybeEtcdResponse)
	o := history.Operation{Call: history.Time(op.Call), Return: history.Time(op.Return), Processed: history.Time(op.Return)}
	failed := resp.Error != "" || resp.ClientError != ""
	o.Output = history.Payload{Revision: resp.Revision}
	switch {
	case failed && strings.Contains(resp.Error+resp.ClientError, errLeaseNotFound):
		o.Output = history.Payload{Err: string(lessorspec.LessorLeaseNotFound)}
	case failed:
		// The request may still commit after the client gave up (a member
		// cut off gets it when the cut heals): it has no return, and took
		// effect at its call at the earliest, as etcd's validation has it
		// (a failed request's return is the end of time).
		o.Output = history.Payload{Err: errUnavailable}
		o.Return, o.Processed = history.Never, o.Call
	}
	switch {
	case req.Type == model.Range:
		if req.Range.End != "" || req.Range.Revision != 0 {
			return o, false, fmt.Errorf("a range over %q..%q at revision %d: the lessor specification reads one key "+
				"at the current revision", req.Range.Start, req.Range.End, req.Range.Revision)
		}
		o.Input = history.Payload{Kind: string(lessorspec.OpGetKey), Key: req.Range.Start}
		if failed {
			return o, false, nil
		}
		if kvs := resp.Range.KVs; len(kvs) > 0 {
			kv := kvs[0]
			v := valueText(kv.Value)
			o.Output.OK, o.Output.Value, o.Output.Version = true, v, strconv.FormatInt(kv.ModRevision, 10)
			o.Output.Lease = uint64(leaseOf[v])
		}
	case req.Type == model.LeaseGrant:
		o.Input = history.Payload{Kind: string(lessorspec.OpGrant), TTL: ttl}
		if !failed {
			o.Output.Lease, o.Output.TTL = uint64(req.LeaseGrant.LeaseID), ttl
		}
	case req.Type == model.LeaseRevoke:
		o.Input = history.Payload{Kind: string(lessorspec.OpLeaseRevoke), Lease: uint64(req.LeaseRevoke.LeaseID)}
	default:
		put, ok := singlePut(req)
		if !ok {
			return o, false, fmt.Errorf("a %s request (%s): the lessor specification models gets, puts, grants and "+
				"revokes", req.Type, describe(req))
		}
		o.Input = history.Payload{Kind: string(lessorspec.OpPut), Key: put.Key, Value: putValue(put),
			Lease: uint64(put.LeaseID)}
	}
	o.Output.Kind = o.Input.Kind + "_reply"
	return o, true, nil
}

// singlePut returns the put of a transaction that is one unconditional
// put, as etcd's history records Put and PutWithLease.
func singlePut(req model.EtcdRequest) (model.PutOptions, bool) {
	if req.Type != model.Txn || len(req.Txn.Conditions) != 0 || len(req.Txn.OperationsOnFailure) != 0 ||
		len(req.Txn.OperationsOnSuccess) != 1 || req.Txn.OperationsOnSuccess[0].Type != model.PutOperation {
		return model.PutOptions{}, false
	}
	return req.Txn.OperationsOnSuccess[0].Put, true
}

func putValue(p model.PutOptions) string { return valueText(p.Value) }

// valueText is a value as etcd's format keeps it: the value, or its hash
// for a long one.
func valueText(v model.ValueOrHash) string {
	if v.Hash != 0 {
		return fmt.Sprintf("hash:%d", v.Hash)
	}
	return v.Value
}

// describe names a request the conversion refuses.
func describe(req model.EtcdRequest) string {
	if req.Txn == nil {
		return string(req.Type)
	}
	var parts []string
	for _, op := range req.Txn.AllOperations() {
		parts = append(parts, string(op.Type))
	}
	return fmt.Sprintf("%d conditions; %s", len(req.Txn.Conditions), strings.Join(parts, ", "))
}
