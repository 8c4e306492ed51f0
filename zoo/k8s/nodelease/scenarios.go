package nodelease

import (
	"fmt"
	"time"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
	k8s "github.com/leasesim/leasesim/zoo/k8s"
)

// ControllerName is the node of the node lifecycle controller's model.
const ControllerName = "controller"

// Setup is one run: the API server, the controller's model and a kubelet
// per node. Config builds it.
type Setup struct {
	// Nodes are the kubelets' node names.
	Nodes []string
	// Heartbeat is every kubelet's; Monitoring the controller's.
	Heartbeat  Heartbeat
	Monitoring Monitoring
	// Schedule is the fault plan; Duration the run's length.
	Schedule faults.Schedule
	Duration time.Duration
}

// Config returns the goroutine host's configuration (the same for every
// seed): math/rand's global source is seeded from the run's seed
// (SeedMathRand), since the lease controller's jitter draws from it.
func (s Setup) Config(uint64) gohost.Config {
	nodes := []gohost.NodeSpec{
		{Name: k8s.APIServerName, Run: k8s.SecureAPIServer},
		{Name: ControllerName, Run: Monitor(s.Monitoring, s.Nodes)},
	}
	for _, name := range s.Nodes {
		nodes = append(nodes, gohost.NodeSpec{Name: name, Run: Kubelet(s.Heartbeat)})
	}
	return gohost.Config{Nodes: nodes, Schedule: s.Schedule, Duration: s.Duration, SeedMathRand: true,
		SeedCryptoRand: true, // the TLS handshakes
		History:        gohost.HistoryConfig{Spec: "cas-record", Grantor: k8s.APIServerName, Lease: s.Lease()}}
}

// Lease is the run as the history's lease configuration: the Lease's
// duration, the kubelet's longest renew interval (jittered by up to 4%)
// and its request timeout, which P7 reads as its renewal schedule, and
// the controller's detection bound (Monitoring.DetectBound), which makes
// the history a failure detector's for P7 and P8.
func (s Setup) Lease() history.Lease {
	hb := s.Heartbeat
	return history.Lease{TTL: hb.LeaseDuration,
		RenewInterval:  hb.RenewInterval + time.Duration(float64(hb.RenewInterval)*renewJitter),
		RequestTimeout: hb.RequestTimeout, DetectBound: s.Monitoring.DetectBound()}
}

// Scenarios returns the stories with the kubelet and the controller's
// model as Kubernetes runs them: simrun's k8s/nodelease.
func Scenarios() []scenarios.Scenario { return stories(Variant{}, nil) }

// NoGraceCheckScenarios returns the same stories with a controller that
// never marks a node Unknown: simrun's k8s/nodelease/no-grace-check.
func NoGraceCheckScenarios() []scenarios.Scenario { return stories(Variant{NoGraceCheck: true}, nil) }

// NoConnResetScenarios returns the same stories with kubelets that never
// get off a stalled connection (Recovery NoRecovery: the kubelet before
// kubernetes#52176 on HTTP/2 without the health check): simrun's
// k8s/nodelease/no-conn-reset.
func NoConnResetScenarios() []scenarios.Scenario { return stories(Variant{Recovery: NoRecovery}, nil) }

// DisableHTTP2Scenarios returns the same stories with kubelets run with
// DISABLE_HTTP2 (Recovery CloseAll: HTTP/1.1 and the connrotation hook):
// simrun's k8s/nodelease/disable-http2.
func DisableHTTP2Scenarios() []scenarios.Scenario { return stories(Variant{Recovery: CloseAll}, nil) }

// Variant is what an impl changes in the stories: the controller's grace
// check (Monitoring.NoGraceCheck) or the kubelet's client
// (Heartbeat.Recovery). The zero Variant is Kubernetes as it runs.
type Variant struct {
	NoGraceCheck bool
	Recovery     Recovery
}

func stories(v Variant, k gohost.KnobValues) []scenarios.Scenario {
	return []scenarios.Scenario{nodeClockStepBack(v, k), controllerClockJump(v, k), renewNearGrace(v, k),
		nodePartitioned(v, k), nodeConnectionStalled(v, k)}
}

// faultAt is when every story's fault strikes: the kubelets have renewed
// a few times by then.
const faultAt = 30 * time.Second

// twoNodes is the usual setup: node-1, whom the story is about, and
// node-2, a bystander.
func twoNodes(v Variant, d time.Duration, events ...faults.Event) Setup {
	m, hb := DefaultMonitoring, DefaultHeartbeat
	m.NoGraceCheck, hb.Recovery = v.NoGraceCheck, v.Recovery
	return Setup{Nodes: []string{"node-1", "node-2"}, Heartbeat: hb, Monitoring: m, Duration: d,
		Schedule: faults.Schedule{Version: faults.Version, HealAt: d, Events: events}}
}

// scenario is a story with its setup, the knobs of k set over the
// story's own settings.
func scenario(name, doc, story string, setup Setup, k gohost.KnobValues, premises ...scenarios.Premise) scenarios.Scenario {
	setup = setup.tuned(k)
	return scenarios.Scenario{Name: name, Doc: doc, Story: story, Goroutines: setup.Config, Premises: premises}
}

// NodeClockStepBack is kubernetes#113081 (open): node-1's clock steps
// back ten minutes.
func NodeClockStepBack(noGraceCheck bool) scenarios.Scenario {
	return nodeClockStepBack(Variant{NoGraceCheck: noGraceCheck}, nil)
}

func nodeClockStepBack(v Variant, k gohost.KnobValues) scenarios.Scenario {
	setup := twoNodes(v, 150*time.Second,
		faults.Event{At: faultAt, Kind: faults.KindStep, Node: "node-1", Step: -10 * time.Minute})
	return scenario("node-clock-step-back", "a healthy node's clock steps back 10 min (kubernetes#113081)",
		"node-1's wall clock steps back ten minutes at 30 s. Its kubelet keeps renewing every 10 s and the API "+
			"server accepts every renewal, but each carries a RenewTime ten minutes earlier than the last one the "+
			"controller saved, and tryUpdateNodeHealth counts a renewal only if RenewTime moves forward. The "+
			"controller stops refreshing node-1's probe time and marks it Unknown a grace period later: a false "+
			"suspicion of a healthy node (P7), until node-1's clock passes its old RenewTime ten minutes later.",
		setup, k, renewedAfter(history.FaultStep, "node-1"))
}

// ControllerClockJump is kubernetes#108844: the controller's clock jumps
// a day forward.
func ControllerClockJump(noGraceCheck bool) scenarios.Scenario {
	return controllerClockJump(Variant{NoGraceCheck: noGraceCheck}, nil)
}

func controllerClockJump(v Variant, k gohost.KnobValues) scenarios.Scenario {
	setup := twoNodes(v, 90*time.Second,
		faults.Event{At: faultAt, Kind: faults.KindStep, Node: ControllerName, Step: 24 * time.Hour})
	return scenario("controller-clock-jump", "the controller's clock jumps a day forward (kubernetes#108844)",
		"The controller's wall clock jumps a day forward at 30 s. Its next pass finds every node's probe time a "+
			"day old and marks both nodes Unknown, although both renewed seconds before; the pass after that sees "+
			"their Leases renewed and they are back, some 5-10 s later, as #108844 reports. The model reads its "+
			"own wall clock (gohost.Clock.Now carries no monotonic reading), which is what makes the step show; "+
			"the real controller's nc.now() is time.Now, whose monotonic reading would hide a step from a "+
			"comparison of two of its own readings, so the model follows the report, not a reading of the code.",
		setup, k, renewedAfter(history.FaultStep, ControllerName))
}

// RenewNearGrace is kubernetes#80172: a grace period as short as the
// kubelet's renew interval.
func RenewNearGrace(noGraceCheck bool) scenarios.Scenario {
	return renewNearGrace(Variant{NoGraceCheck: noGraceCheck}, nil)
}

func renewNearGrace(v Variant, k gohost.KnobValues) scenarios.Scenario {
	setup := twoNodes(v, 10*time.Minute) // a flap needs a late renewal just after a pass: some 2% of them
	setup.Monitoring.GracePeriod = 10 * time.Second
	setup.Schedule.Events = nil
	return scenario("renew-near-grace", "a 10 s grace period against a 10 s renew interval (kubernetes#80172)",
		"The cluster of #80172 set --node-monitor-grace-period=10s, while the kubelet renews its Lease every "+
			"10 s plus up to 4% jitter and the time a request takes. Whenever a renewal comes a little late, the "+
			"controller's pass finds the probe time more than 10 s old and marks the node Unknown; the next "+
			"renewal brings it back: healthy nodes flap between Ready and Unknown with no fault at all (P7). A "+
			"renewal is missed only when it comes late and the pass before it came less than the jitter after the "+
			"renewal before, so the story runs ten minutes.",
		setup, k, noFault())
}

// NodePartitioned: node-1 is cut off from the API server for 90 s.
func NodePartitioned(noGraceCheck bool) scenarios.Scenario {
	return nodePartitioned(Variant{NoGraceCheck: noGraceCheck}, nil)
}

func nodePartitioned(v Variant, k gohost.KnobValues) scenarios.Scenario {
	setup := twoNodes(v, 150*time.Second,
		faults.Event{At: faultAt, Kind: faults.KindPartition,
			Groups: [][]string{{"node-1"}, {k8s.APIServerName, ControllerName, "node-2"}}},
		faults.Event{At: faultAt + 90*time.Second, Kind: faults.KindHeal})
	return scenario("node-partitioned", "a node is cut off from the API server for 90 s",
		"node-1 is cut off from the API server at 30 s for 90 s. Its renewals time out; the controller sees its "+
			"Lease's RenewTime stand still and marks it Unknown within the grace period plus two monitor periods "+
			"and a read of its last renewal (P8), and sees it back after the heal; node-2 stays Ready throughout "+
			"(P7). Without the grace-period check the controller never marks node-1 Unknown, and P8 is violated.",
		setup, k, renewedAfter(history.FaultPartition, "node-1"))
}

// renewedAfter holds when a fault of kind touched node after the kubelets
// had renewed: some accepted Lease update came before the fault began.
func renewedAfter(kind, node string) scenarios.Premise {
	return scenarios.Premise{Name: fmt.Sprintf("a %s touched %s after the kubelets renewed", kind, node),
		Holds: func(h *history.History) (bool, string) {
			for _, w := range h.Faults {
				if w.Kind != kind || !w.Touches(node) {
					continue
				}
				for _, op := range h.AllOps() {
					if op.Input.Kind == "update" && op.Output.Err == "" && op.Processed != history.Unknown &&
						op.Processed < w.Start {
						return true, fmt.Sprintf("%s of %s at %v, after %s's renewal at %v", kind, node, w.Start,
							op.Client, op.Processed)
					}
				}
				return false, fmt.Sprintf("%s of %s at %v came before any renewal", kind, node, w.Start)
			}
			return false, fmt.Sprintf("no %s touched %s", kind, node)
		}}
}

// noFault holds when no fault acted (the heal at the end of the run is
// none): the story's harm needs none.
func noFault() scenarios.Premise {
	return scenarios.Premise{Name: "no fault acted", Holds: func(h *history.History) (bool, string) {
		for _, w := range h.Faults {
			if w.Kind != history.FaultHeal {
				return false, fmt.Sprintf("a %s at %v", w.Kind, w.Start)
			}
		}
		return true, "no fault window"
	}}
}

// NodeConnectionStalled: node-1's connection to the API server stalls at
// 30 s and stays stalled; new connections work.
func NodeConnectionStalled(v Variant) scenarios.Scenario { return nodeConnectionStalled(v, nil) }

func nodeConnectionStalled(v Variant, k gohost.KnobValues) scenarios.Scenario {
	setup := twoNodes(v, 150*time.Second,
		faults.Event{At: faultAt, Kind: faults.KindStallConns, Groups: [][]string{{"node-1"}, {k8s.APIServerName}}})
	return scenario("node-connection-stalled", "a node's connection to the API server stalls, new ones work (kubernetes#52176, #63492)",
		"node-1's open connection to the API server stops passing bytes at 30 s, both ways, and is never reset "+
			"(a middlebox lost its state); a new connection would work. Over HTTP/2 the kubelet's renewals go to "+
			"that connection, each times out after 10 s and resets its stream, not the connection. Today's kubelet "+
			"gets off it by client-go's HTTP/2 health check (a PING after 30 s without a frame, 15 s to answer): it "+
			"renews again 45 s after its last renewal, inside the 50 s grace period, and is never suspected. With "+
			"DISABLE_HTTP2 (disable-http2) the timed-out HTTP/1.1 request closes its connection and the retry "+
			"renews some 20 s after. Before #52176 and the health check (no-conn-reset) it never renews again and "+
			"the controller marks node-1 Unknown for good, while node-1 and a path to the API server are up: "+
			"P7 holds (node-1 does not renew), the fault is the kubelet's.",
		setup, k, renewedAfter(history.FaultStallConns, "node-1"), stalledRequest("node-1"))
}

// stalledRequest holds when the stall bit: node's first accepted renewal
// after a connection stall touched it (or the end of the run, if none)
// came more than a renew interval (the longest, with jitter) and a second
// after its last one before, so a renewal was lost in the stalled
// connection. (A request never processed is no operation in the history,
// so its loss shows only in the gap.)
func stalledRequest(node string) scenarios.Premise {
	return scenarios.Premise{Name: fmt.Sprintf("a renewal of %s was lost in the stalled connection", node),
		Holds: func(h *history.History) (bool, string) {
			for _, w := range h.Faults {
				if w.Kind != history.FaultStallConns || !w.Touches(node) {
					continue
				}
				before, after := RenewalsAround(h, node, w.Start)
				next, again := after, fmt.Sprintf("next at %v", after)
				if after == history.Never {
					next, again = h.End, fmt.Sprintf("not again before the run ended at %v", h.End)
				}
				switch gap := next.Sub(before); {
				case before == history.Unknown:
					return false, fmt.Sprintf("%s never renewed before the stall at %v", node, w.Start)
				case gap > h.Lease.RenewInterval+time.Second:
					return true, fmt.Sprintf("%s renewed at %v and %s, %v later", node, before, again, gap)
				default:
					return false, fmt.Sprintf("%s renewed at %v and %s: the stall at %v caught no request", node, before, again, w.Start)
				}
			}
			return false, fmt.Sprintf("no connection stall touched %s", node)
		}}
}

// RenewalsAround returns when the API server accepted node's last Lease
// renewal before t (history.Unknown if none) and its first at or after t
// (history.Never if none).
func RenewalsAround(h *history.History, node string, t history.Time) (before, after history.Time) {
	before, after = history.Unknown, history.Never
	for _, op := range h.AllOps() {
		if op.Client != node || op.Input.Kind != "update" || op.Output.Err != "" || op.Processed == history.Unknown {
			continue
		}
		if op.Processed < t {
			before = max(before, op.Processed)
		} else {
			after = min(after, op.Processed)
		}
	}
	return before, after
}
