package nodelease

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/connrotation"
	"k8s.io/component-helpers/apimachinery/lease"

	"github.com/leasesim/leasesim/gohost"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// Namespace is the namespace of the node Leases (v1.NamespaceNodeLease).
const Namespace = "kube-node-lease"

// Heartbeat is how a kubelet heartbeats, as the kubelet configures its
// lease controller (pkg/kubelet/kubelet.go, NewMainKubelet): a Lease of
// LeaseDuration named for the node, renewed every RenewInterval, over a
// client whose requests time out after RequestTimeout, which closes its
// connections after repeated failures unless NoConnReset.
type Heartbeat struct {
	// LeaseDuration is the kubelet's nodeLeaseDurationSeconds (40 s).
	LeaseDuration time.Duration
	// RenewInterval is the lease controller's renew interval: the kubelet
	// sets LeaseDuration × nodeLeaseRenewIntervalFraction (0.25), 10 s.
	// The controller jitters it by up to 4% (wait.JitterUntil, 0.04).
	RenewInterval time.Duration
	// RequestTimeout is the heartbeat client's rest.Config.Timeout: the
	// kubelet's nodeStatusUpdateFrequency (10 s), capped at LeaseDuration.
	RequestTimeout time.Duration
	// NoConnReset leaves out the onRepeatedHeartbeatFailure hook that
	// closes every connection of the kubelet's dialer: the kubelet before
	// kubernetes#52176 and #63492.
	NoConnReset bool
}

// DefaultHeartbeat is the kubelet's default heartbeat.
var DefaultHeartbeat = Heartbeat{LeaseDuration: 40 * time.Second, RenewInterval: 10 * time.Second,
	RequestTimeout: 10 * time.Second}

// renewJitter is the lease controller's jitter factor
// (wait.JitterUntilWithContext(ctx, c.sync, c.renewInterval, 0.04, true)).
const renewJitter = 0.04

// Kubelet returns the node function of a kubelet's heartbeat: the lease
// controller of k8s.io/component-helpers/apimachinery/lease, unchanged,
// renewing the Lease kube-node-lease/<node> on the simulated API server
// (k8s.SecureAPIServer, HTTPS) as the kubelet runs it: holder identity and
// Lease name the node's name, no post-processing (the kubelet's sets the
// Lease's owner to its Node object, which the simulated server does not
// serve). The client is the kubelet's with DISABLE_HTTP2 set
// (cmd/kubelet/app/server.go, buildKubeletClientConfig): HTTP/1.1 (see
// k8s.TLSClientConfig for why not HTTP/2), a dialer from client-go's
// connrotation (updateDialer), and an onRepeatedHeartbeatFailure hook
// that closes every connection it made (Dialer.CloseAll), which the lease
// controller calls after the second failed attempt of a renewal
// (retryUpdateLease); hb.NoConnReset leaves the hook out. client-go builds
// the transport from the rest.Config. The controller reads the node's own
// clock (k8s.Clock): RenewTime is the node's wall clock, so a step of it
// shows in the Lease. Every Lease request is recorded as an operation
// (k8s.RecordingTransport).
func Kubelet(hb Heartbeat) func(context.Context, *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		d := connrotation.NewDialer(n.Dial)
		cfg := &rest.Config{Host: k8s.SecureAPIHost, TLSClientConfig: k8s.TLSClientConfig(), Dial: d.DialContext,
			WrapTransport: k8s.RecordingTransport(n), Timeout: hb.RequestTimeout,
			QPS: -1} // the kubelet's heartbeat client is not throttled
		onRepeatedHeartbeatFailure := d.CloseAll
		if hb.NoConnReset {
			onRepeatedHeartbeatFailure = nil
		}
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return fmt.Errorf("kubelet %s: client: %w", n.Name(), err)
		}
		c := lease.NewController(k8s.Clock(n), client, n.Name(), int32(hb.LeaseDuration/time.Second),
			onRepeatedHeartbeatFailure, hb.RenewInterval, n.Name(), Namespace, nil)
		c.Run(ctx)
		return nil
	}
}
