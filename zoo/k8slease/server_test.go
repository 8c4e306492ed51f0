package k8slease

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

// ask sends q from "c" to the server and returns the response it sends.
func ask(t *testing.T, n *testNet, q request) *response {
	t.Helper()
	q.Client = "c"
	n.queue = nil
	n.nodes["apiserver"].(lease.AnyNode).DeliverAny("c", &q)
	if len(n.queue) == 0 {
		return nil
	}
	require.Len(t, n.queue, 1)
	require.Equal(t, lease.Addr("c"), n.queue[0].to)
	r := n.queue[0].m.(*response)
	n.queue = nil
	return r
}

func TestServerSemantics(t *testing.T) {
	a := record{HolderIdentity: "h1", LeaseDuration: 5 * time.Second, AcquireTime: 1, RenewTime: 1, LeaseTransitions: 1}
	b := record{HolderIdentity: "h2", HolderIncarnation: 3, LeaseDuration: 5 * time.Second, AcquireTime: 9, RenewTime: 9, LeaseTransitions: 2}
	steps := []struct {
		name    string
		q       request
		err     string
		rec     record
		version string
	}{
		{"get of a missing lease", request{Op: opGet, Name: "lock"}, errNotFound, record{}, ""},
		{"update of a missing lease", request{Op: opUpdate, Name: "lock", Record: a, Version: "1"}, errNotFound, record{}, ""},
		{"create", request{Op: opCreate, Name: "lock", Record: a}, "", record{}, "1"},
		{"create again", request{Op: opCreate, Name: "lock", Record: b}, errExists, record{}, ""},
		{"get", request{Op: opGet, Name: "lock"}, "", a, "1"},
		{"update at a stale version", request{Op: opUpdate, Name: "lock", Record: b, Version: "0"}, errConflict, record{}, ""},
		{"update at the current version", request{Op: opUpdate, Name: "lock", Record: b, Version: "1"}, "", record{}, "2"},
		{"the same update again", request{Op: opUpdate, Name: "lock", Record: a, Version: "1"}, errConflict, record{}, ""},
		{"get after the update", request{Op: opGet, Name: "lock"}, "", b, "2"},
		{"versions are global", request{Op: opCreate, Name: "other", Record: a}, "", record{}, "3"},
		{"no name", request{Op: opGet}, errBadRequest, record{}, ""},
		{"unknown verb", request{Op: "delete", Name: "lock"}, errBadRequest, record{}, ""},
	}
	n := newTestNet(t)
	n.server()
	for _, s := range steps {
		r := ask(t, n, s.q)
		require.NotNil(t, r, s.name)
		assert.Equal(t, s.q.Op+"_reply", r.Op, s.name)
		assert.Equal(t, s.err, r.Err, s.name)
		assert.Equal(t, s.rec, r.Record, s.name)
		assert.Equal(t, s.version, r.Version, s.name)
		assert.Zero(t, n.w.Store("apiserver").Unsynced(), "%s: a reply is sent only after Sync", s.name)
	}
}

// A restarted API server continues from its durable store: the records
// and the version counter survive, so no version is handed out twice.
func TestServerRestartKeepsRecordsAndVersions(t *testing.T) {
	a := record{HolderIdentity: "h1", LeaseDuration: time.Second, LeaseTransitions: 1}
	n := newTestNet(t)
	n.server()
	require.Equal(t, "1", ask(t, n, request{Op: opCreate, Name: "lock", Record: a}).Version)
	require.Equal(t, "2", ask(t, n, request{Op: opCreate, Name: "other", Record: a}).Version)
	n.w.Crash("apiserver")
	n.server()
	got := ask(t, n, request{Op: opGet, Name: "lock"})
	assert.Equal(t, a, got.Record)
	assert.Equal(t, "1", got.Version)
	assert.Equal(t, "3", ask(t, n, request{Op: opUpdate, Name: "lock", Record: a, Version: "1"}).Version)
}

// Leasesim's own messages are not this server's protocol: it ignores them.
func TestServerIgnoresLeasesimMessages(t *testing.T) {
	n := newTestNet(t)
	s := n.server()
	s.Deliver("c", lease.Message{Kind: lease.KindAcquire, Resource: "lock"})
	s.DeliverAny("c", "not a request")
	assert.Empty(t, n.queue)
}

func TestStoredRecordRoundTrip(t *testing.T) {
	for _, sr := range []storedRecord{
		{},
		{version: 7, rec: record{HolderIdentity: "h1", HolderIncarnation: 2, LeaseDuration: 5 * time.Second,
			AcquireTime: 3, RenewTime: 1 << 62, LeaseTransitions: 1<<64 - 1}},
	} {
		got, err := decodeStored(sr.encode())
		require.NoError(t, err)
		assert.Equal(t, sr, got)
	}
	_, err := decodeStored([]byte{0x80})
	assert.Error(t, err)
}
