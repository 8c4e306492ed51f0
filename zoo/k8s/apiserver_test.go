package k8s_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// handlerTransport serves requests with a handler in process: the real
// typed client against the simulated server, with no network.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}

// processed records what the server reports, by op ref.
type processed map[gohost.OpRef]history.Payload

func (p processed) Processed(ref gohost.OpRef, out history.Payload) { p[ref] = out }

func newClient(t *testing.T, rec k8s.Recorder, contentType string) coordinationv1client.LeaseInterface {
	t.Helper()
	h := k8s.Handler(k8s.NewLeaseStore(gohost.NewStorage()), rec)
	c, err := coordinationv1client.NewForConfig(&rest.Config{Host: "http://apiserver", Transport: handlerTransport{h},
		ContentConfig: rest.ContentConfig{ContentType: contentType}})
	require.NoError(t, err)
	return c.Leases("kube-system")
}

func lease(name, holder, rv string) *coordinationv1.Lease {
	return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", ResourceVersion: rv},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
}

// TestAPIServerSemantics drives the server with client-go's typed client
// in both wire formats and checks what client-go sees: the objects, the
// resourceVersions and the errors as apierrors classifies them.
func TestAPIServerSemantics(t *testing.T) {
	for _, ct := range []string{"", "application/json"} { // "": the client's default, protobuf
		t.Run("content-type="+ct, func(t *testing.T) {
			ctx := context.Background()
			c := newClient(t, nil, ct)

			_, err := c.Get(ctx, "l", metav1.GetOptions{})
			assert.True(t, apierrors.IsNotFound(err), "get of a missing lease: %v", err)
			_, err = c.Update(ctx, lease("l", "a", "1"), metav1.UpdateOptions{})
			assert.True(t, apierrors.IsNotFound(err), "update of a missing lease: %v", err)

			created, err := c.Create(ctx, lease("l", "a", ""), metav1.CreateOptions{})
			require.NoError(t, err)
			assert.Equal(t, "1", created.ResourceVersion)
			assert.Equal(t, "a", *created.Spec.HolderIdentity)
			_, err = c.Create(ctx, lease("l", "b", ""), metav1.CreateOptions{})
			assert.True(t, apierrors.IsAlreadyExists(err), "second create: %v", err)

			got, err := c.Get(ctx, "l", metav1.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, created.ResourceVersion, got.ResourceVersion)

			tests := []struct {
				name    string
				rv      string
				wantErr func(error) bool
			}{
				{"stale resourceVersion", "7", apierrors.IsConflict},
				{"no resourceVersion", "", apierrors.IsInvalid},
				{"current resourceVersion", got.ResourceVersion, nil},
				{"the version just replaced", got.ResourceVersion, apierrors.IsConflict},
			}
			for _, tt := range tests {
				updated, err := c.Update(ctx, lease("l", "b", tt.rv), metav1.UpdateOptions{})
				if tt.wantErr != nil {
					assert.True(t, tt.wantErr(err), "%s: %v", tt.name, err)
					continue
				}
				require.NoError(t, err, tt.name)
				assert.Equal(t, "2", updated.ResourceVersion, tt.name)
				assert.Equal(t, "b", *updated.Spec.HolderIdentity, tt.name)
			}
		})
	}
}

// TestAPIServerReportsProcessing checks the cas-record replies the server
// reports for a request that names its op ref, per ZOO.md's payload
// conventions.
func TestAPIServerReportsProcessing(t *testing.T) {
	rec := processed{}
	h := k8s.Handler(k8s.NewLeaseStore(gohost.NewStorage()), rec)
	ref := gohost.OpRef{Client: "c1", Incarnation: 1, ID: 1}
	req := httptest.NewRequest(http.MethodGet, "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l", nil)
	req.Header.Set(k8s.OpHeader, ref.String())
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Equal(t, history.Payload{Kind: "get_reply", Err: "not_found"}, rec[ref])
}
