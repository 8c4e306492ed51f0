package workload

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// FromEventsOptions tunes the heuristics of FromEvents. The zero value
// estimates everything from the log.
type FromEventsOptions struct {
	// Name is the workload's name; default "from-events".
	Name string
	// RenewInterval is the holders' renew interval. Zero estimates it as
	// the median gap between two successful renewals of one lease.
	RenewInterval time.Duration
	// PauseFactor: a silence of a lease longer than PauseFactor × the
	// renew interval is a pause (default 2).
	PauseFactor float64
	// UnitsPerCheckpoint is how many units of work a checkpoint stands for
	// (the workers' CheckpointEveryUnits; default 1).
	UnitsPerCheckpoint int
	// Loss is written as the environment's message loss; the log does not
	// show it (Summary.RenewTimeouts hints at it).
	Loss float64
	// CrashesAsRate writes observed crashes as the environment's
	// crash_per_hour instead of as crash and restart events.
	CrashesAsRate bool
}

// Summary says what FromEvents read and what it estimated.
type Summary struct {
	// Lines and Events count the log's lines and its events.
	Lines, Events int
	// Holders are the holder nodes in order of appearance; Holders[i]
	// became worker i+1.
	Holders []string
	// Tasks counts the resources that were granted; Completed those of
	// them that were released.
	Tasks, Completed int
	// Crashes and Restarts count the observed crashes and returns.
	Crashes, Restarts int
	// RenewInterval is the renew interval used; Estimated says whether it
	// was estimated from the log.
	RenewInterval time.Duration
	Estimated     bool
	// Renewals and RenewTimeouts count successful renewals and renewals
	// that timed out: their ratio bounds the message loss from above.
	Renewals, RenewTimeouts int
	// LatencySamples, LatencyP50, LatencyP99 and LatencyMax describe the
	// one-way latency seen as half a checkpoint's round trip.
	LatencySamples                     int
	LatencyP50, LatencyP99, LatencyMax time.Duration
	// Pauses counts the pauses found; PauseP50, PauseP99 and PauseMax
	// describe their lengths; PausesPerMinute is their rate per worker.
	Pauses                       int
	PauseP50, PauseP99, PauseMax time.Duration
	PausesPerMinute              float64
	// Header is the header written.
	Header Header
}

// FromEvents turns a lease observer log — JSON lines of lease.Event, as
// lease.NewJSONLinesObserver writes them, recorded for example from the
// real-time runtime — into a workload written to w. Its heuristics:
//
//   - Workers: every node that emits holder events (grant, renew, …) is a
//     worker, numbered w1..wN in order of first appearance.
//   - Time: an event's time is its wall clock minus the wall clock of the
//     log's first event; the workload lasts until the log's last event.
//     Spans within one node (a hold, a renewal gap) use its monotonic
//     clock (local_ns), which steps do not disturb.
//   - Tasks: every granted resource is a task, arriving at its first
//     grant. Its units are its accepted checkpoints × UnitsPerCheckpoint
//     (at least 1): a worker checkpoints every few units and once at the
//     end. Its work is the hold that released it, from grant to release,
//     plus, for every earlier hold that ended otherwise, the time from
//     its grant to its last checkpoint (the progress it handed on); the
//     unit time is work / units, to the microsecond. A task never
//     released counts its holds up to their last event.
//   - Crashes: a hold that never ends on the holder's side (no release,
//     lost or fenced) while the grantor expires it, or the resource is
//     granted again under a later token, was abandoned: its holder
//     crashed. The crash is at the holder's last renewal of its abandoned
//     holds, and the restart at the holder's next event after them, if
//     any (holds abandoned before the same next event are one crash). The
//     log has no boot event, so the next event (often the restarted
//     holder's first grant) bounds the restart from above. A silence
//     shorter than a renew interval is not a crash.
//   - Latency: half of each checkpoint's round trip (duration_ns) is a
//     one-way latency sample. The environment's latency is the Pareto
//     distribution of package sim with the samples' p50 and p99
//     (alpha = ln 50 / ln(p99/p50), min = p50 / 2^(1/alpha)), capped at
//     their maximum; fixed at the p50 when p99 = p50.
//   - Pauses: a hold whose renewal or loss comes more than PauseFactor
//     renew intervals after its previous event of any kind (grant,
//     renewal, failed renewal, checkpoint) was frozen: a live holder
//     renews on time or logs the failures. Its pause is the gap minus
//     half a renew interval (the pause began on average half an interval
//     after the previous event). Overlapping gaps of one node are one
//     pause, of the longest estimate. Pauses shorter than about
//     (PauseFactor − 1) renew intervals are invisible this way; the
//     environment's gc_pause uses the p50, p99 and max of those found and
//     their rate per worker-minute.
//   - Restart delay: the median time from an observed crash to the
//     restart, or the default when none restarted.
//
// The tasks are kept in memory until the end (the header, written first,
// depends on all of the log), so memory grows with the number of tasks;
// renewal gaps go to fixed-size histograms.
func FromEvents(r io.Reader, w io.Writer, opts FromEventsOptions) (Summary, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return Summary{}, err
	}
	x := newExtractor(opts)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	for sc.Scan() {
		x.sum.Lines++
		text := sc.Bytes()
		if len(text) == 0 {
			continue
		}
		var ev lease.Event
		if err := json.Unmarshal(text, &ev); err != nil {
			return x.sum, &LineError{Line: x.sum.Lines, Subject: "lease event", Err: err}
		}
		if ev.Wall.IsZero() {
			return x.sum, &LineError{Line: x.sum.Lines, Subject: "lease event", Field: "wall",
				Err: errors.New("missing: FromEvents needs the wall clock of every event")}
		}
		x.sum.Events++
		x.observe(ev)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return x.sum, &LineError{Line: x.sum.Lines + 1, Err: fmt.Errorf("longer than the limit of %d bytes", MaxLineBytes)}
		}
		return x.sum, fmt.Errorf("workload: reading the event log: %w", err)
	}
	if x.sum.Events == 0 {
		return x.sum, &LineError{Err: errors.New("the event log has no events")}
	}
	return x.write(w)
}

func (o FromEventsOptions) withDefaults() FromEventsOptions {
	if o.Name == "" {
		o.Name = "from-events"
	}
	if o.PauseFactor == 0 {
		o.PauseFactor = 2
	}
	if o.UnitsPerCheckpoint == 0 {
		o.UnitsPerCheckpoint = 1
	}
	return o
}

func (o FromEventsOptions) validate() error {
	switch {
	case o.RenewInterval < 0:
		return fmt.Errorf("workload: from-events: renew interval: must not be negative, got %v", o.RenewInterval)
	case !(o.PauseFactor > 1 && o.PauseFactor <= 1000):
		return fmt.Errorf("workload: from-events: pause factor: must be in (1, 1000], got %v", o.PauseFactor)
	case o.UnitsPerCheckpoint < 0 || o.UnitsPerCheckpoint > MaxUnits:
		return fmt.Errorf("workload: from-events: units per checkpoint: must be in [1, %d], got %d", MaxUnits, o.UnitsPerCheckpoint)
	case !(o.Loss >= 0 && o.Loss <= 1):
		return fmt.Errorf("workload: from-events: loss: must be a probability in [0, 1], got %v", o.Loss)
	}
	return nil
}

// write estimates the environment and writes the workload.
func (x *extractor) write(w io.Writer) (Summary, error) {
	x.finish()
	h := x.header()
	x.sum.Header = h
	out, err := NewWriter(w, h)
	if err != nil {
		return x.sum, fmt.Errorf("workload: from-events: %w", err)
	}
	for _, e := range x.events(h) {
		if err := out.Write(e); err != nil {
			return x.sum, fmt.Errorf("workload: from-events: %w", err)
		}
	}
	return x.sum, out.Flush()
}

// header builds the header from the estimates.
func (x *extractor) header() Header {
	h := Header{Version: Version, Name: x.opts.Name, Workers: max(len(x.sum.Holders), 1),
		Duration: ceilMicro(x.last.Sub(x.t0))}
	h.Env.Loss = x.opts.Loss
	if x.latency.Count() > 0 {
		d := fitLatency(x.latency.Quantile(0.5), x.latency.Quantile(0.99), x.latency.Max())
		h.Env.Latency = &d
		x.sum.LatencySamples = int(x.latency.Count())
		x.sum.LatencyP50, x.sum.LatencyP99, x.sum.LatencyMax = x.latency.Quantile(0.5), x.latency.Quantile(0.99), x.latency.Max()
	}
	workerMinutes := float64(h.Workers) * h.Duration.Minutes()
	if x.pauses.Count() > 0 && workerMinutes > 0 {
		p50, p99 := max(truncMicro(x.pauses.Quantile(0.5)), time.Microsecond), truncMicro(x.pauses.Quantile(0.99))
		p := GCPause{PerMinute: roundTo(float64(x.pauses.Count())/workerMinutes, 1e-6), P50: p50,
			P99: max(p99, p50), Max: max(ceilMicro(x.pauses.Max()), p99, p50)}
		if p.PerMinute > 0 {
			h.Env.GCPause = &p
		}
		x.sum.Pauses = int(x.pauses.Count())
		x.sum.PauseP50, x.sum.PauseP99, x.sum.PauseMax, x.sum.PausesPerMinute = p.P50, p.P99, p.Max, p.PerMinute
	}
	if x.downs.Count() > 0 {
		h.Env.RestartAfter = max(truncMicro(x.downs.Quantile(0.5)), time.Microsecond)
	}
	if x.opts.CrashesAsRate && x.sum.Crashes > 0 && workerMinutes > 0 {
		h.Env.CrashPerHour = min(roundTo(float64(x.sum.Crashes)/(workerMinutes/60), 1e-6), 3600)
	}
	return h
}

// events returns the workload's events in time order.
func (x *extractor) events(h Header) []Event {
	var out []Event
	if !x.opts.CrashesAsRate { // first, so that a restart sorts before the grants it makes
		for _, c := range x.crashes {
			worker := WorkerName(c.worker)
			out = append(out, Event{Type: TypeCrash, At: truncMicro(c.at.Sub(x.t0)), Worker: worker})
			if !c.back.IsZero() {
				out = append(out, Event{Type: TypeRestart, At: truncMicro(c.back.Sub(x.t0)), Worker: worker})
			}
		}
	}
	for _, t := range x.tasks {
		out = append(out, t.event(x.t0, x.opts.UnitsPerCheckpoint))
	}
	slices.SortStableFunc(out, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	for i := range out {
		out[i].At = min(max(out[i].At, 0), h.Duration)
	}
	return out
}

// fitLatency fits the Pareto distribution of package sim to a p50, a p99
// and a maximum (see FromEvents).
func fitLatency(p50, p99, hi time.Duration) sim.Dist {
	p50, p99 = max(p50, time.Microsecond), max(p99, time.Microsecond)
	if p99 <= p50 {
		return sim.FixedDist(truncMicro(p50))
	}
	alpha := roundTo(math.Log(50)/math.Log(float64(p99)/float64(p50)), 1e-3)
	alpha = min(max(alpha, 0.001), 1000)
	lo := time.Duration(float64(p50) / math.Exp2(1/alpha))
	lo = max(truncMicro(lo), time.Microsecond)
	return sim.ParetoDist(lo, max(ceilMicro(hi), lo), alpha)
}

func truncMicro(d time.Duration) time.Duration { return d.Truncate(time.Microsecond) }

func ceilMicro(d time.Duration) time.Duration {
	if t := d.Truncate(time.Microsecond); t < d {
		return t + time.Microsecond
	}
	return d
}

// roundTo rounds f to a multiple of step, so that what is written reads
// well.
func roundTo(f, step float64) float64 { return math.Round(f/step) * step }
