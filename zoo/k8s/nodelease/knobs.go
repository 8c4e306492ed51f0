package nodelease

import (
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/scenarios"
)

// The knobs of k8s/nodelease: the settings a cluster's operators choose
// (simrun tune --knob, and --knob on run, sweep, replay and shrink).
const (
	// KnobRenewInterval is the kubelet lease controller's renew interval
	// (Heartbeat.RenewInterval; the kubelet derives it from
	// nodeLeaseDurationSeconds × 0.25).
	KnobRenewInterval = "renew-interval"
	// KnobGracePeriod is kube-controller-manager's
	// --node-monitor-grace-period (Monitoring.GracePeriod).
	KnobGracePeriod = "grace-period"
	// KnobMonitorPeriod is kube-controller-manager's --node-monitor-period
	// (Monitoring.Period).
	KnobMonitorPeriod = "monitor-period"
)

// Knobs are the knobs k8s/nodelease declares, with Kubernetes' defaults.
// A knob that is set replaces the story's own setting (renew-near-grace's
// 10 s grace period too).
var Knobs = []gohost.Knob{
	{Name: KnobRenewInterval, Doc: "how often each kubelet renews its node Lease (the lease controller's renew interval)",
		Default: DefaultHeartbeat.RenewInterval, Min: time.Second, Max: 5 * time.Minute},
	{Name: KnobGracePeriod, Doc: "how long the node lifecycle controller waits without a renewal before it marks a node Unknown (--node-monitor-grace-period)",
		Default: DefaultMonitoring.GracePeriod, Min: time.Second, Max: 10 * time.Minute},
	{Name: KnobMonitorPeriod, Doc: "how often the node lifecycle controller looks at the Leases (--node-monitor-period)",
		Default: DefaultMonitoring.Period, Min: time.Second, Max: time.Minute},
}

// TunedScenarios returns Scenarios with the knobs of k set (see Knobs):
// what simrun's worker for k8s/nodelease runs.
func TunedScenarios(k gohost.KnobValues) ([]scenarios.Scenario, error) {
	return stories(Variant{}, k), nil
}

// TunedNoGraceCheckScenarios is TunedScenarios for
// k8s/nodelease/no-grace-check.
func TunedNoGraceCheckScenarios(k gohost.KnobValues) ([]scenarios.Scenario, error) {
	return stories(Variant{NoGraceCheck: true}, k), nil
}

// TunedNoConnResetScenarios is TunedScenarios for
// k8s/nodelease/no-conn-reset.
func TunedNoConnResetScenarios(k gohost.KnobValues) ([]scenarios.Scenario, error) {
	return stories(Variant{Recovery: NoRecovery}, k), nil
}

// TunedDisableHTTP2Scenarios is TunedScenarios for
// k8s/nodelease/disable-http2.
func TunedDisableHTTP2Scenarios(k gohost.KnobValues) ([]scenarios.Scenario, error) {
	return stories(Variant{Recovery: CloseAll}, k), nil
}

// tuned returns s with the knobs of k set; the history's lease
// configuration (Lease) follows, so P7 reads the new renew interval and
// P8 the new detection bound.
func (s Setup) tuned(k gohost.KnobValues) Setup {
	s.Heartbeat.RenewInterval = k.Get(KnobRenewInterval, s.Heartbeat.RenewInterval)
	s.Monitoring.GracePeriod = k.Get(KnobGracePeriod, s.Monitoring.GracePeriod)
	s.Monitoring.Period = k.Get(KnobMonitorPeriod, s.Monitoring.Period)
	return s
}
