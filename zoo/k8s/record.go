package k8s

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// OpHeader is the request header that carries a request's gohost.OpRef
// from the client's recording transport to the API server, which names
// it when it reports the request processed. client-go and the server's
// semantics ignore it.
const OpHeader = "X-Leasesim-Op"

// Caller is what the recording transport reports to the history: a
// request's call and its return. *gohost.Node is one.
type Caller interface {
	Call(server string, input history.Payload) gohost.OpRef
	Return(ref gohost.OpRef)
}

// recordPayload is a Lease as the cas-record spec reads it (ZOO.md,
// "Payload conventions"): Key namespace/name, Holder the holder
// identity, TTL the lease duration, Token the lease transitions, Value
// the writer's acquire and renew times in nanoseconds, Version its
// resourceVersion.
func recordPayload(l *coordinationv1.Lease) history.Payload {
	p := history.Payload{Key: l.Namespace + "/" + l.Name, Version: l.ResourceVersion}
	s := &l.Spec
	if s.HolderIdentity != nil {
		p.Holder = *s.HolderIdentity
	}
	if s.LeaseDurationSeconds != nil {
		p.TTL = time.Duration(*s.LeaseDurationSeconds) * time.Second
	}
	if s.LeaseTransitions != nil && *s.LeaseTransitions > 0 {
		p.Token = uint64(*s.LeaseTransitions)
	}
	var acquire, renew int64
	if s.AcquireTime != nil {
		acquire = s.AcquireTime.UnixNano()
	}
	if s.RenewTime != nil {
		renew = s.RenewTime.UnixNano()
	}
	p.Value = fmt.Sprintf("acquire=%d renew=%d", acquire, renew)
	return p
}

// leaseRequest reads a Lease request as the cas-record spec's input: the
// op ("get", "create", "update"), the record name and, for writes, the
// record and the resourceVersion it was read at. ok is false for a
// request that is not about a Lease.
func leaseRequest(r *http.Request, body []byte) (history.Payload, bool) {
	const prefix = "/apis/coordination.k8s.io/v1/namespaces/"
	rest, found := strings.CutPrefix(r.URL.Path, prefix)
	if !found {
		return history.Payload{}, false
	}
	parts := strings.Split(rest, "/") // ns, "leases"[, name]
	if len(parts) < 2 || parts[1] != "leases" {
		return history.Payload{}, false
	}
	ns := parts[0]
	var in history.Payload
	switch {
	case r.Method == http.MethodGet && len(parts) == 3:
		in = history.Payload{Key: ns + "/" + parts[2]}
		in.Kind = "get"
	case r.Method == http.MethodPost && len(parts) == 2, r.Method == http.MethodPut && len(parts) == 3:
		l, err := decodeLease(r.Header.Get("Content-Type"), body)
		if err != nil {
			return history.Payload{}, false
		}
		if l.Namespace == "" {
			l.Namespace = ns
		}
		in = recordPayload(l)
		in.Kind = "update"
		if r.Method == http.MethodPost {
			in.Kind, in.Version = "create", ""
		}
	default:
		return history.Payload{}, false
	}
	return in, true
}

// RecordingTransport wraps a client's transport so that every Lease
// request is recorded as a cas-record operation: its call when it leaves,
// its return when the reply's headers arrive, its ref in OpHeader for the
// server to report the processing. A request that fails (a timeout, a
// reset) stays unreturned: the server may have acted on it. rest.Config's
// WrapTransport takes it: cfg.WrapTransport = k8s.RecordingTransport(n).
func RecordingTransport(c Caller) func(http.RoundTripper) http.RoundTripper {
	return func(next http.RoundTripper) http.RoundTripper {
		return &recordingTransport{c: c, next: next}
	}
}

type recordingTransport struct {
	c    Caller
	next http.RoundTripper
}

// RoundTrip records req around the wrapped transport's round trip.
func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("k8s: recording transport: reading the request body: %w", err)
		}
		body = b
	}
	in, ok := leaseRequest(req, body)
	out := req.Clone(req.Context())
	if body != nil {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		out.ContentLength = int64(len(body))
	}
	if !ok {
		return t.next.RoundTrip(out)
	}
	ref := t.c.Call(APIServerName, in)
	out.Header.Set(OpHeader, ref.String())
	resp, err := t.next.RoundTrip(out)
	if err == nil {
		t.c.Return(ref)
	}
	return resp, err
}

// WrappedRoundTripper returns the wrapped transport (client-go's
// utilnet.RoundTripperWrapper), so that client-go can reach through it.
func (t *recordingTransport) WrappedRoundTripper() http.RoundTripper { return t.next }
