package k8s

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"time"
)

// FoldedHeader is the one header a request carries through
// ReproducibleHTTP2: every header of the request, sorted and
// URL-encoded. The API server's handler unfolds it.
const FoldedHeader = "X-Leasesim-Headers"

// retryPause is how long ReproducibleHTTP2 holds a failed request's
// error before returning it.
const retryPause = time.Millisecond

// closePause is how long a request body's Close takes through
// ReproducibleHTTP2, on the bubble's clock.
const closePause = time.Microsecond

// ReproducibleHTTP2 wraps a client's transport (rest.Config.WrapTransport,
// inside k8s.RecordingTransport) so that HTTP/2 behaves the same in every
// run of a seed on the goroutine host. client-go and golang.org/x/net are
// unchanged; three things about the wire and its timing are not what a real
// kubelet does:
//
//   - The request's headers travel folded into one, FoldedHeader, sorted
//     (the server's handler unfolds them before it reads the request).
//     x/net/http2 encodes a request's headers in Go's map order
//     (internal/httpcommon, EncodeHeaders), so the same request's HPACK
//     bytes, and their length, differ run to run; one header has one order.
//   - A request that fails returns its error 1 ms late. When a request times
//     out, x/net resets its stream (RST_STREAM, and a PING) from the
//     stream's own goroutine while the caller, at the same instant, sends
//     its retry: which is written first varies run to run. The pause lets
//     the reset go first; every retry after a failure comes 1 ms later than
//     it would.
//   - A request's body closes 1 µs late. When client-go's health check gives
//     up on a connection (a PING unanswered), x/net aborts its streams and
//     closes the TLS connection, which writes a close_notify alert, while
//     each aborted stream's goroutine resets its stream once its request
//     body has closed: which reaches the connection first varies run to
//     run (the alert first, and the reset is never written). The pause
//     lets the close go first. A request without a body (a GET) has no
//     close to wait for: its reset still races the alert.
//
// HTTP/1.1 needs none of them (net/http writes headers sorted, and a
// connection carries one request at a time); they are harmless there.
//
// life is the client node's life: the pause ends early when it ends, so
// that no request outlives its node.
func ReproducibleHTTP2(life context.Context) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper { return reproducible{life: life, next: next} }
}

type reproducible struct {
	life context.Context
	next http.RoundTripper
}

// RoundTrip sends req with its headers folded and its body's Close
// paused, and holds an error back for retryPause.
func (t reproducible) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.Header = http.Header{FoldedHeader: {url.Values(req.Header).Encode()}}
	out.Body = pausing(out.Body)
	if getBody := req.GetBody; getBody != nil {
		out.GetBody = func() (io.ReadCloser, error) {
			body, err := getBody()
			return pausing(body), err
		}
	}
	resp, err := t.next.RoundTrip(out)
	if err != nil {
		pause := time.NewTimer(retryPause) // the bubble's clock: the node's goroutines settle meanwhile
		defer pause.Stop()
		select {
		case <-pause.C:
		case <-t.life.Done():
		}
	}
	return resp, err
}

// pausing returns body with its Close paused, or body itself when there is
// none (nil or http.NoBody).
func pausing(body io.ReadCloser) io.ReadCloser {
	if body == nil || body == http.NoBody {
		return body
	}
	return pausingBody{body}
}

// pausingBody is a request body whose Close returns closePause late.
type pausingBody struct{ io.ReadCloser }

// Close closes the body, then waits closePause.
func (b pausingBody) Close() error {
	err := b.ReadCloser.Close()
	time.Sleep(closePause) // the bubble's clock: the connection's closer finishes meanwhile
	return err
}

// WrappedRoundTripper returns the wrapped transport (client-go's
// utilnet.RoundTripperWrapper).
func (t reproducible) WrappedRoundTripper() http.RoundTripper { return t.next }

// unfold restores the headers ReproducibleHTTP2 folded, before h reads
// the request; a request without FoldedHeader passes as it is.
func unfold(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if folded := r.Header.Get(FoldedHeader); folded != "" {
			vals, err := url.ParseQuery(folded)
			if err != nil {
				http.Error(w, FoldedHeader+": "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Header.Del(FoldedHeader)
			for k, vv := range vals {
				r.Header[k] = vv
			}
		}
		h.ServeHTTP(w, r)
	})
}
