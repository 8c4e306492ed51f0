package sim

import (
	"math"
	"time"
)

// Time is true simulated time: nanoseconds since the start of a run. Node
// code never sees it; nodes read their own drifting clocks instead.
type Time int64

// Never is a time later than any event.
const Never Time = math.MaxInt64

// Add returns t+d, saturating at Never (and at the most negative Time)
// instead of wrapping around.
func (t Time) Add(d time.Duration) Time {
	s := t + Time(d)
	switch {
	case d > 0 && s < t:
		return Never
	case d < 0 && s > t:
		return math.MinInt64
	}
	return s
}

// Sub returns the duration t-u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return time.Duration(t).Seconds() }

// String formats t as a duration since the start of the run.
func (t Time) String() string { return time.Duration(t).String() }
