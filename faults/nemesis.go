package faults

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// Bounds on a nemesis's configuration. They keep every per-draw product
// inside int64 and every schedule a nemesis draws bounded.
const (
	// NemesisDurationMax bounds Phase and every other duration of a Nemesis.
	NemesisDurationMax = 24 * time.Hour
	// NemesisPerMinuteMax bounds FaultsPerMinute.
	NemesisPerMinuteMax = 1000
	// NemesisFaultsMax bounds the faults of one draw; each may add one
	// event that ends it, so a drawn schedule has at most twice as many
	// events.
	NemesisFaultsMax = 10_000
)

// Nemesis draws fault schedules from a seed. It does swarm testing: each
// draw enables a random non-empty subset of the pool's kinds and scales the
// intensity by a random factor, so that some seeds see only pauses, others
// only partitions and drift, and faults that mask each other are also tried
// apart. Durations (pauses, partition and crash windows, link latency,
// clock steps) are edge-biased: half of them land within 2% of one of the
// Boundaries the caller names, where lease bugs live, the rest uniformly in
// their range. Every drawn schedule ends with the heal phase at Phase and
// passes Validate.
//
// A Nemesis is configuration, a plain value; Draw does not change it.
type Nemesis struct {
	// Targets are the nodes that process and clock faults (pause, crash,
	// drift, step, failpoint) may hit. A role (RoleLeader) among them is
	// the node that holds it when the fault acts; it is never crashed (a
	// crash drawn for it, or a crash failpoint, is not drawn).
	Targets []string
	// Partitionable are the nodes partitions, isolation, bridges and link
	// changes may involve.
	Partitionable []string
	// Kinds is the pool swarm testing draws from. Empty means every kind
	// the other fields make drawable. heal, link-reset and restart are never
	// in a pool: the nemesis draws them as the end of a partition, a link
	// change or a crash.
	Kinds []Kind
	// FaultsPerMinute is the mean number of faults per simulated minute of
	// the fault phase, before the swarm factor (1/4 to 4x) scales it.
	FaultsPerMinute float64
	// Phase is how long the fault phase lasts; the heal phase runs at its
	// end.
	Phase time.Duration
	// Boundaries are the durations near which durations are drawn with
	// extra mass, for example the TTL, TTL*(1-rho), TTL*(1+rho) and the
	// renew interval.
	Boundaries []time.Duration
	// Rho is the drift bound the system under test is configured for.
	// Drift is drawn with mass at exactly -Rho and +Rho, and uniformly
	// between.
	Rho float64
	// DriftBeyondRho lets a fifth of drift draws exceed Rho (up to 4*Rho, at
	// least 0.1%), to test that a violation is then reported as "assumption
	// exceeded".
	DriftBeyondRho bool
	// PauseMax bounds pauses, failpoint pauses included.
	PauseMax time.Duration
	// DelayMax bounds link latency.
	DelayMax time.Duration
	// StepMax bounds the size of a wall-clock step, either way.
	StepMax time.Duration
	// WindowMax bounds how long a partition, link change, drift or crash
	// lasts before the nemesis undoes it (if the heal phase does not come
	// first). Zero means Phase/4.
	WindowMax time.Duration
	// Failpoints are the failpoint names node code marks, which failpoint
	// faults arm.
	Failpoints []string
}

// Validate reports the first field that makes n unusable, as a
// *ValidationError whose Field is the Go field name.
func (n Nemesis) Validate() error {
	if err := n.validateNumbers(); err != nil {
		return err
	}
	for _, l := range []struct {
		field string
		names []string
	}{{"Targets", n.Targets}, {"Partitionable", n.Partitionable}, {"Failpoints", n.Failpoints}} {
		if err := checkNames(l.field, l.names, l.field == "Targets"); err != nil {
			return err
		}
	}
	for i, k := range n.Kinds {
		field := fmt.Sprintf("Kinds[%d]", i)
		if slices.Index(n.Kinds, k) != i {
			return nemesisError(field, fmt.Errorf("%s is in the pool twice", k))
		}
		if why := n.lacks(k); why != "" {
			return nemesisError(field, fmt.Errorf("%s cannot be drawn: %s", k, why))
		}
	}
	if len(n.Pool()) == 0 {
		return nemesisError("Kinds", errors.New("no fault kind can be drawn: name Targets or Partitionable nodes and their bounds"))
	}
	return nil
}

func (n Nemesis) validateNumbers() error {
	switch {
	case n.Phase <= 0 || n.Phase > NemesisDurationMax:
		return nemesisError("Phase", fmt.Errorf("must be in (0, %v], got %v", NemesisDurationMax, n.Phase))
	case !(n.FaultsPerMinute >= 0 && n.FaultsPerMinute <= NemesisPerMinuteMax):
		return nemesisError("FaultsPerMinute", fmt.Errorf("must be in [0, %d], got %v", NemesisPerMinuteMax, n.FaultsPerMinute))
	case !(n.Rho >= 0 && n.Rho < 0.5):
		return nemesisError("Rho", fmt.Errorf("must be in [0, 0.5), got %v", n.Rho))
	}
	for _, f := range []struct {
		field string
		d     time.Duration
	}{{"PauseMax", n.PauseMax}, {"DelayMax", n.DelayMax}, {"StepMax", n.StepMax}, {"WindowMax", n.WindowMax}} {
		if f.d < 0 || f.d > NemesisDurationMax {
			return nemesisError(f.field, fmt.Errorf("must be in [0, %v], got %v", NemesisDurationMax, f.d))
		}
	}
	for i, b := range n.Boundaries {
		if b <= 0 || b > NemesisDurationMax {
			return nemesisError(fmt.Sprintf("Boundaries[%d]", i), fmt.Errorf("must be in (0, %v], got %v", NemesisDurationMax, b))
		}
	}
	return nil
}

func nemesisError(field string, err error) error {
	return &ValidationError{Index: -1, Field: field, Err: err}
}

// checkNames rejects empty, duplicate and wildcard names, and roles
// unless roles is set (then only known ones).
func checkNames(field string, names []string, roles bool) error {
	seen := make(map[string]bool, len(names))
	for i, name := range names {
		f := func() string { return fmt.Sprintf("%s[%d]", field, i) } // for an error only
		switch {
		case name == "" || name == AnyNode:
			return nemesisError(f(), fmt.Errorf("invalid name %q", name))
		case IsRole(name) && !roles:
			return nemesisError(f(), fmt.Errorf("the role %s may be only a target of process and clock faults", name))
		case IsRole(name) && !slices.Contains(roleNames, name):
			return nemesisError(f(), fmt.Errorf("unknown role %q (want one of %s)", name, strings.Join(roleNames, ", ")))
		case seen[name]:
			return nemesisError(f(), fmt.Errorf("%q is listed twice", name))
		}
		seen[name] = true
	}
	return nil
}

// lacks says why kind k cannot be drawn with n's configuration, or returns
// "" if it can.
func (n Nemesis) lacks(k Kind) string {
	targets, parts := len(n.Targets) > 0, len(n.Partitionable)
	need := func(ok bool, what string) string {
		if ok {
			return ""
		}
		return "it needs " + what
	}
	switch k {
	case KindPartition, KindPartitionOneWay, KindIsolate:
		return need(parts >= 2, "two or more Partitionable nodes")
	case KindBridge:
		return need(parts >= 3, "three or more Partitionable nodes")
	case KindLink:
		return need(parts >= 2 && n.DelayMax > 0, "two or more Partitionable nodes and DelayMax")
	case KindDrift:
		return need(targets && (n.Rho > 0 || n.DriftBeyondRho), "Targets and Rho (or DriftBeyondRho)")
	case KindStep:
		return need(targets && n.StepMax > 0, "Targets and StepMax")
	case KindPause:
		return need(targets && n.PauseMax > 0, "Targets and PauseMax")
	case KindCrash:
		return need(slices.ContainsFunc(n.Targets, func(t string) bool { return !IsRole(t) }), "a Target that is a node (a role is never crashed)")
	case KindFailpoint:
		return need(targets && len(n.Failpoints) > 0, "Targets and Failpoints")
	case KindHeal, KindLinkReset, KindRestart:
		return "it is drawn only as the end of a partition, a link change or a crash"
	case KindStallConns:
		return "it is never drawn: only the goroutine host applies it, so a schedule names it explicitly"
	}
	return fmt.Sprintf("unknown kind %q", k)
}

// Pool returns the fault kinds the nemesis draws from: Kinds, or every
// kind the other fields make drawable when Kinds is empty, without those
// the other fields rule out. They come in catalogue order, so that the
// order of Kinds does not change what a seed draws.
func (n Nemesis) Pool() []Kind {
	var pool []Kind
	for _, ki := range kinds {
		listed := len(n.Kinds) == 0 || slices.Contains(n.Kinds, ki.Name)
		if listed && n.lacks(ki.Name) == "" {
			pool = append(pool, ki.Name)
		}
	}
	return pool
}

// Draw draws one schedule, using only r for randomness. The same Nemesis
// and the same stream give the same schedule. Draw panics if n does not
// Validate: check the configuration once, up front.
//
// Draw works in integers. Floating point appears in three places only, each
// a conversion rather than arithmetic on the draw: FaultsPerMinute to
// thousandths and Rho to parts per billion (once per draw), and a drawn
// drift in parts per billion to the float64 an Event carries (the kernel
// truncates it back toward zero, so a drift drawn at exactly Rho never ends
// up beyond it). Link probabilities and Pareto tail indexes are picked from
// fixed tables.
func (n Nemesis) Draw(r *rand.Rand) Schedule {
	if err := n.Validate(); err != nil {
		panic(fmt.Sprintf("faults: Nemesis.Draw on an invalid nemesis: %v", err))
	}
	d := &drawer{n: n, r: r, downUntil: make([]time.Duration, len(n.Targets))}
	d.init()
	enabled := d.swarm(n.Pool())
	starts := make([]time.Duration, d.count())
	for i := range starts {
		starts[i] = time.Duration(r.Int64N(int64(n.Phase)))
	}
	slices.Sort(starts)
	if len(starts) > 0 { // no draw leaves Events nil, as JSON decodes it
		d.events = make([]Event, 0, 2*len(starts)) // a fault and, for most, the event that ends it
	}
	for _, at := range starts {
		d.fault(enabled[r.IntN(len(enabled))], at)
	}
	// Stable, so an event that ends a fault stays ahead of a later-drawn
	// fault at the same instant: a restart comes before the next crash.
	slices.SortStableFunc(d.events, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	s := Schedule{Version: Version, Events: d.events, HealAt: n.Phase}
	// The contract, asserted where the schedule is produced.
	if err := s.Validate(n.nodes()); err != nil {
		panic(fmt.Sprintf("faults: invariant drawn-schedule-valid: %v\n%s", err, s))
	}
	return s
}

// nodes returns every node n names, targets first.
func (n Nemesis) nodes() []string {
	nodes := slices.Clone(n.Targets)
	seen := make(map[string]bool, len(nodes))
	for _, t := range n.Targets {
		seen[t] = true
	}
	for _, p := range n.Partitionable {
		if !seen[p] {
			nodes = append(nodes, p)
			seen[p] = true
		}
	}
	return nodes
}

// swarmFactors scale the intensity of one draw, as num/den.
var swarmFactors = [...][2]int64{{1, 4}, {1, 2}, {1, 1}, {2, 1}, {4, 1}}

// swarm enables a random non-empty subset of the pool: each kind with
// probability 1/2, or one kind at random if none came up.
func (d *drawer) swarm(pool []Kind) []Kind {
	var enabled []Kind
	for _, k := range pool {
		if d.r.IntN(2) == 0 {
			enabled = append(enabled, k)
		}
	}
	if len(enabled) == 0 {
		enabled = append(enabled, pool[d.r.IntN(len(pool))])
	}
	return enabled
}

// count draws how many faults this schedule has: uniform on [0, 2m], where
// m is FaultsPerMinute over the phase times a random swarm factor. The only
// floating point is the conversion of FaultsPerMinute to thousandths, once
// per draw; the rest is integer.
func (d *drawer) count() int {
	f := swarmFactors[d.r.IntN(len(swarmFactors))]
	perMinuteMilli := int64(math.Round(d.n.FaultsPerMinute * 1000))
	meanMilli := perMinuteMilli * int64(d.n.Phase/time.Millisecond) * f[0] / (60_000 * f[1])
	count := (d.r.Int64N(2*meanMilli+1) + 500) / 1000
	return int(min(count, NemesisFaultsMax))
}
