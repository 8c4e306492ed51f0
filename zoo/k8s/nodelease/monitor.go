package nodelease

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"

	"github.com/leasesim/leasesim/gohost"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// Monitoring is the node lifecycle controller's timing, as
// kube-controller-manager's flags set it.
type Monitoring struct {
	// GracePeriod is --node-monitor-grace-period: how long the controller
	// waits, on its own clock, without seeing a node's Lease renewed
	// before it marks the node's Ready condition Unknown (50 s since
	// kubernetes#121793, 40 s before).
	GracePeriod time.Duration
	// Period is --node-monitor-period: how often it looks (5 s).
	Period time.Duration
	// ReadTimeout bounds each Lease read of the model (its stand-in for
	// the informer's cache, see Monitor).
	ReadTimeout time.Duration
	// NoGraceCheck removes the grace-period check: the variant that never
	// marks a node Unknown (P8's mutant).
	NoGraceCheck bool
}

// DefaultMonitoring is kube-controller-manager's default timing.
var DefaultMonitoring = Monitoring{GracePeriod: 50 * time.Second, Period: 5 * time.Second, ReadTimeout: 2 * time.Second}

// DetectBound is the bound the model declares for P8 (history's
// detect_bound_ns): a node whose last renewal the API server accepted at
// r is marked Unknown by r + GracePeriod + 2 × Period + ReadTimeout. The
// first pass that reads the renewed Lease starts at most Period after r
// and notes it at most ReadTimeout later (the probe time); a pass comes
// every Period, so the first one more than GracePeriod after the probe
// comes at most GracePeriod + Period after it. Clock drift of the
// controller is not in the bound: the stories run without drift.
func (m Monitoring) DetectBound() time.Duration { return m.GracePeriod + 2*m.Period + m.ReadTimeout }

// nodeHealth is what the controller keeps about one node, as
// nodeHealthData does: the Lease it last saw renewed and when it saw it
// (probeTimestamp, a reading of its own clock), and whether the node is
// Ready in its eyes.
type nodeHealth struct {
	renewTime *metav1.MicroTime // the saved Lease's RenewTime, nil before one was seen
	probe     time.Time
	ready     bool
}

// Verdict is a change of the controller's verdict about a node.
type Verdict struct {
	Node string
	Dead bool
}

// judge is one pass of the model over one node: observed is the node's
// Lease's RenewTime as read now (nil if it could not be read), now the
// controller's clock. It returns the verdict the pass changed, if any.
// It follows tryUpdateNodeHealth (kubernetes
// pkg/controller/nodelifecycle/node_lifecycle_controller.go):
//
//	if observedLease != nil && (savedLease == nil ||
//	    savedLease.Spec.RenewTime.Before(observedLease.Spec.RenewTime)) {
//	    nodeHealth.lease = observedLease
//	    nodeHealth.probeTimestamp = nc.now()
//	}
//	if currentReadyCondition != nil &&
//	    nc.now().After(nodeHealth.probeTimestamp.Add(gracePeriod)) { … Unknown }
//
// The probe time is the controller's reading when it saw the RenewTime
// move forward, never the RenewTime itself; a RenewTime that does not
// move forward (a kubelet whose clock stepped back) is not a renewal.
// The controller never marks a node Ready itself (the kubelet's status
// update does); the model declares the node alive again when it next sees
// its Lease renewed, the kubelet's status update's stand-in.
func (m Monitoring) judge(nh *nodeHealth, name string, observed *metav1.MicroTime, now time.Time) (Verdict, bool) {
	if observed != nil && (nh.renewTime == nil || nh.renewTime.Before(observed)) {
		nh.renewTime, nh.probe = observed.DeepCopy(), now
		if !nh.ready {
			nh.ready = true
			return Verdict{Node: name, Dead: false}, true
		}
	}
	if !m.NoGraceCheck && nh.ready && now.After(nh.probe.Add(m.GracePeriod)) {
		nh.ready = false
		return Verdict{Node: name, Dead: true}, true
	}
	return Verdict{}, false
}

// Monitor returns the node function of the model of the node lifecycle
// controller's lease logic, judging nodes: every Period of its own clock
// (k8s.Clock) it reads each node's Lease from the API server and judges
// it (judge), and records each verdict change (gohost.Node.Declare). Every
// node starts Ready with its probe time at the controller's start, as
// the controller starts a node's probe at the Node object's creation.
//
// The real controller reads Leases from an informer's cache, fed by a
// watch the simulated API server does not serve; the model reads each
// Lease with a GET (recorded as an operation) at every pass instead. A
// read that fails leaves the Lease unchanged, as a stale cache would.
func Monitor(m Monitoring, nodes []string) func(context.Context, *gohost.Node) error {
	return func(ctx context.Context, n *gohost.Node) error {
		cfg := httpsConfig(ctx, k8s.RecordingTransport(n), m.ReadTimeout) // kube-controller-manager's client: HTTP/2
		cfg.Dial = n.Dial
		var client *coordinationv1client.CoordinationV1Client
		err := buildInEnv(HealthCheck.env(), func() (err error) {
			client, err = coordinationv1client.NewForConfig(cfg)
			return err
		})
		if err != nil {
			return fmt.Errorf("controller %s: client: %w", n.Name(), err)
		}
		clock := k8s.Clock(n)
		health := make([]nodeHealth, len(nodes))
		for i := range health {
			health[i] = nodeHealth{probe: clock.Now(), ready: true}
		}
		tick := clock.NewTicker(m.Period)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C():
			}
			for i, name := range nodes {
				var observed *metav1.MicroTime
				if l, err := client.Leases(Namespace).Get(ctx, name, metav1.GetOptions{}); err == nil {
					observed = l.Spec.RenewTime
				}
				if v, changed := m.judge(&health[i], name, observed, clock.Now()); changed {
					n.Declare(v.Node, v.Dead, m.GracePeriod)
				}
			}
		}
	}
}
