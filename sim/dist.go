package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// DistKind names a latency distribution.
type DistKind string

// The latency distributions a link can draw from.
const (
	// Fixed always returns Min.
	Fixed DistKind = "fixed"
	// Uniform draws uniformly from [Min, Max].
	Uniform DistKind = "uniform"
	// Pareto is heavy-tailed: at least Min, with P(X > Min·2^k) = 2^(-Alpha·k),
	// capped at Max. It is drawn octave by octave with integer arithmetic.
	Pareto DistKind = "pareto"
)

// Dist is a distribution of durations, used for link latency.
type Dist struct {
	Kind  DistKind
	Min   time.Duration
	Max   time.Duration
	Alpha float64 // Pareto tail index; smaller is heavier

	tailP uint64 // Pareto: probability of moving up one octave, out of 2^64
}

// FixedDist returns a distribution that always yields d.
func FixedDist(d time.Duration) Dist { return Dist{Kind: Fixed, Min: d, Max: d} }

// UniformDist returns a uniform distribution over [lo, hi].
func UniformDist(lo, hi time.Duration) Dist { return Dist{Kind: Uniform, Min: lo, Max: hi} }

// ParetoDist returns a heavy-tailed distribution from lo, capped at hi.
func ParetoDist(lo, hi time.Duration, alpha float64) Dist {
	d := Dist{Kind: Pareto, Min: lo, Max: hi, Alpha: alpha}
	d.compile()
	return d
}

// Validate reports the first field that makes d unusable.
func (d Dist) Validate() error {
	switch d.Kind {
	case Fixed, Uniform, Pareto:
	case "":
		return errors.New("kind: missing (want fixed, uniform or pareto)")
	default:
		return fmt.Errorf("kind: unknown distribution %q (want fixed, uniform or pareto)", d.Kind)
	}
	if d.Min < 0 {
		return fmt.Errorf("min: negative duration %v", d.Min)
	}
	if d.Kind != Fixed && d.Max < d.Min {
		return fmt.Errorf("max: %v is below min %v", d.Max, d.Min)
	}
	if d.Kind == Pareto && (!(d.Alpha > 0) || math.IsInf(d.Alpha, 0)) {
		return fmt.Errorf("alpha: must be a positive number, got %v", d.Alpha)
	}
	return nil
}

func (d *Dist) compile() {
	if d.Kind == Pareto && d.Alpha > 0 {
		// Floating point is used once, here, never per sample.
		p := math.Ldexp(math.Exp2(-d.Alpha), 64)
		d.tailP = math.MaxUint64
		if p < math.Ldexp(1, 64) {
			d.tailP = uint64(p)
		}
	}
}

// Sample draws one duration. It never returns less than Min.
func (d *Dist) Sample(r *rand.Rand) time.Duration {
	switch d.Kind {
	case Uniform:
		if d.Max == d.Min {
			return d.Min
		}
		return d.Min + time.Duration(r.Int64N(int64(d.Max-d.Min)+1))
	case Pareto:
		return d.samplePareto(r)
	default:
		return d.Min
	}
}

func (d *Dist) samplePareto(r *rand.Rand) time.Duration {
	lo := max(d.Min, 1)
	for lo < d.Max/2 && r.Uint64() < d.tailP {
		lo *= 2
	}
	v := lo + time.Duration(r.Int64N(int64(lo)))
	if v < d.Min {
		v = d.Min
	}
	return min(v, d.Max)
}

// distJSON is the JSON form of a Dist, with durations as strings ("5ms").
type distJSON struct {
	Kind  DistKind `json:"kind"`
	Min   Duration `json:"min"`
	Max   Duration `json:"max,omitempty"`
	Alpha float64  `json:"alpha,omitempty"`
}

// MarshalJSON writes durations as Go duration strings.
func (d Dist) MarshalJSON() ([]byte, error) {
	return json.Marshal(distJSON{Kind: d.Kind, Min: Duration(d.Min), Max: Duration(d.Max), Alpha: d.Alpha})
}

// UnmarshalJSON reads the form MarshalJSON writes and validates it.
func (d *Dist) UnmarshalJSON(b []byte) error {
	var j distJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a misspelt field is an error, not a default
	if err := dec.Decode(&j); err != nil {
		return err
	}
	*d = Dist{Kind: j.Kind, Min: time.Duration(j.Min), Max: time.Duration(j.Max), Alpha: j.Alpha}
	if d.Kind == Fixed && d.Max == 0 {
		d.Max = d.Min
	}
	if err := d.Validate(); err != nil {
		return err
	}
	d.compile()
	return nil
}

// Duration is a time.Duration that reads and writes JSON as a string such as
// "150ms" (a bare number is read as nanoseconds).
type Duration time.Duration

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON accepts "1.5s" or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var ns int64
		if err2 := json.Unmarshal(b, &ns); err2 != nil {
			return fmt.Errorf("duration: want a string like \"150ms\" or integer nanoseconds, got %s", b)
		}
		*d = Duration(ns)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}
