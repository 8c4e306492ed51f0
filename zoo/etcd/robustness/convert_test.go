package robustness

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"go.etcd.io/etcd/tests/v3/robustness/model"
	"go.etcd.io/etcd/tests/v3/robustness/report"
)

func putReq(key, value string, lease int64) model.EtcdRequest {
	return model.EtcdRequest{Type: model.Txn, Txn: &model.TxnRequest{OperationsOnSuccess: []model.EtcdOperation{
		{Type: model.PutOperation, Put: model.PutOptions{Key: key, Value: model.ToValueOrHash(value), LeaseID: lease}}}}}
}

func getReq(key string) model.EtcdRequest {
	return model.EtcdRequest{Type: model.Range, Range: &model.RangeRequest{RangeOptions: model.RangeOptions{Start: key}}}
}

func one(req model.EtcdRequest, resp model.MaybeEtcdResponse) []report.ClientReport {
	return []report.ClientReport{{ClientID: 1, KeyValue: []porcupine.Operation{
		{ClientId: 1, Input: putReq("k", "v", 7), Call: 10, Output: model.MaybeEtcdResponse{EtcdResponse: model.EtcdResponse{Revision: 2}}, Return: 20},
		{ClientId: 1, Input: req, Call: 30, Output: resp, Return: 40}}}}
}

// Each of etcd's recorded requests becomes the lessor operation it is, a
// key read back carries the lease of the put that wrote its value, a
// failed write has no return, a failed read is left out, and what the
// lessor specification does not model is refused, naming it.
func TestLessorConversion(t *testing.T) {
	ok := func(rev int64) model.MaybeEtcdResponse {
		return model.MaybeEtcdResponse{EtcdResponse: model.EtcdResponse{Revision: rev}}
	}
	found := ok(2)
	found.Range = &model.RangeResponse{Count: 1, KVs: []model.KeyValue{{Key: "k",
		ValueRevision: model.ValueRevision{Value: model.ToValueOrHash("v"), ModRevision: 2, Version: 1}}}}
	failed := model.MaybeEtcdResponse{Error: "context deadline exceeded"}
	notFound := model.MaybeEtcdResponse{Error: "etcdserver: requested lease not found"}
	del := model.EtcdRequest{Type: model.Txn, Txn: &model.TxnRequest{OperationsOnSuccess: []model.EtcdOperation{
		{Type: model.DeleteOperation, Delete: model.DeleteOptions{Key: "k"}}}}}
	list := getReq("key")
	list.Range.End = "kez"
	stale := getReq("k")
	stale.Range.Revision = 1
	tests := []struct {
		name string
		req  model.EtcdRequest
		resp model.MaybeEtcdResponse
		want *history.Operation // the second operation; nil: left out
		err  string
	}{
		{"a get of a leased key", getReq("k"), found, &history.Operation{Call: 30, Processed: 40, Return: 40,
			Input:  history.Payload{Kind: "get", Key: "k"},
			Output: history.Payload{Kind: "get_reply", OK: true, Value: "v", Version: "2", Lease: 7, Revision: 2}}, ""},
		{"a grant", model.EtcdRequest{Type: model.LeaseGrant, LeaseGrant: &model.LeaseGrantRequest{LeaseID: 9}}, ok(2),
			&history.Operation{Call: 30, Processed: 40, Return: 40, Input: history.Payload{Kind: "grant", TTL: time.Hour},
				Output: history.Payload{Kind: "grant_reply", Lease: 9, TTL: time.Hour, Revision: 2}}, ""},
		{"a failed revoke", model.EtcdRequest{Type: model.LeaseRevoke, LeaseRevoke: &model.LeaseRevokeRequest{LeaseID: 7}}, failed,
			&history.Operation{Call: 30, Processed: 30, Return: history.Never, Input: history.Payload{Kind: "revoke", Lease: 7},
				Output: history.Payload{Kind: "revoke_reply", Err: "unavailable"}}, ""},
		{"a put on a lease not found", putReq("j", "w", 8), notFound, &history.Operation{Call: 30, Processed: 40, Return: 40,
			Input:  history.Payload{Kind: "put", Key: "j", Value: "w", Lease: 8},
			Output: history.Payload{Kind: "put_reply", Err: "lease_not_found"}}, ""},
		{"a failed get", getReq("k"), failed, nil, ""},
		{"a delete", del, ok(3), nil, "a txn request (0 conditions; delete-operation)"},
		{"a list", list, ok(2), nil, `a range over "key".."kez"`},
		{"a stale read", stale, ok(2), nil, "at revision 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := Lessor(one(tt.req, tt.resp), time.Hour)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.Contains(t, err.Error(), "client 1, operation 1")
				return
			}
			require.NoError(t, err)
			if tt.want == nil {
				assert.Equal(t, 1, h.NumOps())
				return
			}
			require.Equal(t, 2, h.NumOps())
			got := h.Op(1)
			want := *tt.want
			want.Server, want.Client, want.ID = Server, "c1", 2
			assert.Equal(t, want, got)
			assert.Equal(t, history.Time(41), h.End)
		})
	}
}
