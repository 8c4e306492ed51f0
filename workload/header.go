package workload

import (
	"math"
	"time"
	"unicode/utf8"

	"github.com/leasesim/leasesim/sim"
)

// The JSON fields of each object of the header, in the order they are
// written.
var (
	headerFields = []string{"type", "version", "name", "workers", "duration", "env"}
	envFields    = []string{"latency", "loss", "gc_pause", "crash_per_hour", "restart_after"}
	gcFields     = []string{"per_minute", "p50", "p99", "max"}
	distFields   = []string{"kind", "min", "max", "alpha"}
)

// decodeHeader reads a header line whose type has been checked. The version
// is read first, so that a file of another version is named as such rather
// than by the first field this version does not know.
func decodeHeader(o *object) (Header, *fieldError) {
	var h Header
	v, ok, err := o.integer("version")
	switch {
	case err != nil:
		return h, err
	case !ok:
		return h, badf("version", "missing (want %d)", Version)
	case v != Version:
		return h, badf("version", "unsupported version %d (want %d)", v, Version)
	}
	h.Version = Version
	if err := o.unknown(headerFields...); err != nil {
		return h, err
	}
	if h.Name, ok, err = o.str("name"); err != nil || !ok {
		return h, orMissing("name", err)
	}
	workers, ok, err := o.integer("workers")
	if err != nil || !ok {
		return h, orMissing("workers", err)
	}
	h.Workers = int(max(min(workers, math.MaxInt32), math.MinInt32))
	if h.Duration, ok, err = o.duration("duration"); err != nil {
		return h, err
	}
	if ok && h.Duration <= 0 {
		return h, badf("duration", "must be positive, got %v (leave it out to end at the last event)", h.Duration)
	}
	env, err := o.object("env")
	if err != nil || env == nil {
		return h, err
	}
	h.Env, err = decodeEnv(env)
	return h, under("env", err)
}

// orMissing returns err, or a "missing" error for field if err is nil.
func orMissing(field string, err *fieldError) *fieldError {
	if err != nil {
		return err
	}
	return badf(field, "missing")
}

func decodeEnv(o *object) (Env, *fieldError) {
	var env Env
	if err := o.unknown(envFields...); err != nil {
		return env, err
	}
	lat, err := o.object("latency")
	if err != nil {
		return env, err
	}
	if lat != nil {
		d, err := decodeDist(lat)
		if err != nil {
			return env, under("latency", err)
		}
		env.Latency = &d
	}
	if env.Loss, _, err = o.number("loss"); err != nil {
		return env, err
	}
	gc, err := o.object("gc_pause")
	if err != nil {
		return env, err
	}
	if gc != nil {
		p, err := decodeGCPause(gc)
		if err != nil {
			return env, under("gc_pause", err)
		}
		env.GCPause = &p
	}
	if env.CrashPerHour, _, err = o.number("crash_per_hour"); err != nil {
		return env, err
	}
	var ok bool
	if env.RestartAfter, ok, err = o.duration("restart_after"); err != nil {
		return env, err
	}
	if ok && env.RestartAfter <= 0 {
		return env, badf("restart_after", "must be positive, got %v", env.RestartAfter)
	}
	return env, nil
}

func decodeGCPause(o *object) (GCPause, *fieldError) {
	var p GCPause
	if err := o.unknown(gcFields...); err != nil {
		return p, err
	}
	var ok bool
	var err *fieldError
	if p.PerMinute, ok, err = o.number("per_minute"); err != nil || !ok {
		return p, orMissing("per_minute", err)
	}
	for _, f := range []struct {
		name string
		d    *time.Duration
	}{{"p50", &p.P50}, {"p99", &p.P99}, {"max", &p.Max}} {
		if *f.d, ok, err = o.duration(f.name); err != nil || !ok {
			return p, orMissing(f.name, err)
		}
	}
	return p, nil
}

// decodeDist reads a distribution strictly: the fields its kind does not
// use are rejected, so that what is read is exactly what is written back.
func decodeDist(o *object) (sim.Dist, *fieldError) {
	var d sim.Dist
	if err := o.unknown(distFields...); err != nil {
		return d, err
	}
	kind, ok, err := o.str("kind")
	if err != nil || !ok {
		return d, orMissing("kind", err)
	}
	d.Kind = sim.DistKind(kind)
	uses := map[sim.DistKind][]string{sim.Fixed: {"min"}, sim.Uniform: {"min", "max"}, sim.Pareto: {"min", "max", "alpha"}}
	fields, known := uses[d.Kind]
	if !known {
		return d, badf("kind", "unknown distribution %q (want fixed, uniform or pareto)", kind)
	}
	for _, f := range distFields[1:] {
		if o.has(f) && !contains(fields, f) {
			return d, badf(f, "not used by a %s distribution", kind)
		}
		if !o.has(f) && contains(fields, f) {
			return d, badf(f, "missing (a %s distribution needs %s)", kind, quoteJoin(fields, " and "))
		}
	}
	if d.Min, _, err = o.duration("min"); err != nil {
		return d, err
	}
	if d.Max, _, err = o.duration("max"); err != nil {
		return d, err
	}
	if d.Alpha, _, err = o.number("alpha"); err != nil {
		return d, err
	}
	if err := checkDist(d, false); err != nil {
		return d, err
	}
	return compileDist(d), nil
}

// compileDist returns d as the constructors of package sim build it, so a
// distribution read from a file is equal to one built in Go.
func compileDist(d sim.Dist) sim.Dist {
	switch d.Kind {
	case sim.Fixed:
		return sim.FixedDist(d.Min)
	case sim.Uniform:
		return sim.UniformDist(d.Min, d.Max)
	}
	return sim.ParetoDist(d.Min, d.Max, d.Alpha)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkDist checks a distribution of durations; positive asks for a
// positive minimum (a unit time) rather than a non-negative one (a
// latency).
func checkDist(d sim.Dist, positive bool) *fieldError {
	switch d.Kind {
	case sim.Fixed, sim.Uniform, sim.Pareto:
	case "":
		return badf("kind", "missing (want fixed, uniform or pareto)")
	default:
		return badf("kind", "unknown distribution %q (want fixed, uniform or pareto)", d.Kind)
	}
	switch {
	case positive && d.Min <= 0:
		return badf("min", "must be positive, got %v", d.Min)
	case d.Min < 0:
		return badf("min", "must not be negative, got %v", d.Min)
	case d.Min > MaxDuration:
		return badf("min", "%v exceeds the limit of %v", d.Min, MaxDuration)
	case d.Kind == sim.Fixed && d.Max != 0 && d.Max != d.Min:
		return badf("max", "not used by a fixed distribution")
	case d.Kind != sim.Fixed && d.Max < d.Min:
		return badf("max", "%v is below min %v", d.Max, d.Min)
	case d.Max > MaxDuration:
		return badf("max", "%v exceeds the limit of %v", d.Max, MaxDuration)
	case d.Kind != sim.Pareto && d.Alpha != 0:
		return badf("alpha", "not used by a %s distribution", d.Kind)
	case d.Kind == sim.Pareto && !(d.Alpha > 0 && d.Alpha <= 1000):
		return badf("alpha", "must be in (0, 1000], got %v", d.Alpha)
	}
	return nil
}

// checkHeader checks a header's values (decoded or built in Go).
func checkHeader(h Header) *fieldError {
	switch {
	case h.Version != Version:
		return badf("version", "unsupported version %d (want %d)", h.Version, Version)
	case h.Name == "":
		return badf("name", "must not be empty")
	case len(h.Name) > MaxNameBytes || !utf8.ValidString(h.Name):
		return badf("name", "must be valid UTF-8 of at most %d bytes", MaxNameBytes)
	case h.Workers <= 0:
		return badf("workers", "must be positive, got %d", h.Workers)
	case h.Workers > MaxWorkers:
		return badf("workers", "%d exceeds the limit of %d", h.Workers, MaxWorkers)
	case h.Duration < 0:
		return badf("duration", "must be positive, got %v", h.Duration)
	case h.Duration > MaxDuration:
		return badf("duration", "%v exceeds the limit of %v", h.Duration, MaxDuration)
	}
	return under("env", checkEnv(h.Env))
}

func checkEnv(e Env) *fieldError {
	if e.Latency != nil {
		if err := checkDist(*e.Latency, false); err != nil {
			return under("latency", err)
		}
	}
	switch {
	case !(e.Loss >= 0 && e.Loss <= 1):
		return badf("loss", "must be a probability in [0, 1], got %v", e.Loss)
	case !(e.CrashPerHour >= 0 && e.CrashPerHour <= 3600):
		return badf("crash_per_hour", "must be in [0, 3600], got %v", e.CrashPerHour)
	case e.RestartAfter < 0:
		return badf("restart_after", "must be positive, got %v", e.RestartAfter)
	case e.RestartAfter > MaxDuration:
		return badf("restart_after", "%v exceeds the limit of %v", e.RestartAfter, MaxDuration)
	}
	if e.GCPause != nil {
		return under("gc_pause", checkGCPause(*e.GCPause))
	}
	return nil
}

func checkGCPause(p GCPause) *fieldError {
	switch {
	case !(p.PerMinute > 0 && p.PerMinute <= 6000):
		return badf("per_minute", "must be in (0, 6000], got %v", p.PerMinute)
	case p.P50 <= 0:
		return badf("p50", "must be positive, got %v", p.P50)
	case p.P99 < p.P50:
		return badf("p99", "%v is below p50 %v", p.P99, p.P50)
	case p.Max < p.P99:
		return badf("max", "%v is below p99 %v", p.Max, p.P99)
	case p.Max > MaxDuration:
		return badf("max", "%v exceeds the limit of %v", p.Max, MaxDuration)
	}
	return nil
}
