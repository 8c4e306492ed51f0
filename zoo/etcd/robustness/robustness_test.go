package robustness

import (
	"archive/tar"
	"bytes"
	"cmp"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"go.etcd.io/etcd/tests/v3/robustness/model"
	"go.etcd.io/etcd/tests/v3/robustness/report"
	"go.etcd.io/etcd/tests/v3/robustness/validate"
)

// etcdTimeout bounds etcd's search in tests: each committed history and
// mutation is decided by it in under a second on an idle machine.
const etcdTimeout = time.Minute

// recorded returns the committed histories: testdata/NAME.tar.gz, each a
// run directory in etcd's own layout as `go run ./cmd/etcdrobustness -out`
// saved it, read by Load (etcd's report.LoadClientReports).
func recorded(t *testing.T) map[string][]report.ClientReport {
	t.Helper()
	files, err := filepath.Glob("testdata/*.tar.gz")
	require.NoError(t, err)
	require.NotEmpty(t, files, "no recorded histories in testdata")
	out := map[string][]report.ClientReport{}
	for _, f := range files {
		reps, err := Load(f)
		require.NoError(t, err, f)
		out[strings.TrimSuffix(filepath.Base(f), ".tar.gz")] = reps
	}
	return out
}

// kinds counts the converted history's operations by kind and outcome.
func kinds(h *history.History) map[string]int {
	n := map[string]int{}
	for _, op := range h.AllOps() {
		n[op.Input.Kind]++
		if op.Input.Kind == "get" && op.Output.Lease != 0 {
			n["get of a leased key"]++
		}
		if !op.Returned() {
			n["no return"]++
		}
	}
	return n
}

// Every history etcd's robustness client recorded against real etcd
// (with a leader paused, a member crashed, the leader cut off) is
// linearizable for etcd's model, and leasesim's lessor specification
// accepts it too; each has leases granted, attached, read back and
// revoked, so the acceptance is about leases.
func TestRecordedHistoriesAccepted(t *testing.T) {
	for name, reps := range recorded(t) {
		t.Run(name, func(t *testing.T) {
			h, err := Lessor(reps, LeaseTTL)
			require.NoError(t, err)
			n := kinds(h)
			for _, k := range []string{"grant", "put", "get", "revoke", "get of a leased key"} {
				assert.Positive(t, n[k], "%s: no %s", name, k)
			}
			v, err := Judge(t.Context(), reps, LeaseTTL, etcdTimeout)
			require.NoError(t, err)
			assert.NoError(t, v.EtcdErr, "etcd's model")
			assert.Equal(t, checker.OK, v.Leasesim.Status, v.String())
			assert.True(t, v.Agree())
			t.Logf("%s: %v; %d ops by kind %v", name, v, h.NumOps(), n)
		})
	}
}

// Crafted mutations of every recorded history make both etcd's model and
// leasesim's specification reject it, so the acceptance above is not a
// check that accepts anything.
func TestMutatedHistoriesRejected(t *testing.T) {
	mutations := []struct {
		name   string
		mutate func([]report.ClientReport) ([]report.ClientReport, bool)
		why    string // a reason leasesim may give: the search may meet either contradiction first
	}{
		{"a key read back after its lease was revoked", readAfterRevoke, `(expired or been revoked|returned revision \d+, below)`},
		{"a read whose revision goes back", revisionBack, `returned revision \d+, below`},
	}
	for name, reps := range recorded(t) {
		for _, m := range mutations {
			t.Run(name+"/"+m.name, func(t *testing.T) {
				bad, ok := m.mutate(reps)
				require.True(t, ok, "the history has no place for this mutation")
				v, err := Judge(t.Context(), bad, LeaseTTL, etcdTimeout)
				require.NoError(t, err)
				assert.Equal(t, validate.Failure, v.Etcd, "etcd's model: %v", v.EtcdErr)
				assert.Equal(t, checker.Violated, v.Leasesim.Status, v.String())
				assert.Regexp(t, m.why, v.Leasesim.Summary)
			})
		}
	}
}

// op is one recorded operation and where it is.
type op struct {
	client, i int
	req       model.EtcdRequest
	resp      model.MaybeEtcdResponse
	call, ret int64
}

func ops(reps []report.ClientReport) []op {
	var out []op
	for c, r := range reps {
		for i, o := range r.KeyValue {
			out = append(out, op{c, i, o.Input.(model.EtcdRequest), o.Output.(model.MaybeEtcdResponse), o.Call, o.Return})
		}
	}
	return out
}

func (o op) ok() bool { return o.resp.Error == "" && o.resp.ClientError == "" }

func (o op) get() bool { return o.req.Type == model.Range && o.ok() }

// withResponse returns reps with the operation at o answered by resp
// instead (a copy: reps is not changed).
func withResponse(reps []report.ClientReport, o op, resp model.MaybeEtcdResponse) []report.ClientReport {
	out := slices.Clone(reps)
	out[o.client].KeyValue = slices.Clone(reps[o.client].KeyValue)
	out[o.client].KeyValue[o.i].Output, out[o.client].KeyValue[o.i].Metadata = resp, resp
	return out
}

// readAfterRevoke: the first get that began after a revoke of lease L
// returned, of a key a put under L wrote and no other put touched since,
// shows the key with that put's value. etcd deletes a lease's keys when it
// is revoked (api.md, "Lease API"). The first such get in time: porcupine
// refutes a contradiction early in a history faster than a late one.
func readAfterRevoke(reps []report.ClientReport) ([]report.ClientReport, bool) {
	all := ops(reps)
	slices.SortFunc(all, func(a, b op) int { return cmp.Compare(a.call, b.call) })
	for _, g := range all {
		if !g.get() {
			continue
		}
		for _, rv := range all {
			if rv.req.Type != model.LeaseRevoke || !rv.ok() || rv.ret >= g.call {
				continue
			}
			if p, ok := onlyPutSince(all, g, rv.req.LeaseRevoke.LeaseID); ok && p.ret < rv.call {
				put, _ := singlePut(p.req)
				resp := g.resp
				resp.Range = &model.RangeResponse{Count: 1, KVs: []model.KeyValue{{Key: put.Key,
					ValueRevision: model.ValueRevision{Value: put.Value, ModRevision: p.resp.Revision, Version: 1}}}}
				return withResponse(reps, g, resp), true
			}
		}
	}
	return nil, false
}

// onlyPutSince returns the last put of g's key sent before g returned, if
// it was under lease, every put of the key succeeded, and every other one
// returned before it was sent: the put whose value g must see, unless its
// lease was revoked.
func onlyPutSince(all []op, g op, lease int64) (op, bool) {
	var puts []op
	for _, p := range all {
		if put, ok := singlePut(p.req); ok && put.Key == g.req.Range.Start && p.call < g.ret {
			if !p.ok() {
				return op{}, false
			}
			puts = append(puts, p)
		}
	}
	if len(puts) == 0 {
		return op{}, false
	}
	last := slices.MaxFunc(puts, func(a, b op) int { return cmp.Compare(a.ret, b.ret) })
	for _, p := range puts {
		if p != last && p.ret >= last.call {
			return op{}, false
		}
	}
	put, _ := singlePut(last.req)
	return last, put.LeaseID == lease
}

// revisionBack: a get that began after another get returned answers with
// a lower store revision. etcd's revision never goes back
// (api_guarantees.md, "Revision").
func revisionBack(reps []report.ClientReport) ([]report.ClientReport, bool) {
	all := ops(reps)
	slices.SortFunc(all, func(a, b op) int { return cmp.Compare(a.call, b.call) })
	for _, a := range all {
		if !a.get() || a.resp.Revision < 3 {
			continue
		}
		for _, b := range all {
			if !b.get() || b.call <= a.ret || b.resp.Revision != a.resp.Revision {
				continue
			}
			resp := b.resp
			resp.Revision = a.resp.Revision - 1
			return withResponse(reps, b, resp), true
		}
	}
	return nil, false
}

// Load refuses what is not a recorded run, naming it: a missing path, a
// directory without operations, an archive whose names leave its
// directory, a file that is not gzip.
func TestLoadRefuses(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.MkdirAll(filepath.Join(empty, "client-1"), 0o755))
	escape := filepath.Join(dir, "escape.tar.gz")
	require.NoError(t, os.WriteFile(escape, tarGz(t, "../outside", "x"), 0o644))
	notGz := filepath.Join(dir, "plain.tar.gz")
	require.NoError(t, os.WriteFile(notGz, []byte("not gzip"), 0o644))
	for _, tt := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "no such file"},
		{empty, "no operations"},
		{escape, `"../outside" leaves the directory`},
		{notGz, "plain.tar.gz: not a .tar.gz"},
	} {
		_, err := Load(tt.path)
		require.Error(t, err, tt.path)
		assert.Contains(t, err.Error(), tt.want)
	}
}

// tarGz returns a .tar.gz holding one file.
func tarGz(t *testing.T, name, body string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}))
	_, err := tw.Write([]byte(body))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return buf.Bytes()
}
