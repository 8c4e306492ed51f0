package model

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
)

// Histories that etcd's documented guarantees forbid are refused by the
// lessor window specification (with and without the bound). Each case
// names the guarantee: etcd v3.6's "Lease API" (learning/api.md), "etcd API
// guarantees" (learning/api_guarantees.md) and server/lease/lessor.go at
// v3.6.0. A TTL of 10 s and rho 1%: a lease must live 9.9 s after its
// renewal.
func TestLessorWindowRefusesWhatEtcdForbids(t *testing.T) {
	const rho = 10_000_000
	grantK := []pair{lgrant(7, 10, 0), lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK)}
	with := func(ps ...pair) []pair { return append(append([]pair{}, grantK...), ps...) }
	runCases(t, LessorWindowSpec(rho), []specCase{
		// api.md, Lease API: "A lease expires if the etcd cluster does not
		// receive a keepAlive within a given TTL period" — not before.
		{"a lease not found before its TTL", with(llease(OpKeepAlive, 7, 5, LessorLeaseNotFound, 0)), "must stay live until 9.9s"},
		{"a key of a live lease gone before its TTL", with(lget("k", 5, "", 0, 0, 0, 2)), "must still be live"},
		{"a keepalive restarts the TTL", with(llease(OpKeepAlive, 7, 8, LessorOK, 10),
			llease(OpKeepAlive, 7, 15, LessorLeaseNotFound, 0)), "must stay live until 17.9s"},
		// api.md: "When the lease is revoked, all attached keys are deleted."
		{"a key read after its lease's revoke", with(llease(OpLeaseRevoke, 7, 2, LessorOK, 0), lget("k", 3, "a", 1, 1, 7, 2)),
			"had expired or been revoked"},
		{"a keepalive after the revoke", with(llease(OpLeaseRevoke, 7, 2, LessorOK, 0), llease(OpKeepAlive, 7, 3, LessorOK, 10)),
			"had expired or been revoked"},
		{"a put attached to a revoked lease", with(llease(OpLeaseRevoke, 7, 2, LessorOK, 0),
			lput(OpPut, "j", "b", 7, 3, false, 3, LessorOK)), "had expired or been revoked"},
		// lessor.go Grant: an id in use is refused (ErrLeaseExists).
		{"a grant of a live id", with(lgrant(7, 10, 2)), "not in use"},
		// api_guarantees.md, Revision: "An etcd operation that modifies the
		// key value store is assigned a single increasing revision."
		{"a revision that goes back", with(lget("k", 2, "a", 1, 1, 7, 1), lget("j", 3, "", 0, 0, 0, 0),
			lput(OpPut, "j", "b", 0, 4, false, 3, LessorOK), lget("k", 5, "a", 1, 1, 7, 2)), "below 3"},
		{"a put that does not raise the revision", with(lput(OpPut, "j", "b", 0, 2, false, 1, LessorOK)), "raises it above 1"},
		// The txn If(CreateRevision(k) == 0) Then Put fails while k exists.
		{"a create over a key of a live lease", with(lgrant(8, 10, 2), lput(OpCreate, "k", "b", 8, 3, true, 2, LessorOK)),
			"create put over a live key"},
		// api_guarantees.md, Linearizability: a read after a completed write
		// returns "a value at least as recent as the previous write".
		{"a stale read", []pair{lput(OpPut, "c", "s1", 0, 1, false, 1, LessorOK), lput(OpPut, "c", "s2", 0, 2, false, 2, LessorOK),
			lget("c", 3, "s1", 1, 1, 0, 2)}, "but it was put \"s2\" at mod 2"},
	})
}

// etcd's revision is one store-wide clock: a get of one key that starts
// after a put of another returned must not show a lower revision, though
// the two touch different keys and leases (different partitions).
func TestLessorWindowRevisionsAcrossPartitions(t *testing.T) {
	put := func(key string, call, processed, ret float64, rev int64) porcupine.Operation {
		in, out := hcreate(key, "v", 0, rev)
		return hop("a1", "grantor", call, processed, ret, in, out)
	}
	get := func(call, processed, ret float64, rev int64) porcupine.Operation {
		in, out := hgetAbsent("other", rev)
		return hop("b2", "grantor", call, processed, ret, in, out)
	}
	for _, tc := range []struct {
		name string
		ops  []porcupine.Operation
		want porcupine.CheckResult
	}{
		{"a get after the put sees its revision", []porcupine.Operation{put("k", 1, 1.1, 1.2, 5), get(2, 2.1, 2.2, 5)}, porcupine.Ok},
		{"a get after the put sees a lower revision", []porcupine.Operation{put("k", 1, 1.1, 1.2, 5), get(2, 2.1, 2.2, 4)}, porcupine.Illegal},
		{"a get concurrent with the put may see the lower one", []porcupine.Operation{put("k", 1, 1.5, 2.2, 5), get(1, 1.1, 2.2, 4)}, porcupine.Ok},
		{"a put after another that returns a lower revision", []porcupine.Operation{put("k", 1, 1.1, 1.2, 5), put("j", 2, 2.1, 2.2, 5)}, porcupine.Illegal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := LessorWindowSpec(10_000_000)
			parts := 2 // one per key
			if tc.want == porcupine.Illegal {
				parts = 1 // the regression joins them
			}
			assert.Len(t, spec.Model.Partition(tc.ops), parts)
			got, _ := porcupine.CheckOperationsVerbose(spec.Model, tc.ops, 0)
			assert.Equal(t, tc.want, got)
		})
	}
}

// The decisions of docs/decisions/0007, 0009 and 0010, each as the
// smallest history that shows it.
func TestLessorWindowDecisions(t *testing.T) {
	runCases(t, LessorWindowSpec(10_000_000), []specCase{
		// 0007: etcd refuses only an id in use.
		{"0007 a revoked id granted again", []pair{lgrant(7, 10, 0), llease(OpLeaseRevoke, 7, 1, LessorOK, 0), lgrant(7, 10, 2),
			lput(OpCreate, "k", "a", 7, 3, true, 1, LessorOK)}, ""},
		{"0007 an id not found before its grant", []pair{llease(OpLeaseRevoke, 7, 1, LessorLeaseNotFound, 0), lgrant(7, 10, 2)}, ""},
		{"0007 an id that may have expired", []pair{lgrant(7, 10, 0), lgrant(7, 10, 11)}, ""},
		// 0009: a put is unconditional and keeps the key's create revision.
		{"0009 a put over a key of another live lease", []pair{lgrant(7, 10, 0), lgrant(8, 10, 0),
			lput(OpCreate, "k", "a", 7, 1, true, 1, LessorOK), lput(OpPut, "k", "b", 8, 2, false, 2, LessorOK),
			lexists("k", 8, 3, 1, 2)}, ""},
		{"0009 an unsure key read with another lease leaves its old lease live", []pair{lgrant(7, 10, 0),
			lput(OpPut, "k", "a", 7, 1, false, 1, LessorOK), lput(OpPut, "k", "b", 0, 2, false, 0, "unavailable"),
			lget("k", 3, "b", 0, 2, 0, 2), lput(OpPut, "j", "c", 7, 4, false, 3, LessorOK)}, ""},
		{"0009 an unsure key does not free its old lease's id", []pair{lgrant(7, 10, 0),
			lput(OpPut, "k", "a", 7, 1, false, 1, LessorOK), lput(OpPut, "k", "b", 0, 2, false, 0, "unavailable"),
			lget("k", 3, "", 0, 0, 0, 2), lgrant(7, 10, 4)}, "not in use"},
		{"0009 a put does not make a new create revision", []pair{lput(OpCreate, "k", "a", 0, 1, true, 1, LessorOK),
			lput(OpPut, "k", "b", 0, 2, false, 2, LessorOK), lexists("k", 0, 3, 2, 2)}, "must still be live"},
		// 0010: lease 0 is no lease.
		{"0010 a keepalive of lease 0 ends no key", []pair{lput(OpPut, "k", "a", 0, 1, false, 1, LessorOK),
			llease(OpKeepAlive, 0, 2, LessorLeaseNotFound, 0), lget("k", 3, "", 0, 0, 0, 1)}, "must still be live"},
	})
}
