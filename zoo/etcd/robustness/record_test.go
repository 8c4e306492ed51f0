package robustness

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	etcd "github.com/leasesim/leasesim/zoo/etcd"
	"go.etcd.io/etcd/tests/v3/robustness/validate"
)

// etcd's robustness client, unchanged, records the lease traffic against a
// real etcd cluster on loopback; the history converts to the lessor
// specification with leases granted, attached, read back and revoked, and
// etcd's model does not reject it. Which verdicts a live run gets depends
// on timing, so this test asserts only that; `make etcd-robustness` runs
// the differential on fresh runs, and the tests above on recorded ones.
func TestRecordAgainstRealEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real etcd cluster")
	}
	bin, err := etcd.Build(t.Context(), t.TempDir())
	require.NoError(t, err)
	run := Runs()[0]
	run.Traffic = 2 * time.Second
	reps, err := run.Record(t.Context(), bin, t.TempDir())
	require.NoError(t, err)
	h, err := Lessor(reps, LeaseTTL)
	require.NoError(t, err)
	n := kinds(h)
	for _, k := range []string{"grant", "put", "get", "revoke", "get of a leased key"} {
		assert.Positive(t, n[k], "no %s", k)
	}
	// Undecided is allowed here (etcd's search has a wall-clock limit);
	// 20 s bounds the test on a loaded machine.
	v, err := Judge(t.Context(), reps, LeaseTTL, 20*time.Second)
	require.NoError(t, err)
	assert.NotEqual(t, validate.Failure, v.Etcd, "etcd's model rejected a history of real etcd: %v", v.EtcdErr)
	t.Logf("%s: %v; ops by kind %v", run.Name, v, n)
}
