package k8s_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
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

// closeTimes closes a request's body, then a body its GetBody makes, and
// records when each Close returned.
type closeTimes struct {
	start  time.Time
	closed []time.Duration
}

func (c *closeTimes) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		_, _ = io.ReadAll(r.Body)
		r.Body.Close()
		c.closed = append(c.closed, time.Since(c.start))
	}
	if r.GetBody != nil {
		body, err := r.GetBody()
		if err != nil {
			return nil, err
		}
		body.Close()
		c.closed = append(c.closed, time.Since(c.start))
	}
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody, Request: r}, nil
}

// A request body's Close returns 1 µs late on the bubble's clock, and so
// does a body GetBody makes; a request without a body passes at once.
func TestReproducibleHTTP2PausesABodysClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &closeTimes{start: time.Now()}
		rt := k8s.ReproducibleHTTP2(context.Background())(rec)
		put, err := http.NewRequest(http.MethodPut, "http://apiserver/x", strings.NewReader("lease"))
		require.NoError(t, err)
		_, err = rt.RoundTrip(put)
		require.NoError(t, err)
		get, err := http.NewRequest(http.MethodGet, "http://apiserver/x", nil)
		require.NoError(t, err)
		_, err = rt.RoundTrip(get)
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{time.Microsecond, 2 * time.Microsecond}, rec.closed)
		assert.Equal(t, 2*time.Microsecond, time.Since(rec.start), "the GET took no time")
	})
}
