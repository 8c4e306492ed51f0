package k8s

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/leasesim/leasesim/history"
)

// Leadership is a candidate's belief, as the history records it. It
// learns the token and the deadline from the API server's replies to the
// candidate's own writes of the Lease (its WrapTransport), and begins and
// ends with the leader's context (Lead). Use one per LeaderElector
// identity; RESTConfig wires it.
//
// The deadline is renewTime + LeaseDuration, renewTime being the
// candidate's own clock reading that it wrote into the Lease it last
// created or updated successfully as holder: the other candidates count
// LeaseDuration from when they saw that record change, which is later.
// client-go cancels the leader's context at most RetryPeriod +
// RenewDeadline after its last successful renewal began, before that
// deadline with the usual timing, so the context's cancellation normally
// ends the belief.
type Leadership struct {
	env      Env
	resource string
	identity string
	duration time.Duration

	mu      sync.Mutex
	token   uint64    // leaseTransitions of the last record written as holder
	until   time.Time // its renewTime + LeaseDuration
	leading bool
}

// NewLeadership returns the belief tracker of the candidate identity in
// env, electing on lease ("namespace/name", also the resource its beliefs
// and fenced writes name) with leaseDuration.
func NewLeadership(env Env, lease, identity string, leaseDuration time.Duration) *Leadership {
	return &Leadership{env: env, resource: lease, identity: identity, duration: leaseDuration}
}

// Lead records, from OnStartedLeading, that the candidate leads until
// ctx (OnStartedLeading's) is cancelled, and returns its fencing token:
// the leaseTransitions of the Lease it acquired.
func (l *Leadership) Lead(ctx context.Context) uint64 {
	token := l.begin()
	context.AfterFunc(ctx, l.end)
	return token
}

// WrapTransport is a rest.Config.WrapTransport: it records the Lease
// requests for P3 (RecordingTransport) and reads the candidate's own
// accepted Lease writes for its token and deadline.
func (l *Leadership) WrapTransport(rt http.RoundTripper) http.RoundTripper {
	return RecordingTransport(l.env)(observe(l, rt))
}

// begin starts the belief (OnStartedLeading) and returns the token.
func (l *Leadership) begin() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.leading = true
	l.env.Believe(l.resource, l.token, l.until)
	return l.token
}

// end ends the belief (the leader's context was cancelled).
func (l *Leadership) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.leading {
		return
	}
	l.leading = false
	l.env.EndBelief(l.resource, l.token, history.EndLost)
}

// wrote notes a Lease the server accepted from this candidate.
func (l *Leadership) wrote(lease *coordinationv1.Lease) {
	s := &lease.Spec
	if s.HolderIdentity == nil || *s.HolderIdentity != l.identity || s.RenewTime == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var token uint64
	if s.LeaseTransitions != nil && *s.LeaseTransitions > 0 {
		token = uint64(*s.LeaseTransitions)
	}
	l.token, l.until = token, s.RenewTime.Add(l.duration)
	if l.leading {
		l.env.Believe(l.resource, l.token, l.until)
	}
}

// observe wraps a transport so that the Leases the server accepted from
// this candidate (a 200 or 201 reply to a create or an update) reach
// lead.wrote. It reads the reply's body and hands on a copy.
func observe(lead *Leadership, next http.RoundTripper) http.RoundTripper {
	return &observer{next: next, f: func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err != nil || (req.Method != http.MethodPut && req.Method != http.MethodPost) ||
			(resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated) {
			return resp, err
		}
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if rerr != nil {
			return resp, nil // client-go reads the short body and fails as it would
		}
		if lease, err := decodeLease(resp.Header.Get("Content-Type"), body); err == nil {
			lead.wrote(lease)
		}
		return resp, nil
	}}
}

// observer is the transport observe returns.
type observer struct {
	next http.RoundTripper
	f    func(*http.Request) (*http.Response, error)
}

// RoundTrip observes one round trip.
func (o *observer) RoundTrip(r *http.Request) (*http.Response, error) { return o.f(r) }

// WrappedRoundTripper returns the wrapped transport (client-go's
// utilnet.RoundTripperWrapper).
func (o *observer) WrappedRoundTripper() http.RoundTripper { return o.next }
