package nodelease

import (
	"context"
	"fmt"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
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
// client whose requests time out after RequestTimeout and which gets off
// a stalled connection by Recovery.
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
	// Recovery is the kubelet's client: HealthCheck (today's, HTTP/2),
	// CloseAll (DISABLE_HTTP2) or NoRecovery (before kubernetes#52176).
	Recovery Recovery
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
// (k8s.SecureAPIServer, over HTTPS) as the kubelet runs it: holder
// identity and Lease name the node's name, no post-processing (the
// kubelet's sets the Lease's owner to its Node object, which the
// simulated server does not serve), and the client and the
// onRepeatedHeartbeatFailure hook of hb.Recovery (the controller calls
// the hook after the second failed attempt of a renewal,
// retryUpdateLease). client-go builds the transport from the rest.Config
// (with its HTTP/2 health check unless hb.Recovery turns it off). The
// controller reads the node's own clock (k8s.Clock): RenewTime is the
// node's wall clock, so a step of it shows in the Lease. Every Lease
// request is recorded as an operation (k8s.RecordingTransport).
func Kubelet(hb Heartbeat) func(context.Context, *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		cfg := httpsConfig(ctx, k8s.RecordingTransport(n), hb.RequestTimeout)
		cfg.Dial = n.Dial
		var onRepeatedHeartbeatFailure func()
		switch hb.Recovery {
		case HealthCheck:
			// The kubelet's hook over HTTP/2: clientConfig.Transport is nil
			// for a client built from its rest.Config, so it closes nothing.
			onRepeatedHeartbeatFailure = func() { utilnet.CloseIdleConnectionsFor(cfg.Transport) }
		case CloseAll:
			d := connrotation.NewDialer(n.Dial)
			cfg.Dial, onRepeatedHeartbeatFailure = d.DialContext, d.CloseAll
		}
		var client *kubernetes.Clientset
		err := buildInEnv(hb.Recovery.env(), func() (err error) {
			client, err = kubernetes.NewForConfig(cfg)
			return err
		})
		if err != nil {
			return fmt.Errorf("kubelet %s: client: %w", n.Name(), err)
		}
		c := lease.NewController(k8s.Clock(n), client, n.Name(), int32(hb.LeaseDuration/time.Second),
			onRepeatedHeartbeatFailure, hb.RenewInterval, n.Name(), Namespace, nil)
		c.Run(ctx)
		return nil
	}
}
