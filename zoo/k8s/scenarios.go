package k8s

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/scenarios"
)

// StoreName is the fenced store's node name, StoreAddr its address.
const (
	StoreName = "store"
	StoreAddr = StoreName + gohost.StorePort
)

// Setup is one run of candidates against the API server and the fenced
// store: Config builds it for a seed.
type Setup struct {
	// Candidates are the candidates' names and options, in order.
	Candidates []NamedCandidate
	// Unfenced makes the store accept every write, whatever its token.
	Unfenced bool
	// Schedule is the explicit fault plan; Duration the run's length.
	Schedule faults.Schedule
	Duration time.Duration
	// Timing is the election timing every candidate runs with (recorded
	// in the history's lease configuration).
	Timing Timing
}

// NamedCandidate is one candidate node.
type NamedCandidate struct {
	Name string
	CandidateOptions
}

// Config returns the goroutine host's configuration (the same for every
// seed; the host derives the randomness from it): the API
// server, the fenced store and the candidates, with math/rand's global
// source seeded from the run's seed (SeedMathRand: client-go's jitter
// draws from it).
func (s Setup) Config(uint64) gohost.Config {
	nodes := []gohost.NodeSpec{
		{Name: APIServerName, Run: APIServer},
		{Name: StoreName, Run: gohost.FencedStore(gohost.StoreOptions{Unfenced: s.Unfenced})},
	}
	for _, c := range s.Candidates {
		nodes = append(nodes, gohost.NodeSpec{Name: c.Name, Run: Candidate(c.CandidateOptions)})
	}
	return gohost.Config{
		Nodes:        nodes,
		Schedule:     s.Schedule,
		Duration:     s.Duration,
		SeedMathRand: true, // client-go's jitter
		History: gohost.HistoryConfig{Spec: "cas-record", Grantor: APIServerName, FencedStore: StoreName,
			Lease: s.Timing.Lease(), Contended: []string{s.lease()}},
	}
}

// lease is the Lease the candidates elect on: they all keep contending
// for it (a candidate that loses joins again), so P4 judges it.
func (s Setup) lease() string {
	if len(s.Candidates) > 0 && s.Candidates[0].Lease != "" {
		return s.Candidates[0].Lease
	}
	return DefaultLease
}

// Lease is the timing as the history's lease configuration: the TTL is
// LeaseDuration, renewals come every RetryPeriod, and a candidate waiting
// for the Lease tries again within RetryPeriod × (1 + JitterFactor)
// (client-go jitters its acquire loop by leaderelection.JitterFactor),
// P4's backoff.
func (t Timing) Lease() history.Lease {
	return history.Lease{TTL: t.LeaseDuration, RenewInterval: t.RetryPeriod,
		BackoffMax: t.RetryPeriod + time.Duration(float64(t.RetryPeriod)*leaderelection.JitterFactor)}
}

// candidates returns n candidates c1…cn with opts, c1 starting first and
// the others stagger apart, so that c1 is the first leader.
func candidates(n int, stagger time.Duration, opts CandidateOptions) []NamedCandidate {
	out := make([]NamedCandidate, n)
	for i := range out {
		o := opts
		o.Start = opts.Start + time.Duration(i)*stagger
		out[i] = NamedCandidate{Name: fmt.Sprintf("c%d", i+1), CandidateOptions: o}
	}
	return out
}

// The scenarios' common shape: faults from 30 s, the heal phase from
// 80 s, and 25 s of it, longer than P4's bound (LeaseDuration + the
// acquire loop's longest wait + 1 s), so that P4 decides.
const (
	faultAt   = 30 * time.Second
	healAt    = 80 * time.Second
	healPhase = 25 * time.Second
	runFor    = healAt + healPhase
	writeTick = time.Second
)

func baseOptions() CandidateOptions {
	return CandidateOptions{Timing: ScenarioTiming, Store: StoreAddr, WriteEvery: writeTick}
}

// scenario builds a Scenario over a Setup, fenced or not. A scenario has
// the same name fenced and unfenced: the two configurations are two
// --impl names of simrun (leasesim.json).
func scenario(name, doc, story string, setup Setup, unfenced bool, premises ...scenarios.Premise) scenarios.Scenario {
	setup.Unfenced = unfenced
	setup.Timing = ScenarioTiming
	return scenarios.Scenario{Name: name, Doc: doc, Story: story, Goroutines: setup.Config, Premises: premises}
}

// Scenarios returns the stories with the fenced store: simrun's
// k8s/leaderelection.
func Scenarios() []scenarios.Scenario { return stories(false) }

// UnfencedScenarios returns the same stories with a store that takes
// every write, whatever its token: simrun's k8s/leaderelection/unfenced.
func UnfencedScenarios() []scenarios.Scenario { return stories(true) }

func stories(unfenced bool) []scenarios.Scenario {
	return []scenarios.Scenario{LeaderCutOff(unfenced), LeaderStalled(unfenced), SlowShutdown(unfenced), ThunderingHerd(unfenced)}
}

// LeaderCutOff: c1 leads, then is cut off from the API server (not from
// the store) for 40 s.
func LeaderCutOff(unfenced bool) scenarios.Scenario {
	setup := Setup{Candidates: candidates(3, time.Second, baseOptions()), Duration: runFor,
		Schedule: faults.Schedule{Version: faults.Version, HealAt: healAt, Events: []faults.Event{
			{At: faultAt, Kind: faults.KindPartition, Groups: [][]string{{"c1"}, {APIServerName, "c2", "c3"}}},
			{At: faultAt + 40*time.Second, Kind: faults.KindHeal},
		}}}
	return scenario("leader-cut-off", "the leader is cut off from the API server for 40 s",
		"c1 leads and writes to the store every second under leaseTransitions. At 30 s a partition cuts it off "+
			"from the API server (the store stays reachable). Its renewals fail; client-go cancels its context "+
			"RenewDeadline after the last renewal began, before LeaseDuration has passed for the others, who then "+
			"take over with leaseTransitions+1.",
		setup, unfenced,
		scenarios.FaultWhileHolding("c1 was cut off while it led", 0, []string{"c1"}, history.FaultPartition),
		scenarios.ChangedHands())
}

// LeaderStalled: c1's I/O freezes for 25 s (> LeaseDuration) while it
// leads.
func LeaderStalled(unfenced bool) scenarios.Scenario {
	setup := Setup{Candidates: candidates(3, time.Second, baseOptions()), Duration: runFor,
		Schedule: faults.Schedule{Version: faults.Version, HealAt: healAt, Events: []faults.Event{
			{At: faultAt, Kind: faults.KindPause, Node: "c1", Duration: 25 * time.Second},
		}}}
	return scenario("leader-io-stalled", "the leader's I/O stalls for 25 s, past LeaseDuration",
		"c1 leads. At 30 s its I/O freezes for 25 s (gohost's pause: reads and dials block at the node's boundary, "+
			"writes wait in its send buffer, its timers keep running). client-go's renewals time out and it cancels "+
			"the leader's context at about 40.5 s; the others take over at LeaseDuration. c1's worker gives up on the "+
			"store write it sent at 30 s, but a pause cannot take a write back: it leaves at the resume, under the old "+
			"token, after the new leader's writes. The fenced store refuses it; an unfenced one takes it. c1 sent it "+
			"while it led, so exclusivity holds.",
		setup, unfenced,
		scenarios.FaultWhileHolding("c1 was paused while it led", 0, []string{"c1"}, history.FaultPause),
		scenarios.ChangedHands())
}

// SlowShutdown: as LeaderCutOff, but every candidate's shutdown hangs
// 10 s in OnStoppedLeading and its work stops only after it
// (cilium/cilium#42920), with ReleaseOnCancel false.
func SlowShutdown(unfenced bool) scenarios.Scenario {
	opts := baseOptions()
	opts.SlowShutdown = 10 * time.Second
	setup := Setup{Candidates: candidates(3, time.Second, opts), Duration: runFor,
		Schedule: faults.Schedule{Version: faults.Version, HealAt: healAt, Events: []faults.Event{
			{At: faultAt, Kind: faults.KindPartition, Groups: [][]string{{"c1"}, {APIServerName, "c2", "c3"}}},
			{At: faultAt + 40*time.Second, Kind: faults.KindHeal},
		}}}
	return scenario("slow-shutdown", "the old leader's work outlives its lead by a 10 s shutdown",
		"The split brain reported against cilium in 2025 (cilium/cilium#42920): the operator's components stop "+
			"with the process's shutdown, and a stop hook that blocks keeps them acting as leader after "+
			"OnStoppedLeading. Here c1 is cut off from the API server at 30 s; client-go cancels its leader context "+
			"after RenewDeadline, but OnStoppedLeading hangs 10 s and c1's writer stops only then, past the "+
			"LeaseDuration-RenewDeadline grace (5 s) in which c2 or c3 takes over. c1's writes after that are "+
			"actions under the old token while the new leader leads (P1, fenced or not); the fenced store refuses "+
			"them once the new leader has written, an unfenced one takes them.",
		setup, unfenced,
		scenarios.FaultWhileHolding("c1 was cut off while it led", 0, []string{"c1"}, history.FaultPartition),
		scenarios.ChangedHands())
}

// ThunderingHerd: ten candidates start within 10 ms of each other; every
// leader crashes at its first write after 20 s (a failpoint armed on
// all), and a nemesis pauses and isolates candidates.
func ThunderingHerd(unfenced bool) scenarios.Scenario {
	names := make([]string, 10)
	events := make([]faults.Event, 10)
	for i := range names {
		names[i] = fmt.Sprintf("c%d", i+1)
		events[i] = faults.Event{At: 20 * time.Second, Kind: faults.KindFailpoint, Node: names[i],
			Failpoint: FailpointBeforeWrite, Action: faults.ActionCrash}
	}
	const herdHeal = 70 * time.Second
	setup := Setup{Candidates: candidates(10, time.Millisecond, baseOptions()), Duration: herdHeal + healPhase,
		Schedule: faults.Schedule{Version: faults.Version, HealAt: herdHeal, Events: events}}
	sc := scenario("thundering-herd", "ten candidates at once; each leader crashes in turn",
		"Ten candidates start within 10 ms and race to create and update the Lease (AlreadyExists and "+
			"resourceVersion conflicts). From 20 s every leader crashes at its next write (failpoint "+
			"before-write, armed on all ten), so the lease changes hands under contention, LeaseDuration after "+
			"each crash (nobody releases it); a nemesis adds pauses and isolations. Crashed candidates restart at "+
			"70 s, the heal phase.",
		setup, unfenced, scenarios.ChangedHands())
	sc.Nemesis = &faults.Nemesis{Targets: names, Partitionable: names,
		Kinds:           []faults.Kind{faults.KindPause, faults.KindIsolate},
		FaultsPerMinute: 6, Phase: herdHeal, PauseMax: 25 * time.Second, WindowMax: 30 * time.Second,
		Boundaries: []time.Duration{ScenarioTiming.RetryPeriod, ScenarioTiming.RenewDeadline, ScenarioTiming.LeaseDuration}}
	return sc
}
