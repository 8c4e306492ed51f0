package truetime

import (
	"math"
	"time"
)

// Time is an instant of true time: nanoseconds since the start of a run.
type Time int64

// Never is an instant later than any other: an end that did not come.
const Never Time = math.MaxInt64

// Duration returns t as a time.Duration since the run's start.
func (t Time) Duration() time.Duration { return time.Duration(t) }

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

// Seconds returns t in seconds since the run's start.
func (t Time) Seconds() float64 { return time.Duration(t).Seconds() }

// String formats t as a duration since the run's start ("1m2.5s").
func (t Time) String() string { return time.Duration(t).String() }
