package workload

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// eventFields are the JSON fields of each event type, in the order they
// are written.
var eventFields = map[Type][]string{
	TypeTask:    {"type", "at", "id", "units", "unit_time", "unit_time_dist"},
	TypeCrash:   {"type", "at", "worker", "member"},
	TypeRestart: {"type", "at", "worker", "member"},
	TypePause:   {"type", "at", "worker", "member", "duration"},
	TypeDeploy:  {"type", "at", "spacing", "down"},
}

// subject names an event in an error message: `task "t9"`, or its type.
func (e Event) subject() string {
	if e.Type == TypeTask && e.ID != "" {
		return "task " + quote(e.ID)
	}
	return string(e.Type)
}

// quote quotes s as Go would, cut short if it is long.
func quote(s string) string {
	const limit = 40
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}

// decodeEvent reads an event line of type typ. The id is read first, so
// that later errors can name the task.
func decodeEvent(o *object, typ Type) (Event, *fieldError) {
	e := Event{Type: typ}
	var err *fieldError
	var ok bool
	if typ == TypeTask {
		if e.ID, _, err = o.str("id"); err != nil {
			return e, err
		}
	}
	if err := o.unknown(eventFields[typ]...); err != nil {
		return e, err
	}
	if e.At, ok, err = o.duration("at"); err != nil || !ok {
		return e, orMissing("at", err)
	}
	switch typ {
	case TypeTask:
		return decodeTask(o, e)
	case TypeCrash, TypeRestart, TypePause:
		if e.Worker, _, err = o.str("worker"); err != nil {
			return e, err
		}
		if e.Member, _, err = o.str("member"); err != nil {
			return e, err
		}
		switch {
		case o.has("worker") && o.has("member"):
			return e, badf("member", "set either worker or member, not both")
		case !o.has("worker") && !o.has("member"):
			return e, badf("worker", "missing (or give member, a lease store member)")
		}
		if typ == TypePause {
			if e.Duration, ok, err = o.duration("duration"); err != nil || !ok {
				return e, orMissing("duration", err)
			}
		}
	case TypeDeploy:
		if e.Spacing, ok, err = o.duration("spacing"); err != nil || !ok {
			return e, orMissing("spacing", err)
		}
		if e.Down, ok, err = o.duration("down"); err != nil || !ok {
			return e, orMissing("down", err)
		}
	}
	return e, nil
}

func decodeTask(o *object, e Event) (Event, *fieldError) {
	if e.ID == "" && !o.has("id") {
		return e, badf("id", "missing")
	}
	units, ok, err := o.integer("units")
	if err != nil || !ok {
		return e, orMissing("units", err)
	}
	e.Units = int(max(min(units, MaxUnits+1), -1))
	if e.UnitTime, _, err = o.duration("unit_time"); err != nil {
		return e, err
	}
	dist, err := o.object("unit_time_dist")
	if err != nil {
		return e, err
	}
	if dist != nil {
		d, err := decodeDist(dist)
		if err != nil {
			return e, under("unit_time_dist", err)
		}
		e.UnitTimeDist = &d
	}
	switch {
	case o.has("unit_time") && o.has("unit_time_dist"):
		return e, badf("unit_time_dist", "set either unit_time or unit_time_dist, not both")
	case !o.has("unit_time") && !o.has("unit_time_dist"):
		return e, badf("unit_time", "missing (or give unit_time_dist)")
	}
	return e, nil
}

// checkEvent checks an event's values (decoded or built in Go) against the
// header: times within bounds, positive sizes, known workers, and no field
// set that its type does not use.
func checkEvent(e Event, h Header) *fieldError {
	fields, known := eventFields[e.Type]
	switch {
	case !known:
		return badf("type", "unknown event type %q (want %s)", e.Type, quoteList(typeNames()))
	case e.At < 0:
		return badf("at", "must not be negative, got %v", e.At)
	case e.At > MaxDuration:
		return badf("at", "%v exceeds the limit of %v", e.At, MaxDuration)
	case h.Duration > 0 && e.At > h.Duration:
		return badf("at", "%v is after the workload's duration %v", e.At, h.Duration)
	}
	for _, f := range e.setFields() {
		if !contains(fields, f) {
			return badf(f, "not used by %s events", e.Type)
		}
	}
	switch e.Type {
	case TypeTask:
		return checkTask(e)
	case TypeCrash, TypeRestart:
		return checkTarget(e, h.Workers)
	case TypePause:
		if err := checkTarget(e, h.Workers); err != nil {
			return err
		}
		return checkPositive("duration", e.Duration)
	case TypeDeploy:
		switch {
		case e.Spacing < 0:
			return badf("spacing", "must not be negative, got %v", e.Spacing)
		case e.Spacing > MaxDuration:
			return badf("spacing", "%v exceeds the limit of %v", e.Spacing, MaxDuration)
		}
		if err := checkPositive("down", e.Down); err != nil {
			return err
		}
		if end := e.end(h.Workers); end > MaxDuration || end < 0 {
			return badf("spacing", "the deploy would end after the limit of %v", MaxDuration)
		}
	}
	return nil
}

func checkTask(e Event) *fieldError {
	switch {
	case e.ID == "":
		return badf("id", "must not be empty")
	case len(e.ID) > MaxNameBytes || !utf8.ValidString(e.ID):
		return badf("id", "must be valid UTF-8 of at most %d bytes", MaxNameBytes)
	case e.Units <= 0:
		return badf("units", "must be positive, got %d", e.Units)
	case e.Units > MaxUnits:
		return badf("units", "exceeds the limit of %d", MaxUnits)
	case e.UnitTimeDist != nil && e.UnitTime != 0:
		return badf("unit_time_dist", "set either unit_time or unit_time_dist, not both")
	case e.UnitTimeDist != nil:
		if err := checkDist(*e.UnitTimeDist, true); err != nil {
			return under("unit_time_dist", err)
		}
	default:
		if err := checkPositive("unit_time", e.UnitTime); err != nil {
			return err
		}
	}
	unit := e.UnitTime
	if e.UnitTimeDist != nil {
		unit = distMax(*e.UnitTimeDist)
	}
	if unit > MaxDuration/time.Duration(e.Units) {
		return badf("units", "%d units of up to %v exceed the limit of %v of work per task", e.Units, unit, MaxDuration)
	}
	return nil
}

// checkPositive checks a duration that must be positive and within the
// limit.
func checkPositive(field string, d time.Duration) *fieldError {
	switch {
	case d <= 0:
		return badf(field, "must be positive, got %v", d)
	case d > MaxDuration:
		return badf(field, "%v exceeds the limit of %v", d, MaxDuration)
	}
	return nil
}

// checkTarget checks the node a crash, restart or pause acts on: a known
// worker, or a store member (RoleLeader only for a pause).
func checkTarget(e Event, workers int) *fieldError {
	switch {
	case e.Worker != "" && e.Member != "":
		return badf("member", "set either worker or member, not both")
	case e.Member == "":
		return checkWorker(e.Worker, workers)
	case e.Member == RoleLeader && e.Type != TypePause:
		return badf("member", "%s names the leader only for a pause (a crash's restart could not name the same "+
			"member): crash a member by name, %q to %q", RoleLeader, memberName(1), memberName(MaxMembers))
	case e.Member != RoleLeader && memberIndex(e.Member) == 0:
		return badf("member", "unknown store member %s (want %s, or %q to %q)", quote(e.Member), RoleLeader,
			memberName(1), memberName(MaxMembers))
	}
	return nil
}

// memberName returns the name of the store's i-th member, from 1.
func memberName(i int) string { return string(lease.MemberAddrs(scenarios.GrantorNode, i)[i-1]) }

func checkWorker(name string, workers int) *fieldError {
	switch {
	case name == "":
		return badf("worker", "must not be empty")
	case workerIndex(name, workers) == 0:
		return badf("worker", "unknown worker %s (the header has %d: w1..w%d)", quote(name), workers, workers)
	}
	return nil
}

// setFields names the type-specific fields of e that are not zero.
func (e Event) setFields() []string {
	var set []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"id", e.ID != ""}, {"units", e.Units != 0}, {"unit_time", e.UnitTime != 0},
		{"unit_time_dist", e.UnitTimeDist != nil}, {"worker", e.Worker != ""},
		{"member", e.Member != ""},
		{"duration", e.Duration != 0}, {"spacing", e.Spacing != 0}, {"down", e.Down != 0},
	} {
		if f.set {
			set = append(set, f.name)
		}
	}
	return set
}

func typeNames() []string {
	names := make([]string, len(eventTypes))
	for i, t := range eventTypes {
		names[i] = string(t)
	}
	return names
}
