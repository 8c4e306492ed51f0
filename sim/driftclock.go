package sim

import "time"

// DriftClock is the kernel's model of a node's monotonic clock as a value,
// for hosts other than the kernel (the goroutine host's per-node clock): a
// piecewise-linear, non-decreasing function of true time whose rate is
// 1+drift, in integer arithmetic. Its zero value is not ready: use
// NewDriftClock.
type DriftClock struct{ c clock }

// NewDriftClock returns a clock that reads origin at true time zero and
// runs at the true rate.
func NewDriftClock(origin time.Duration) DriftClock { return DriftClock{c: newClock(origin)} }

// At returns the clock's reading at true time t (the reading at the last
// drift change or later, or one recorded before it).
func (d *DriftClock) At(t Time) time.Duration { return d.c.at(t) }

// TrueAt returns the earliest true time at which the clock reads at least
// m, assuming the current drift continues, or Never beyond the clock's
// range.
func (d *DriftClock) TrueAt(m time.Duration) Time { return d.c.trueAt(m) }

// SetDrift sets the rate to 1+drift from true time now on, as
// Node.SetDrift does (drift in (-1, 1]; it panics otherwise).
func (d *DriftClock) SetDrift(now Time, drift float64) {
	d.c.setDrift(now, int64(drift*ppbOne))
}

// DriftPPB returns the current drift in parts per billion.
func (d *DriftClock) DriftPPB() int64 { return d.c.drift() }
