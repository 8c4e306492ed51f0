package tune

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Renew is one renew interval of the grid: a fixed duration ("1s"), or a
// fraction of the TTL ("ttl/3"), so that one value serves every TTL.
type Renew struct {
	// Interval is the fixed renew interval; zero when Divisor is set.
	Interval time.Duration
	// Divisor, when positive, makes the renew interval TTL/Divisor.
	Divisor int
}

// maxDivisor bounds the N of "ttl/N": a renewal a thousand times per TTL
// is already far beyond any sensible setting.
const maxDivisor = 1000

// ParseRenew reads a renew interval: a Go duration such as "1s" or
// "250ms", or "ttl/N" for a positive integer N.
func ParseRenew(s string) (Renew, error) {
	v := strings.TrimSpace(s)
	if rest, ok := cutPrefixFold(v, "ttl/"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || n > maxDivisor {
			return Renew{}, invalidf("", "%q: want ttl/N with an integer N in [1, %d]", s, maxDivisor)
		}
		return Renew{Divisor: n}, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return Renew{}, invalidf("", "%q: want a positive duration such as 1s, or a fraction of the TTL such as ttl/3", s)
	}
	return Renew{Interval: d}, nil
}

// For returns the renew interval under ttl.
func (r Renew) For(ttl time.Duration) time.Duration {
	if r.Divisor > 0 {
		return ttl / time.Duration(r.Divisor)
	}
	return r.Interval
}

// String writes r as ParseRenew reads it: "ttl/3" or "1s".
func (r Renew) String() string {
	if r.Divisor > 0 {
		return fmt.Sprintf("ttl/%d", r.Divisor)
	}
	return r.Interval.String()
}

// Checkpoint is one checkpoint policy of the grid: every N units of work
// ("5u"), on a timer ("30s"), or never ("none").
type Checkpoint struct {
	// EveryUnits, when positive, checkpoints every that many units.
	EveryUnits int
	// Interval, when positive, checkpoints on a timer.
	Interval time.Duration
}

// maxEveryUnits bounds the N of "Nu"; a task has at most this many units
// (workload.MaxUnits), so a larger N is the same as none.
const maxEveryUnits = 1 << 20

// ParseCheckpoint reads a checkpoint policy: "Nu" (every N units, N a
// positive integer), a Go duration ("30s"), or "none".
func ParseCheckpoint(s string) (Checkpoint, error) {
	v := strings.TrimSpace(s)
	if strings.EqualFold(v, "none") {
		return Checkpoint{}, nil
	}
	if num, ok := strings.CutSuffix(v, "u"); ok {
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || n > maxEveryUnits {
			return Checkpoint{}, invalidf("", "%q: want Nu with an integer N in [1, %d] (every N units)", s, maxEveryUnits)
		}
		return Checkpoint{EveryUnits: n}, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return Checkpoint{}, invalidf("", "%q: want every N units (5u), an interval (30s) or none", s)
	}
	return Checkpoint{Interval: d}, nil
}

// String writes c as ParseCheckpoint reads it: "5u", "30s" or "none".
func (c Checkpoint) String() string {
	switch {
	case c.EveryUnits > 0:
		return fmt.Sprintf("%du", c.EveryUnits)
	case c.Interval > 0:
		return c.Interval.String()
	}
	return "none"
}

// ParseTTL reads one TTL: a positive Go duration.
func ParseTTL(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, invalidf("", "%q: want a positive duration such as 5s", s)
	}
	return d, nil
}

// ParseList reads a comma-separated list with parse, rejecting an empty
// list and values that repeat (by their canonical String form, so that
// "5s" and "5000ms" are the same TTL).
func ParseList[T fmt.Stringer](s string, parse func(string) (T, error)) ([]T, error) {
	if strings.TrimSpace(s) == "" {
		return nil, invalidf("", "empty: give at least one value")
	}
	var out []T
	seen := map[string]int{} // canonical form -> position; looked up, never iterated
	for i, part := range strings.Split(s, ",") {
		v, err := parse(part)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[v.String()]; dup {
			return nil, invalidf("", "%q repeats value %d (%s)", strings.TrimSpace(part), j+1, v)
		}
		seen[v.String()] = i
		out = append(out, v)
	}
	return out, nil
}

// ParseTTLs reads a comma-separated list of TTLs ("2s,5s,10s").
func ParseTTLs(s string) ([]time.Duration, error) {
	return ParseList(s, ParseTTL)
}

// ParseElectionTimeouts reads a comma-separated list of election timeouts
// ("500ms,1s,2s"): positive durations.
func ParseElectionTimeouts(s string) ([]time.Duration, error) {
	return ParseList(s, func(v string) (time.Duration, error) {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			return 0, invalidf("", "%q: want a positive duration such as 1s", v)
		}
		return d, nil
	})
}

// ParseRate reads a rate limit in writes per second: "200/s" or "200".
func ParseRate(s string) (float64, error) {
	v := strings.TrimSuffix(strings.TrimSpace(s), "/s")
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0) || f > 1e12 {
		return 0, invalidf("", "%q: want a non-negative rate such as 200/s", s)
	}
	return f, nil
}

// ParseFraction reads a fraction: a percentage "5%" or a number in [0, 1]
// ("0.05").
func ParseFraction(s string) (float64, error) {
	v := strings.TrimSpace(s)
	scale := 1.0
	if num, ok := strings.CutSuffix(v, "%"); ok {
		v, scale = num, 100
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f >= 0) || f/scale > 1 {
		return 0, invalidf("", "%q: want a percentage in [0%%, 100%%] such as 5%%, or a fraction in [0, 1]", s)
	}
	return f / scale, nil
}

// cutPrefixFold is strings.CutPrefix, ignoring ASCII case.
func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
