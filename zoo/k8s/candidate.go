package k8s

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// APIServerName is the API server's node name, and APIHost the URL
// candidates reach it at.
const (
	APIServerName = "apiserver"
	APIHost       = "http://" + APIServerName + APIPort
)

// Timing is client-go's leader election timing (LeaderElectionConfig).
type Timing struct {
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// DefaultTiming is the timing kube-controller-manager and most operators
// run with: a 15 s lease, renewed within 10 s, tried every 2 s.
var DefaultTiming = Timing{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second}

// ScenarioTiming is DefaultTiming with a RetryPeriod of 1.9 s, which the
// scenarios run with. With DefaultTiming, RenewDeadline is exactly five
// RetryPeriods: the renewal poll's fifth tick and its timeout fire at the
// same instant of the bubble's clock, and which of the two the poll sees
// first is the Go runtime's choice (timer order, select), so a run in
// which a renewal times out can take either branch: Verify reports that
// as a divergence. 1.9 s keeps every tick off the deadline.
var ScenarioTiming = Timing{LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 1900 * time.Millisecond}

// Env is what a candidate needs from where it runs: a name and a life, a
// network, and the history recorder. *gohost.Node is one; the plain
// synctest benchmark has another.
type Env interface {
	Name() string
	Incarnation() uint64
	Dial(ctx context.Context, network, addr string) (net.Conn, error)
	Believe(resource string, token uint64, until time.Time)
	EndBelief(resource string, token uint64, reason history.EndReason)
	// Act records that the node acts under token now (gohost.Node.Act):
	// the leader calls it as it sends a write, so that an action after
	// the belief ended stretches the belief to it.
	Act(resource string, token uint64)
	// Failpoint marks a point where the schedule can pause or crash the
	// node (gohost.Node.Failpoint): FailpointBeforeWrite.
	Failpoint(name string)
	Caller
}

// FailpointBeforeWrite is where the leader's work can be paused or
// crashed: after it decided to write under its token, before the write.
const FailpointBeforeWrite = "before-write"

// StoreWriter writes to the fenced store under a token: nil when
// accepted, an error wrapping gohost.ErrFenced when refused.
// (*gohost.StoreClient).Write is one.
type StoreWriter interface {
	Write(ctx context.Context, resource string, token uint64, key, value string) error
}

// CandidateOptions configure one candidate: client-go's configuration and
// what the application does while it leads.
type CandidateOptions struct {
	Timing
	// Lease is the Lease's namespace/name; it is also the resource the
	// beliefs and the fenced writes name. Empty means DefaultLease.
	Lease string
	// ReleaseOnCancel is LeaderElectionConfig.ReleaseOnCancel.
	ReleaseOnCancel bool
	// RequestTimeout is rest.Config.Timeout, zero for none (the requests
	// are then bounded by client-go's contexts only).
	// resourcelock.NewFromKubeconfig sets RenewDeadline/2; with it, a
	// renewal that times out twice in a row ends exactly at the renewal
	// poll's deadline, two timers at one instant, and the run can take
	// either branch (Verify reports it as a divergence).
	RequestTimeout time.Duration
	// Start is how long the candidate waits before it joins.
	Start time.Duration
	// Store, when set, is the fenced store's address ("store:7001"): the
	// leader writes there every WriteEvery under its token. Empty: the
	// leader does no work.
	Store      string
	WriteEvery time.Duration
	// SlowShutdown, when positive, is a shutdown that outlives the lead
	// (cilium/cilium#42920): OnStoppedLeading blocks this long (a stop
	// hook that hangs), and the leader's work stops only when it returns,
	// instead of when OnStartedLeading's context is cancelled.
	SlowShutdown time.Duration
	// Log receives klog's output of the candidate's client-go code, one
	// line per call; nil discards it.
	Log func(string)
}

// DefaultLease is the Lease candidates elect on.
const DefaultLease = "kube-system/leasesim"

// Candidate returns the node function of a candidate: it runs client-go's
// leaderelection with a resourcelock.LeaseLock over a typed coordination/v1
// client that reaches the API server over the node's simulated network.
// It records its belief from OnStartedLeading to the cancellation of that
// context (see doc.go) and, with a Store, writes there while it leads.
// When an election run ends (the lease lost) it joins again after
// RetryPeriod, as a controller restarted by its kubelet would.
func Candidate(opts CandidateOptions) func(ctx context.Context, n *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		var store StoreWriter
		if opts.Store != "" {
			sc := n.NewStoreClient(opts.Store)
			defer sc.Close()
			store = sc
		}
		return RunCandidate(ctx, n, store, opts)
	}
}

// RunCandidate runs a candidate in env until ctx ends (see Candidate).
func RunCandidate(ctx context.Context, env Env, store StoreWriter, opts CandidateOptions) error {
	if opts.Lease == "" {
		opts.Lease = DefaultLease
	}
	ns, name, err := splitLease(opts.Lease)
	if err != nil {
		return err
	}
	if opts.Log != nil {
		ctx = klog.NewContext(ctx, funcr.New(func(prefix, args string) { opts.Log(prefix + " " + args) }, funcr.Options{}))
	} else {
		ctx = klog.NewContext(ctx, logr.Discard())
	}
	identity := fmt.Sprintf("%s_%d", env.Name(), env.Incarnation()) // a pod's hostname_uuid: new each life
	lead := NewLeadership(env, opts.Lease, identity, opts.LeaseDuration)
	cfg := RESTConfig(env, lead)
	cfg.Timeout = opts.RequestTimeout
	client, err := coordinationv1client.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("candidate %s: client: %w", env.Name(), err)
	}
	if !sleep(ctx, opts.Start) {
		return nil
	}
	for ctx.Err() == nil {
		lock := &resourcelock.LeaseLock{
			LeaseMeta:  metav1.ObjectMeta{Namespace: ns, Name: name},
			Client:     client,
			LockConfig: resourcelock.ResourceLockConfig{Identity: identity},
		}
		if err := elect(ctx, lock, lead, store, opts); err != nil {
			return err
		}
		if !sleep(ctx, opts.RetryPeriod) {
			return nil
		}
	}
	return nil
}

// RESTConfig returns the client configuration of a candidate in env: the
// API server at APIHost over env's network, its requests recorded and
// its Lease writes read by lead.
func RESTConfig(env Env, lead *Leadership) *rest.Config {
	return &rest.Config{Host: APIHost, Dial: env.Dial, WrapTransport: lead.WrapTransport}
}

// elect runs one leaderelection.LeaderElector until it stops leading or
// ctx ends.
func elect(ctx context.Context, lock resourcelock.Interface, lead *Leadership, store StoreWriter, opts CandidateOptions) error {
	workCtx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	var led atomic.Bool
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   opts.LeaseDuration,
		RenewDeadline:   opts.RenewDeadline,
		RetryPeriod:     opts.RetryPeriod,
		ReleaseOnCancel: opts.ReleaseOnCancel,
		Name:            opts.Lease,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leaderCtx context.Context) {
				led.Store(true)
				token := lead.Lead(leaderCtx)
				if store == nil {
					return
				}
				wctx := leaderCtx
				if opts.SlowShutdown > 0 {
					wctx = workCtx // the bug: the work stops when the shutdown reaches it
				}
				work(wctx, lead.env, store, lead.resource, token, opts.WriteEvery)
			},
			OnStoppedLeading: func() {
				if led.Load() && opts.SlowShutdown > 0 {
					sleep(ctx, opts.SlowShutdown) // a stop hook that hangs
				}
				stopWork()
			},
		},
	})
	if err != nil {
		return fmt.Errorf("candidate %s: %w", lead.env.Name(), err)
	}
	le.Run(ctx)
	return nil
}

// work is the leader's job: a write to the fenced store every every,
// under the token, until ctx ends or the store fences it. Each write is
// an action under the token (Env.Act), recorded where the leader decides
// on it, before the failpoint that may stall it.
func work(ctx context.Context, env Env, store StoreWriter, resource string, token uint64, every time.Duration) {
	for seq := 1; sleep(ctx, every); seq++ {
		env.Act(resource, token) // the decision to write: an action counts here (gohost.Node.Act)
		env.Failpoint(FailpointBeforeWrite)
		err := store.Write(ctx, resource, token, "data", fmt.Sprintf("%s/%d-%d", env.Name(), env.Incarnation(), seq))
		if errors.Is(err, gohost.ErrFenced) {
			return // someone newer holds the lease: stop acting
		}
	}
}

// sleep waits d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return ctx.Err() == nil // both ready at once: select picks at random
	case <-ctx.Done():
		return false
	}
}

func splitLease(s string) (ns, name string, err error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" {
		return "", "", fmt.Errorf("lease %q: want namespace/name", s)
	}
	return ns, name, nil
}
