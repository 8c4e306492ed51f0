package k8s_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"

	"github.com/leasesim/leasesim/gohost"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// wireHeaders records the header names of every request that reaches it.
type wireHeaders struct {
	next  http.RoundTripper
	names [][]string
}

func (w *wireHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	var names []string
	for k := range r.Header {
		names = append(names, k)
	}
	w.names = append(w.names, names)
	return w.next.RoundTrip(r)
}

// Through ReproducibleHTTP2 a request carries one header on the wire, and
// the server's Handler unfolds it: the typed client creates, reads and
// updates a Lease in protobuf (Content-Type and Accept survive the fold).
func TestReproducibleHTTP2FoldsHeaders(t *testing.T) {
	wire := &wireHeaders{next: handlerTransport{k8s.Handler(k8s.NewLeaseStore(gohost.NewStorage()), nil)}}
	c, err := coordinationv1client.NewForConfig(&rest.Config{Host: "http://apiserver",
		Transport:     k8s.ReproducibleHTTP2(context.Background())(wire),
		ContentConfig: rest.ContentConfig{ContentType: "application/vnd.kubernetes.protobuf"}})
	require.NoError(t, err)
	leases := c.Leases("ns")
	ctx := context.Background()
	created, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	holder := "h1"
	created.Spec.HolderIdentity = &holder
	_, err = leases.Update(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	got, err := leases.Get(ctx, "l", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "h1", *got.Spec.HolderIdentity)
	require.Len(t, wire.names, 3)
	for _, names := range wire.names {
		assert.Equal(t, []string{k8s.FoldedHeader}, names)
	}
}

// failing fails every request.
type failing struct{}

func (failing) RoundTrip(*http.Request) (*http.Response, error) { return nil, errors.New("stalled") }

// A failed request returns its error 1 ms late on the bubble's clock, or
// at once when the client's life has ended.
func TestReproducibleHTTP2PausesAfterAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		life, end := context.WithCancel(context.Background())
		rt := k8s.ReproducibleHTTP2(life)(failing{})
		req, err := http.NewRequest(http.MethodGet, "http://apiserver/x", nil)
		require.NoError(t, err)
		start := time.Now()
		_, err = rt.RoundTrip(req)
		require.Error(t, err)
		assert.Equal(t, time.Millisecond, time.Since(start))
		end()
		start = time.Now()
		_, err = rt.RoundTrip(req)
		require.Error(t, err)
		assert.Zero(t, time.Since(start))
	})
}
