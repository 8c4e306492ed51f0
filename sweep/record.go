package sweep

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// record is what the summary keeps of one run: a few numbers and, for a
// failing run, its Failure. The outcome itself is dropped at once.
type record struct {
	k        int // the run's number in (scenario, seed) order
	scenario string
	seed     uint64

	events     uint64
	sim        time.Duration
	wall       time.Duration // of every execution of the seed, for cpu_seconds
	accel      float64       // sim/wall of the first execution; 0 if unmeasurable
	unknown    []unknownVerdict
	assumption bool // P1 was unknown only because drift exceeded its assumption
	margin     *time.Duration
	metrics    checker.Metrics
	coverage   checker.Coverage
	failure    *Failure
	// spec and tasks say which behaviours a Host's run cannot reach
	// (HostRun.Spec, HostRun.Tasks); the event host's come from Config.Impl.
	spec  string
	tasks bool
	// harness is a bug of the harness itself, which stops the sweep: never
	// a verdict on the implementation.
	harness error
}

// unknownVerdict is one property a run could not decide, and why.
type unknownVerdict struct{ property, reason string }

// run executes run k (twice with VerifyDeterminism) and reduces it to a
// record. A harness bug (a *scenarios.HarnessPanic from Execute, or a
// panic here) becomes rec.harness, which stops the sweep.
func (r *runner) run(ctx context.Context, k int) (rec *record) {
	i, seed := r.locate(k)
	if r.cfg.Host != nil {
		return r.runHost(ctx, k, r.cfg.HostScenarios[i], seed)
	}
	sc := r.cfg.Scenarios[i]
	rec = &record{k: k, scenario: sc.Name, seed: seed}
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Logger.Error("sweep: harness panicked", "scenario", rec.scenario, "seed", rec.seed,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			rec.harness = &scenarios.HarnessPanic{Value: p, Stack: string(debug.Stack())}
		}
	}()
	// No trace records in memory: the hash covers every record anyway.
	opts := scenarios.Options{Impl: r.cfg.Impl, Trace: sim.TraceConfig{Keep: -1}, Check: r.cfg.Check}
	begin := time.Now()
	out, err := scenarios.Execute(sc, seed, opts)
	rec.wall = time.Since(begin)
	if rec.harnessBug(err) {
		return rec
	}
	if err != nil {
		rec.failure = r.failure(rec, []string{PropertyError}, err.Error(), "")
		return rec
	}
	rec.fill(out)
	if rec.wall > 0 {
		rec.accel = rec.sim.Seconds() / rec.wall.Seconds()
	}
	props, detail := failed(out)
	if r.cfg.VerifyDeterminism {
		begin = time.Now()
		again, err := scenarios.Execute(sc, seed, opts)
		rec.wall += time.Since(begin)
		switch {
		case rec.harnessBug(err):
			return rec
		case err != nil:
			props, detail = append(props, PropertyDeterminism), firstOf(detail, "second run: "+err.Error())
		case again.Sim.TraceHash != out.Sim.TraceHash:
			props = append(props, PropertyDeterminism)
			detail = firstOf(detail, fmt.Sprintf("trace hash %s, then %s", out.Sim.TraceHashString(), again.Sim.TraceHashString()))
		}
	}
	if len(props) > 0 {
		rec.failure = r.failure(rec, props, detail, out.Sim.TraceHashString())
	}
	return rec
}

// harnessBug records err in rec if it is a harness bug.
func (rec *record) harnessBug(err error) bool {
	var hp *scenarios.HarnessPanic
	if errors.As(err, &hp) {
		rec.harness = err
		return true
	}
	return false
}

// fill copies what the summary needs from out.
func (rec *record) fill(out *scenarios.Outcome) {
	rec.events, rec.sim, rec.metrics, rec.coverage = out.Sim.Events, time.Duration(out.Sim.Now), out.Metrics, out.Coverage
	rec.fillChecks(out.Checks)
}

// fillChecks copies what the summary needs from a run's checks: its
// unknown verdicts, an exceeded assumption, P1's margin.
func (rec *record) fillChecks(checks []checker.Result) {
	for _, c := range checks {
		switch {
		case c.AssumptionOnly():
			rec.assumption = true
		case c.Status == checker.Unknown:
			rec.unknown = append(rec.unknown, unknownVerdict{property: c.Property, reason: reasonOf(c)})
		}
		if c.Property == "P1" {
			rec.margin = c.MarginMin
		}
	}
}

// reasonOf names why c is unknown in a form that many runs share: its
// property and name, then its summary's first clause with every number
// written N, at most maxReasonLen bytes.
func reasonOf(c checker.Result) string {
	first, _, _ := strings.Cut(c.Summary, ";")
	var b strings.Builder
	b.WriteString(c.Property + " " + c.Name + ": ")
	inNumber := false
	for _, ch := range first {
		isNumber := unicode.IsDigit(ch) || inNumber && ch == '.'
		switch {
		case isNumber && !inNumber:
			b.WriteByte('N')
		case !isNumber:
			b.WriteRune(ch)
		}
		inNumber = isNumber
	}
	s := strings.TrimSpace(b.String())
	if len(s) > maxReasonLen {
		s = strings.ToValidUTF8(s[:maxReasonLen], "") + "…"
	}
	return s
}

// maxReasonLen bounds an unknown reason's length.
const maxReasonLen = 100

// failed lists out's violated properties, then "limit" if it stopped early,
// with the first one's summary.
func failed(out *scenarios.Outcome) (props []string, detail string) {
	for _, c := range out.Violated() {
		if !slices.Contains(props, c.Property) { // two checks of one property fail it once
			props = append(props, c.Property)
		}
		detail = firstOf(detail, c.Property+" "+c.Name+": "+c.Summary)
	}
	if out.Sim.Err != nil {
		props = append(props, PropertyLimit)
		detail = firstOf(detail, out.Sim.Err.Error())
	}
	return props, detail
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// failure builds the Failure of rec.
func (r *runner) failure(rec *record, props []string, detail, hash string) *Failure {
	return &Failure{Scenario: rec.scenario, Seed: rec.seed, Impl: r.cfg.Impl.Name, Properties: props,
		Detail: detail, TraceHash: hash, Replay: ReplayCommand(rec.scenario, rec.seed, r.cfg.Impl.Name, props)}
}
