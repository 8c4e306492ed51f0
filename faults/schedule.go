package faults

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// Version is the schedule format this package reads and writes.
const Version = 1

// MaxEvents bounds the events of one schedule.
const MaxEvents = 100_000

// Schedule is a fault plan as plain data: timed fault events, then a heal
// phase at HealAt after which no fault acts. It serialises to JSON as
//
//	{"version":1,"heal_at":"40s","events":[{"at":"2s","kind":"pause","node":"n1","duration":"1.5s"}]}
//
// A Schedule is a value: it can be copied, cut down (shrinking) and compared
// with reflect.DeepEqual. Validate says whether it makes sense for a set of
// nodes; Apply schedules it on a world.
type Schedule struct {
	// Version is the format version; it must be Version.
	Version int
	// Events are the faults, each at its own time. Their order breaks ties
	// between events at the same time; otherwise it does not matter.
	Events []Event
	// HealAt is the true time at which the heal phase runs: partitions
	// healed, links reset, drift zeroed, crashed nodes restarted, paused
	// nodes resumed, failpoints disarmed. Every event must come before it.
	HealAt time.Duration
}

// Event is one fault at one instant of true time. Which fields it uses
// depends on its Kind (see Kinds); the others stay zero.
type Event struct {
	// At is the true time, since the start of the run, at which the fault acts.
	At time.Duration
	// Kind says what the fault is.
	Kind Kind
	// Node is the node a process or clock fault acts on, or the node
	// isolated.
	Node string
	// From and To name the direction of a one-way partition or a link change.
	// A link change accepts AnyNode on either side.
	From, To string
	// Groups are the sides of a partition (two or more) or of a bridge (two).
	Groups [][]string
	// Bridge is the node that reaches both sides of a bridge.
	Bridge string
	// Duration is how long a pause lasts, or a failpoint's pause.
	Duration time.Duration
	// Drift is the clock's new rate minus one: 0.01 runs 1% fast, -0.01 1%
	// slow, 0 restores the true rate. It must stay above -1.
	Drift float64
	// Step is how far the wall clock jumps, forward or (negative) backward.
	Step time.Duration
	// Link is a link change's new configuration.
	Link *sim.LinkConfig
	// Failpoint is the name of the failpoint to arm.
	Failpoint string
	// Action is what the armed failpoint does: pause or crash.
	Action Action
}

// Faults counts the faults s injects: its events less those that only end
// an earlier fault (a heal, a restart, a link-reset, a drift back to zero),
// so a crash with its restart, or a partition with its heal, is one fault.
func (s Schedule) Faults() int {
	n := 0
	for _, e := range s.Events {
		if !endsWindow(e) {
			n++
		}
	}
	return n
}

// order returns the indices of s.Events sorted by time, ties broken by
// index: the order in which the events act.
func (s Schedule) order() []int {
	idx := make([]int, len(s.Events))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(s.Events[a].At, s.Events[b].At)
	})
	return idx
}

// String formats the schedule one event per line, in the order the events
// act, ending with the heal phase.
func (s Schedule) String() string {
	var sb strings.Builder
	for _, i := range s.order() {
		sb.WriteString(s.Events[i].String())
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "%v heal phase", s.HealAt)
	return sb.String()
}

// String formats the event compactly, for logs and reports, for example
// "2s pause n1 for 1.5s".
func (e Event) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%v %s", e.At, e.Kind)
	switch e.Kind {
	case KindPartition, KindBridge, KindStallConns:
		for i, g := range e.Groups {
			if i > 0 {
				sb.WriteString(" |")
			}
			fmt.Fprintf(&sb, " [%s]", strings.Join(g, " "))
		}
		if e.Bridge != "" {
			fmt.Fprintf(&sb, " via %s", e.Bridge)
		}
	case KindPartitionOneWay:
		fmt.Fprintf(&sb, " %s -> %s", e.From, e.To)
	case KindLink:
		fmt.Fprintf(&sb, " %s -> %s", e.From, e.To)
		if l := e.Link; l != nil {
			fmt.Fprintf(&sb, " latency %s %v..%v loss %g dup %g reorder %g",
				l.Latency.Kind, l.Latency.Min, l.Latency.Max, l.Loss, l.Duplicate, l.Reorder)
		}
	case KindDrift:
		if e.Drift == 0 {
			fmt.Fprintf(&sb, " %s back to 0", e.Node)
		} else {
			fmt.Fprintf(&sb, " %s %+g", e.Node, e.Drift)
		}
	case KindStep:
		fmt.Fprintf(&sb, " %s by %v", e.Node, e.Step)
	case KindPause:
		fmt.Fprintf(&sb, " %s for %v", e.Node, e.Duration)
	case KindFailpoint:
		fmt.Fprintf(&sb, " %s %q %s", e.Node, e.Failpoint, e.Action)
		if e.Action == ActionPause {
			fmt.Fprintf(&sb, " for %v", e.Duration)
		}
	default:
		if e.Node != "" {
			fmt.Fprintf(&sb, " %s", e.Node)
		}
	}
	return sb.String()
}
