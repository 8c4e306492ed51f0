package faults

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// MaxDrift bounds a drift event's drift: a clock runs at most twice as fast
// as true time. The lower bound is the kernel's: a clock must keep moving
// forward, so drift stays above -1.
const MaxDrift = 1.0

// Validate reports the first reason s cannot run on a world whose nodes
// are named nodes, as a *ValidationError naming the event, its kind and the
// field. It checks, in this order: the version, heal_at and the number of
// events; then every event on its own (a known kind, at >= 0 and before
// heal_at, the fields its kind requires and no others, roles (RoleLeader)
// only where nodes lists them and as the node of a kind that allows one,
// known nodes, positive
// pause durations, drift above -1, no node in two groups, a bridge outside
// both groups, a valid link configuration); then the events in the order
// they act, rejecting contradictions: crashing a crashed node, restarting
// one that is not crashed, pausing a crashed node.
func (s Schedule) Validate(nodes []string) error {
	known := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		known[n] = true
	}
	top := func(field string, err error) error { return &ValidationError{Index: -1, Field: field, Err: err} }
	switch {
	case s.Version != Version:
		return top("version", fmt.Errorf("unsupported version %d (want %d)", s.Version, Version))
	case s.HealAt < 0:
		return top("heal_at", fmt.Errorf("must not be negative, got %v", s.HealAt))
	case len(s.Events) > MaxEvents:
		return top("events", fmt.Errorf("%d events exceed the limit of %d", len(s.Events), MaxEvents))
	case len(s.Events) > 0 && s.HealAt == 0:
		return top("heal_at", errors.New("missing: a schedule with events must end with a heal phase"))
	}
	for i, e := range s.Events {
		if err := e.check(known, s.HealAt); err != nil {
			err.Index, err.Kind = i, e.Kind
			return err
		}
	}
	return s.checkTimeline()
}

// bad builds the error for one field of an event; the caller fills in the
// event's index and kind.
func bad(field, format string, args ...any) *ValidationError {
	return &ValidationError{Field: field, Err: fmt.Errorf(format, args...)}
}

// check validates one event on its own.
func (e Event) check(known map[string]bool, healAt time.Duration) *ValidationError {
	if e.Kind == "" {
		return bad("kind", "missing")
	}
	rank := e.Kind.rank()
	if rank == len(kinds) {
		names := make([]string, len(kinds))
		for i, k := range kinds {
			names[i] = string(k.Name)
		}
		return bad("kind", "unknown kind %q (known: %s)", e.Kind, strings.Join(names, ", "))
	}
	if e.At < 0 {
		return bad("at", "must not be negative, got %v", e.At)
	}
	if e.At >= healAt {
		return bad("at", "%v is at or after heal_at %v: no fault may act after the heal phase", e.At, healAt)
	}
	if f := e.unusedField(kindFields[rank]); f != "" {
		return bad(f, "not used by %s events", e.Kind)
	}
	if err := e.checkRoles(known); err != nil {
		return err
	}
	return e.checkKind(known)
}

// checkRoles checks every role e names (see RoleLeader): a known one,
// resolved by the host, as the node of a kind that allows it.
func (e Event) checkRoles(known map[string]bool) *ValidationError {
	check := func(field, name string) *ValidationError {
		if !IsRole(name) {
			return nil
		}
		return checkRole(field, name, e.Kind, known)
	}
	for _, f := range []struct{ field, name string }{{"node", e.Node}, {"from", e.From}, {"to", e.To}, {"bridge", e.Bridge}} {
		if err := check(f.field, f.name); err != nil {
			return err
		}
	}
	for i, g := range e.Groups {
		for j, n := range g {
			if !IsRole(n) {
				continue
			}
			if err := checkRole(groupField(i, j), n, e.Kind, known); err != nil {
				return err
			}
		}
	}
	return nil
}

// unusedField names the first kind-specific field of e that is set but not
// among used (a kindFields mask), or returns "" when there is none.
// Validation runs on every schedule a run draws, so it allocates nothing
// and looks no name up on success.
func (e Event) unusedField(used uint16) string {
	set := [len(eventFields)]bool{
		e.Node != "", e.From != "", e.To != "", len(e.Groups) > 0, e.Bridge != "", e.Duration != 0,
		e.Drift != 0, e.Step != 0, e.Link != nil, e.Failpoint != "", e.Action != "",
	}
	for i, isSet := range set {
		if isSet && used&(1<<i) == 0 {
			return eventFields[i]
		}
	}
	return ""
}

// eventFields are the kind-specific fields of an event, in the order
// unusedField checks them.
var eventFields = [...]string{"node", "from", "to", "groups", "bridge", "duration", "drift", "step", "link",
	"failpoint", "action"}

// kindFields[r] has bit i set when the kind of rank r uses eventFields[i].
var kindFields = func() (masks [len(kinds)]uint16) {
	for r, ki := range kinds {
		for _, f := range ki.Fields {
			i := slices.Index(eventFields[:], f)
			if i < 0 {
				panic("faults: invariant known-field: kind " + string(ki.Name) + " uses unknown field " + f)
			}
			masks[r] |= 1 << i
		}
	}
	return masks
}()

// groupField names the j-th node of the i-th group, for an error. Only
// errors call it: formatting it for every node would cost each valid
// schedule an allocation per node.
func groupField(i, j int) string { return fmt.Sprintf("groups[%d][%d]", i, j) }

// checkKind checks the fields e's kind requires.
func (e Event) checkKind(known map[string]bool) *ValidationError {
	switch e.Kind {
	case KindPartition, KindStallConns:
		if len(e.Groups) < 2 {
			return bad("groups", "want two or more groups, got %d", len(e.Groups))
		}
		return checkGroups(e.Groups, "", known)
	case KindBridge:
		if len(e.Groups) != 2 {
			return bad("groups", "want exactly two groups, got %d", len(e.Groups))
		}
		if err := checkNode("bridge", e.Bridge, known); err != nil {
			return err
		}
		return checkGroups(e.Groups, e.Bridge, known)
	case KindPartitionOneWay:
		return checkDirection(e.From, e.To, known, false)
	case KindLink:
		if err := checkDirection(e.From, e.To, known, true); err != nil {
			return err
		}
		if e.Link == nil {
			return bad("link", "missing")
		}
		if err := e.Link.Validate(); err != nil {
			return &ValidationError{Field: "link", Err: err}
		}
	case KindIsolate, KindCrash, KindRestart:
		return checkNode("node", e.Node, known)
	case KindDrift:
		return e.checkDrift(known)
	case KindStep:
		if e.Step == 0 {
			return bad("step", "missing (a step of zero does nothing)")
		}
		return checkNode("node", e.Node, known)
	case KindPause:
		if e.Duration <= 0 {
			return bad("duration", "must be positive, got %v", e.Duration)
		}
		return checkNode("node", e.Node, known)
	case KindFailpoint:
		return e.checkFailpoint(known)
	}
	return nil
}

func (e Event) checkDrift(known map[string]bool) *ValidationError {
	switch {
	case math.IsNaN(e.Drift) || e.Drift <= -1:
		return bad("drift", "must be above -1 (the clock must keep moving forward), got %v", e.Drift)
	case e.Drift > MaxDrift:
		return bad("drift", "must be at most %v, got %v", MaxDrift, e.Drift)
	}
	return checkNode("node", e.Node, known)
}

func (e Event) checkFailpoint(known map[string]bool) *ValidationError {
	if e.Failpoint == "" {
		return bad("failpoint", "missing")
	}
	switch e.Action {
	case ActionPause:
		if e.Duration <= 0 {
			return bad("duration", "must be positive for a pause, got %v", e.Duration)
		}
	case ActionCrash:
		if e.Duration != 0 {
			return bad("duration", "not used by a crash failpoint")
		}
	case "":
		return bad("action", "missing (want pause or crash)")
	default:
		return bad("action", "unknown action %q (want pause or crash)", e.Action)
	}
	return checkNode("node", e.Node, known)
}

func checkNode(field, name string, known map[string]bool) *ValidationError {
	if name == "" {
		return bad(field, "missing")
	}
	if !known[name] {
		return bad(field, "unknown node %q", name)
	}
	return nil
}

// checkDirection checks the from and to of a one-way partition or, with
// wildcard, of a link change, which also accepts AnyNode.
func checkDirection(from, to string, known map[string]bool, wildcard bool) *ValidationError {
	for _, f := range []struct{ field, name string }{{"from", from}, {"to", to}} {
		if wildcard && f.name == AnyNode {
			continue
		}
		if err := checkNode(f.field, f.name, known); err != nil {
			return err
		}
	}
	if from == to && from != AnyNode {
		return bad("to", "same node as from (%q)", to)
	}
	return nil
}

// checkGroups checks that every group is non-empty, every node known and in
// one group only, and that the bridge node (if any) is in none.
func checkGroups(groups [][]string, bridge string, known map[string]bool) *ValidationError {
	where := make(map[string]int)
	for i, g := range groups {
		if len(g) == 0 {
			return bad(fmt.Sprintf("groups[%d]", i), "empty group")
		}
		for j, n := range g {
			if err := checkNode("", n, known); err != nil {
				err.Field = groupField(i, j)
				return err
			}
			if bridge != "" && n == bridge {
				return bad(groupField(i, j), "the bridge node %q must not be inside a group", n)
			}
			if k, dup := where[n]; dup {
				return bad(groupField(i, j), "node %q is already in groups[%d]", n, k)
			}
			where[n] = i
		}
	}
	return nil
}
