package sim

import (
	"fmt"
	"time"
)

// Limits bounds a run. A run that reaches one stops and says which; nothing
// is silently truncated.
type Limits struct {
	Duration time.Duration // longest simulated time a run may reach
	Events   uint64        // most events a run may execute
	Queue    int           // most events pending at once
	InFlight int           // default bound on messages in flight per link
	Faults   int           // most fault log entries
	Nodes    int           // most nodes
}

// DefaultLimits are generous enough for any built-in scenario.
var DefaultLimits = Limits{
	Duration: 24 * time.Hour,
	Events:   100_000_000,
	Queue:    1 << 22,
	InFlight: 4096,
	Faults:   100_000,
	Nodes:    100_000,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Duration > 0 {
		d.Duration = l.Duration
	}
	if l.Events > 0 {
		d.Events = l.Events
	}
	if l.Queue > 0 {
		d.Queue = l.Queue
	}
	if l.InFlight > 0 {
		d.InFlight = l.InFlight
	}
	if l.Faults > 0 {
		d.Faults = l.Faults
	}
	if l.Nodes > 0 {
		d.Nodes = l.Nodes
	}
	return d
}

// Limit names one of the bounds in Limits.
type Limit string

// The limits a run can hit.
const (
	LimitDuration Limit = "duration"
	LimitEvents   Limit = "events"
	LimitQueue    Limit = "queue"
	LimitFaults   Limit = "faults"
)

// LimitError says that a run stopped because it reached a bound.
type LimitError struct {
	Limit Limit
	At    Time
	Bound string
}

// Error says which limit was reached, its bound, and when.
func (e *LimitError) Error() string {
	return fmt.Sprintf("sim: %s limit (%s) reached at %v", e.Limit, e.Bound, e.At)
}
