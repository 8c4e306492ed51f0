package k8slease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
)

// The messages describe cas-record operations in the payload conventions
// the specification's adapter reads.
func TestMessagesDescribeCASRecordOperations(t *testing.T) {
	rec := record{HolderIdentity: "h2", HolderIncarnation: 1, LeaseDuration: 5 * time.Second,
		AcquireTime: 7, RenewTime: 9, LeaseTransitions: 3}
	recPayload := history.Payload{Holder: "h2", HolderIncarnation: 1, TTL: 5 * time.Second, Token: 3,
		Value: "acquire=7 renew=9"}
	with := func(p history.Payload, kind, err, version string) history.Payload {
		p.Kind, p.Resource, p.Key, p.Err, p.Version = kind, "lock", "lock", err, version
		return p
	}
	for _, tc := range []struct {
		name string
		msg  history.Described
		want history.Part
	}{
		{"get", request{Op: opGet, Client: "h2", ID: 5, Name: "lock"},
			history.Part{Client: "h2", ID: 5, Payload: with(history.Payload{}, "get", "", "")}},
		{"get reply", response{Op: "get_reply", Client: "h2", ID: 5, Name: "lock", Record: rec, Version: "4"},
			history.Part{Client: "h2", ID: 5, Reply: true, Payload: with(recPayload, "get_reply", "", "4")}},
		{"update", request{Op: opUpdate, Client: "h2", ID: 6, Name: "lock", Record: rec, Version: "4"},
			history.Part{Client: "h2", ID: 6, Payload: with(recPayload, "update", "", "4")}},
		{"update reply", response{Op: "update_reply", Client: "h2", ID: 6, Name: "lock", Version: "5"},
			history.Part{Client: "h2", ID: 6, Reply: true, Payload: with(history.Payload{}, "update_reply", "", "5")}},
		{"conflict", response{Op: "update_reply", Client: "h2", ID: 6, Name: "lock", Err: errConflict},
			history.Part{Client: "h2", ID: 6, Reply: true, Payload: with(history.Payload{}, "update_reply", "conflict", "")}},
		{"create", request{Op: opCreate, Client: "h2", ID: 1, Name: "lock", Record: rec},
			history.Part{Client: "h2", ID: 1, Payload: with(recPayload, "create", "", "")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.msg.Describe())
		})
	}
}

// A digest covers every field a checker could read.
func TestDigestsCoverContents(t *testing.T) {
	base := request{Op: opUpdate, Client: "h1", ID: 3, Name: "lock", Version: "4",
		Record: record{HolderIdentity: "h1", LeaseDuration: time.Second, AcquireTime: 1, RenewTime: 2, LeaseTransitions: 1}}
	changes := []func(*request){
		func(q *request) { q.Op = opCreate },
		func(q *request) { q.Client = "h2" },
		func(q *request) { q.ID++ },
		func(q *request) { q.Name = "other" },
		func(q *request) { q.Version = "5" },
		func(q *request) { q.Record.HolderIdentity = "h2" },
		func(q *request) { q.Record.HolderIncarnation++ },
		func(q *request) { q.Record.LeaseDuration++ },
		func(q *request) { q.Record.AcquireTime++ },
		func(q *request) { q.Record.RenewTime++ },
		func(q *request) { q.Record.LeaseTransitions++ },
	}
	for i, change := range changes {
		q := base
		change(&q)
		assert.NotEqual(t, base.Digest(), q.Digest(), "change %d", i)
	}
	assert.Equal(t, base.Digest(), base.Digest())
	r := response{Op: "get_reply", Client: "h1", ID: 3, Name: "lock", Version: "4", Record: base.Record}
	r2 := r
	r2.Err = errNotFound
	assert.NotEqual(t, r.Digest(), r2.Digest())
}
