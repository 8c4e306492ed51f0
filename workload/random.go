package workload

import (
	"cmp"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/leasesim/leasesim/faults"
)

// drawer draws the environment's random faults for one run: GC pauses and
// crashes on every worker, until the heal. Everything random comes from
// the *rand.Rand of the run and is computed with integer arithmetic only:
// floating point is used once, when the drawer is built from the header.
type drawer struct {
	workers      int
	healAt       time.Duration
	pauseGap     time.Duration // mean time between two GC pauses of one worker; 0: none
	pauses       quantiles     // GC pause durations
	crashGap     time.Duration // mean time between two crashes of one worker; 0: none
	restartAfter time.Duration
	down, paused [][]span // per worker (index i-1): the explicit schedule's crashed and paused intervals
	limit        int      // at most this many events
}

// span is the closed interval [from, to] of true time.
type span struct{ from, to time.Duration }

// newDrawer builds the drawer of a plan.
func newDrawer(p Plan) *drawer {
	env := p.Header.Env
	d := &drawer{workers: p.Header.Workers, healAt: p.Duration, restartAfter: env.restartAfter(),
		down: make([][]span, p.Header.Workers), paused: make([][]span, p.Header.Workers),
		limit: faults.MaxEvents - len(p.Faults.Events)}
	if gc := env.GCPause; gc != nil {
		d.pauseGap = meanGap(time.Minute, gc.PerMinute)
		d.pauses = logQuantiles(*gc)
	}
	if env.CrashPerHour > 0 {
		d.crashGap = meanGap(time.Hour, env.CrashPerHour)
	}
	for _, e := range p.Faults.Events {
		i := workerIndex(e.Node, p.Header.Workers) - 1
		if i < 0 {
			continue // a store member's fault: the environment's draw is the workers'
		}
		switch e.Kind {
		case faults.KindCrash:
			d.down[i] = append(d.down[i], span{e.At, p.Duration})
		case faults.KindRestart:
			d.down[i][len(d.down[i])-1].to = e.At
		case faults.KindPause:
			d.paused[i] = appendMerged(d.paused[i], span{e.At, e.At + e.Duration})
		}
	}
	return d
}

// meanGap returns per/rate, the mean time between two events at rate
// events per per, bounded to [1ns, MaxDuration].
func meanGap(per time.Duration, rate float64) time.Duration {
	return time.Duration(max(min(float64(per)/rate, float64(MaxDuration)), 1))
}

// appendMerged appends s to spans sorted by start, merging it into the
// last one if they overlap, so that the spans stay disjoint.
func appendMerged(spans []span, s span) []span {
	if n := len(spans); n > 0 && s.from <= spans[n-1].to {
		spans[n-1].to = max(spans[n-1].to, s.to)
		return spans
	}
	return append(spans, s)
}

// draw returns the faults of one run, in time order. Each worker draws
// its crashes and its pauses from PRNGs of its own, seeded from r in a
// fixed order, so that changing one rate leaves the other draws alone.
//
// A crash is a Poisson arrival (mean gap 1/crash_per_hour) and lasts
// restart_after; a pause is a Poisson arrival (mean gap 1/per_minute)
// with a duration drawn from the GC pause distribution. A drawn event
// that would contradict the schedule is skipped, not redrawn, so the
// draws that follow stay the same: a crash is skipped if it overlaps one
// of the worker's explicit crashes or pauses or its previous drawn crash;
// a pause if it starts while the worker is down or inside its previous
// drawn pause. A crash whose restart falls at or after the heal gets none
// (the heal restarts it).
func (d *drawer) draw(r *rand.Rand) []faults.Event {
	type streams struct{ crash, pause *rand.Rand }
	rs := make([]streams, d.workers)
	for i := range rs {
		rs[i] = streams{crash: rand.New(rand.NewPCG(r.Uint64(), r.Uint64())), pause: rand.New(rand.NewPCG(r.Uint64(), r.Uint64()))}
	}
	var out []faults.Event
	for i := range d.workers {
		crashes := d.drawCrashes(i, rs[i].crash)
		out = append(out, crashes...)
		out = append(out, d.drawPauses(i, rs[i].pause, crashes)...)
	}
	slices.SortStableFunc(out, func(a, b faults.Event) int { return cmp.Compare(a.At, b.At) })
	if len(out) > d.limit {
		out = out[:max(d.limit, 0)]
	}
	return out
}

func (d *drawer) drawCrashes(i int, r *rand.Rand) []faults.Event {
	if d.crashGap == 0 {
		return nil
	}
	var out []faults.Event
	node, lastEnd := WorkerName(i+1), time.Duration(-1)
	for t := exponential(r, d.crashGap); t < d.healAt && len(out) < d.limit; t += exponential(r, d.crashGap) {
		end := t + d.restartAfter
		if t <= lastEnd || overlaps(d.down[i], t, end) || overlaps(d.paused[i], t, end) {
			continue
		}
		out = append(out, faults.Event{At: t, Kind: faults.KindCrash, Node: node})
		if end < d.healAt {
			out = append(out, faults.Event{At: end, Kind: faults.KindRestart, Node: node})
		}
		lastEnd = end
	}
	return out
}

func (d *drawer) drawPauses(i int, r *rand.Rand, crashes []faults.Event) []faults.Event {
	if d.pauseGap == 0 {
		return nil
	}
	var drawnDown []span
	for _, c := range crashes {
		if c.Kind == faults.KindCrash {
			drawnDown = append(drawnDown, span{c.At, c.At + d.restartAfter})
		}
	}
	var out []faults.Event
	node, pauseEnd := WorkerName(i+1), time.Duration(-1)
	for t := exponential(r, d.pauseGap); t < d.healAt && len(out) < d.limit; t += exponential(r, d.pauseGap) {
		dur := d.pauses.sample(r)
		if t <= pauseEnd || overlaps(d.down[i], t, t) || overlaps(drawnDown, t, t) {
			continue
		}
		out = append(out, faults.Event{At: t, Kind: faults.KindPause, Node: node, Duration: dur})
		pauseEnd = t + dur
	}
	return out
}

// overlaps reports whether [from, to] meets one of spans, which are
// sorted by their start.
func overlaps(spans []span, from, to time.Duration) bool {
	i, _ := slices.BinarySearchFunc(spans, to, func(s span, t time.Duration) int {
		return cmp.Compare(s.from, t+1)
	})
	// spans[:i] start at or before to; they are disjoint, so the last of
	// them ends last.
	return i > 0 && spans[i-1].to >= from
}

// exponential draws an exponentially distributed duration with the given
// mean, by von Neumann's method: it compares uniform integers only, so it
// gives the same result on every machine. The integer part k counts
// rejected rounds; the fraction is the first uniform of the accepted
// round, whose descending run u1 > u2 > … has odd length (probability
// e^(−u1)).
func exponential(r *rand.Rand, mean time.Duration) time.Duration {
	for k := uint64(0); ; k++ {
		first := r.Uint64()
		prev, n := first, 1
		for {
			u := r.Uint64()
			if u >= prev {
				break
			}
			prev, n = u, n+1
		}
		if n%2 == 1 || k == 64 {
			hi, _ := bits.Mul64(first, uint64(mean))
			return time.Duration(k)*mean + time.Duration(hi)
		}
	}
}

// quantiles is a distribution of durations kept as its quantile function
// at 1024 evenly spaced probabilities, sampled by linear interpolation in
// integers.
type quantiles []time.Duration

// quantileSteps is the number of intervals of a quantiles table.
const quantileSteps = 1024

// logQuantiles builds the GC pause distribution: piecewise log-uniform
// through the knots (0, lo), (0.5, p50), (0.99, p99) and (1, max), where
// lo = p50²/p99 mirrors p99 below the median (at least 1µs, at most p50).
// Half the pauses are at most p50, 99% at most p99, none above max.
func logQuantiles(p GCPause) quantiles {
	lo := time.Duration(float64(p.P50) * float64(p.P50) / float64(p.P99))
	lo = min(max(lo, time.Microsecond), p.P50)
	knots := []struct {
		q float64
		d time.Duration
	}{{0, lo}, {0.5, p.P50}, {0.99, p.P99}, {1, p.Max}}
	t := make(quantiles, quantileSteps+1)
	for k := range t {
		q := float64(k) / quantileSteps
		j := 1
		for j < len(knots)-1 && q > knots[j].q {
			j++
		}
		a, b := knots[j-1], knots[j]
		f := (q - a.q) / (b.q - a.q)
		v := math.Exp(math.Log(float64(a.d)) + f*(math.Log(float64(b.d))-math.Log(float64(a.d))))
		t[k] = min(max(time.Duration(math.Round(v)), a.d), b.d)
	}
	t[quantileSteps] = p.Max
	return t
}

// sample draws one duration.
func (t quantiles) sample(r *rand.Rand) time.Duration {
	k := r.IntN(quantileSteps)
	lo, hi := t[k], t[k+1]
	frac := r.Uint64()
	step, _ := bits.Mul64(uint64(hi-lo), frac)
	return lo + time.Duration(step)
}
