package faults

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/leasesim/leasesim/sim"
)

// scheduleJSON is the wire form of a Schedule. Durations are strings such as
// "150ms"; field names are snake_case and stable once released.
type scheduleJSON struct {
	Version int          `json:"version"`
	HealAt  sim.Duration `json:"heal_at"`
	Events  []eventJSON  `json:"events"`
}

// eventJSON is the wire form of an Event. Unused fields are left out.
type eventJSON struct {
	At        sim.Duration    `json:"at"`
	Kind      Kind            `json:"kind"`
	Node      string          `json:"node,omitempty"`
	From      string          `json:"from,omitempty"`
	To        string          `json:"to,omitempty"`
	Groups    [][]string      `json:"groups,omitempty"`
	Bridge    string          `json:"bridge,omitempty"`
	Duration  sim.Duration    `json:"duration,omitempty"`
	Drift     float64         `json:"drift,omitempty"`
	Step      sim.Duration    `json:"step,omitempty"`
	Link      *sim.LinkConfig `json:"link,omitempty"`
	Failpoint string          `json:"failpoint,omitempty"`
	Action    Action          `json:"action,omitempty"`
}

func (e Event) wire() eventJSON {
	return eventJSON{
		At: sim.Duration(e.At), Kind: e.Kind, Node: e.Node, From: e.From, To: e.To,
		Groups: e.Groups, Bridge: e.Bridge, Duration: sim.Duration(e.Duration), Drift: e.Drift,
		Step: sim.Duration(e.Step), Link: e.Link, Failpoint: e.Failpoint, Action: e.Action,
	}
}

func (j eventJSON) event() Event {
	groups := j.Groups
	if len(groups) == 0 {
		groups = nil // "groups": [] and no groups are the same schedule
	}
	return Event{
		At: time.Duration(j.At), Kind: j.Kind, Node: j.Node, From: j.From, To: j.To,
		Groups: groups, Bridge: j.Bridge, Duration: time.Duration(j.Duration), Drift: j.Drift,
		Step: time.Duration(j.Step), Link: j.Link, Failpoint: j.Failpoint, Action: j.Action,
	}
}

func (s Schedule) wire() scheduleJSON {
	events := make([]eventJSON, len(s.Events)) // never null on the wire
	for i, e := range s.Events {
		events[i] = e.wire()
	}
	return scheduleJSON{Version: s.Version, HealAt: sim.Duration(s.HealAt), Events: events}
}

func (j scheduleJSON) schedule() Schedule {
	var events []Event // "events": [] decodes to nil, as the zero Schedule has
	for _, e := range j.Events {
		events = append(events, e.event())
	}
	return Schedule{Version: j.Version, Events: events, HealAt: time.Duration(j.HealAt)}
}

// MarshalJSON writes the schedule in its wire form. It fails only on a drift
// or link probability that JSON cannot represent (NaN or infinite).
func (s Schedule) MarshalJSON() ([]byte, error) { return json.Marshal(s.wire()) }

// UnmarshalJSON reads a schedule as strictly as Parse does. It does not
// validate it: that needs the node names, see Validate.
func (s *Schedule) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil // encoding/json's convention for Unmarshalers
	}
	var j scheduleJSON
	if err := decodeStrict(b, &j); err != nil {
		return err
	}
	*s = j.schedule()
	return nil
}

// MarshalJSON writes the event in its wire form.
func (e Event) MarshalJSON() ([]byte, error) { return json.Marshal(e.wire()) }

// UnmarshalJSON reads one event as strictly as Parse does.
func (e *Event) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	var j eventJSON
	if err := decodeStrict(b, &j); err != nil {
		return err
	}
	*e = j.event()
	return nil
}

func isNull(b []byte) bool { return bytes.Equal(bytes.TrimSpace(b), []byte("null")) }
