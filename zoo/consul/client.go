package consul

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/hashicorp/consul/api"

	"github.com/leasesim/leasesim/gohost"
)

// NewClient returns the Consul API client, unchanged, whose HTTP transport
// dials the simulated agent (ServerNode+HTTPPort) through the node's
// network (http.Transport.DialContext = Node.Dial), and the transport, for
// closing its idle connections at the end of a life. Like api.DefaultConfig
// the client has no request timeout: a blocking query waits as long as the
// server lets it, and a request stalled by a partition waits for the heal.
//
// Determinism: the transport keeps no idle connections (one connection per
// request, DisableKeepAlives). net/http hands a finished connection back
// to its pool from its read loop's goroutine, which wakes at the same
// instant of the bubble's clock as the caller's next request: whether that
// request reuses the connection or dials a new one would be the Go
// runtime's choice, and Verify would see two runs diverge there. Dials go
// through a first-come, first-served queue (dialQueue), so that dials
// that a pause held back leave in the order they were asked for.
func NewClient(n *gohost.Node) (*api.Client, *http.Transport, error) {
	q := &dialQueue{dial: n.Dial}
	tr := &http.Transport{DialContext: q.DialContext, DisableKeepAlives: true, DisableCompression: true}
	c, err := api.NewClient(&api.Config{Address: ServerNode + HTTPPort, Scheme: "http",
		HttpClient: &http.Client{Transport: lifeTransport{n: n, next: tr}}})
	if err != nil {
		return nil, nil, fmt.Errorf("consul client: %w", err)
	}
	return c, tr, nil
}

// lifeOver is the status lifeTransport answers once the node's life has
// ended. It is no Consul answer and nothing receives it but the dead
// life's own goroutines.
const lifeOver = 499

// lifeTransport ends the client's goroutines with the node's life. A
// crashed process's threads stop; under the host, the client's goroutines
// would instead see a network error, which the client treats as retryable
// (api.IsRetryableError: monitorLock with MonitorRetries sleeps and
// retries, RenewPeriodic retries every second up to a TTL), and outlive
// the life as leaked goroutines. Once the life is over every request gets
// a non-retryable answer at once, so they return as they would have
// stopped. While the life lasts the transport is the plain one.
type lifeTransport struct {
	n    *gohost.Node
	next http.RoundTripper
}

// RoundTrip sends r, unless the life is over.
func (t lifeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if t.n.Context().Err() == nil {
		resp, err := t.next.RoundTrip(r)
		if err == nil || t.n.Context().Err() == nil {
			return resp, err
		}
	}
	if r.Body != nil {
		r.Body.Close()
	}
	const body = "leasesim: the node's life is over"
	return &http.Response{StatusCode: lifeOver, Status: fmt.Sprintf("%d life over", lifeOver), Proto: "HTTP/1.1",
		ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}, nil
}
