package gohost

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A goroutine-host implementation may declare knobs: the settings its
// users tune (a renew interval, a grace period, raft's timeouts). simrun
// reads them from the worker's list (ScenarioInfo.Knobs), checks the
// values a user gives (`--knob NAME=VALUE` on run, sweep, replay and
// shrink; `--knob NAME=V1,V2` on tune, a grid axis) against them, and
// hands them to the worker in Job.Knobs; the worker builds the scenarios
// again from them (scenarios.TunableWorker). Every knob is a duration.

// Knob is one tunable setting of an implementation.
type Knob struct {
	// Name is the knob's name on the command line: kebab-case,
	// "grace-period".
	Name string `json:"name"`
	// Doc says in one line what it sets, in the implementation's words.
	Doc string `json:"doc"`
	// Default is the value the scenarios use when the knob is not set
	// (a story that sets its own says so in its story).
	Default time.Duration `json:"default_ns"`
	// Min and Max bound the values the implementation takes, inclusive.
	Min time.Duration `json:"min_ns"`
	Max time.Duration `json:"max_ns"`
}

// KnobValues are knob values by knob name: what a Job carries. A knob
// that is not set is absent.
type KnobValues map[string]time.Duration

// Get returns the value of knob name, or def when it is not set.
func (v KnobValues) Get(name string, def time.Duration) time.Duration {
	if d, ok := v[name]; ok {
		return d
	}
	return def
}

// ErrBadKnob matches every error CheckKnobs returns.
var ErrBadKnob = errors.New("bad knob")

// CheckKnobs checks values against the declared knobs: every name must be
// declared and every value within its knob's range. The error names the
// knob and says what it takes; it matches ErrBadKnob.
func CheckKnobs(declared []Knob, values KnobValues) error {
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	slices.Sort(names) // the first bad knob by name, whatever the map's order
	for _, name := range names {
		i := slices.IndexFunc(declared, func(k Knob) bool { return k.Name == name })
		if i < 0 {
			return fmt.Errorf("%w %q: unknown (known: %s)", ErrBadKnob, name, KnobNames(declared))
		}
		k, d := declared[i], values[name]
		if d < k.Min || d > k.Max {
			return fmt.Errorf("%w %s=%v: out of range: want %v to %v (default %v)", ErrBadKnob, name, d, k.Min, k.Max, k.Default)
		}
	}
	return nil
}

// KnobNames lists the declared knobs' names, or "none".
func KnobNames(declared []Knob) string {
	if len(declared) == 0 {
		return "none"
	}
	names := make([]string, len(declared))
	for i, k := range declared {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// ParseKnob reads one knob setting as the command line gives it,
// "NAME=VALUE" or, for a grid, "NAME=V1,V2,…": the name and the values
// (Go durations), in order. The error says what is wrong with s.
func ParseKnob(s string) (string, []time.Duration, error) {
	name, list, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.TrimSpace(list) == "" {
		return "", nil, fmt.Errorf("%w %q: want NAME=VALUE, such as grace-period=40s", ErrBadKnob, s)
	}
	var values []time.Duration
	for v := range strings.SplitSeq(list, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil {
			return "", nil, fmt.Errorf("%w %s: %q is not a duration (want a Go duration such as 500ms or 40s)", ErrBadKnob, name, v)
		}
		if slices.Contains(values, d) {
			return "", nil, fmt.Errorf("%w %s: %v is given twice", ErrBadKnob, name, d)
		}
		values = append(values, d)
	}
	return name, values, nil
}

// Settings are values as NAME=VALUE, in name order: what --knob takes
// and a sweep summary records.
func (v KnobValues) Settings() []string {
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	slices.Sort(names)
	settings := make([]string, 0, len(names))
	for _, name := range names {
		settings = append(settings, name+"="+v[name].String())
	}
	return settings
}

// KnobArgs writes values as the command line's --knob flags, in name
// order: what a printed reproduction line repeats.
func KnobArgs(values KnobValues) []string {
	var args []string
	for _, s := range values.Settings() {
		args = append(args, "--knob", s)
	}
	return args
}
