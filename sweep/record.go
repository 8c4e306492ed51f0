package sweep

import (
	"fmt"
	"runtime/debug"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/sim"
)

// The pseudo-properties under which a run fails besides P1..P6.
const (
	PropertyLimit       = "limit"       // the run stopped early at a limit
	PropertyDeterminism = "determinism" // two runs of one seed gave different trace hashes
	PropertyError       = "error"       // the run could not start (for example, the implementation failed to boot)
	PropertyPanic       = "panic"       // the run panicked: a broken invariant
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
	unknown    []string      // properties with an unknown verdict
	assumption bool          // P1 exceeded its drift assumption
	margin     *time.Duration
	metrics    checker.Metrics
	failure    *Failure
}

// run executes run k (twice with VerifyDeterminism) and reduces it to a
// record. A panic inside the run becomes a failure under "panic", with the
// replay command, instead of ending the sweep.
func (r *runner) run(k int) (rec *record) {
	sc := r.cfg.Scenarios[k/r.perScenario]
	seed := r.cfg.Shard.Seed(r.cfg.Seeds, k%r.perScenario)
	rec = &record{k: k, scenario: sc.Name, seed: seed}
	defer func() {
		if p := recover(); p != nil {
			r.cfg.Logger.Error("sweep: run panicked", "scenario", rec.scenario, "seed", rec.seed,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			rec.failure = r.failure(rec, []string{PropertyPanic}, fmt.Sprint(p), "")
		}
	}()
	// No trace records in memory: the hash covers every record anyway.
	opts := scenarios.Options{Impl: r.cfg.Impl, Trace: sim.TraceConfig{Keep: -1}, Check: r.cfg.Check}
	begin := time.Now()
	out, err := scenarios.Execute(sc, seed, opts)
	rec.wall = time.Since(begin)
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

// fill copies what the summary needs from out.
func (rec *record) fill(out *scenarios.Outcome) {
	rec.events, rec.sim, rec.metrics = out.Sim.Events, time.Duration(out.Sim.Now), out.Metrics
	for _, c := range out.Checks {
		if c.Status == checker.Unknown {
			rec.unknown = append(rec.unknown, c.Property)
		}
		if c.Property == "P1" {
			rec.assumption = c.AssumptionExceeded
			rec.margin = c.MarginMin
		}
	}
}

// failed lists out's violated properties, then "limit" if it stopped early,
// with the first one's summary.
func failed(out *scenarios.Outcome) (props []string, detail string) {
	for _, c := range out.Violated() {
		props = append(props, c.Property)
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
	return &Failure{Scenario: rec.scenario, Seed: rec.seed, Properties: props, Detail: detail,
		TraceHash: hash, Replay: ReplayCommand(rec.scenario, rec.seed, r.cfg.Impl, props)}
}

// ReplayCommand returns the simrun command that reproduces a failing run:
// `simrun replay` for a determinism failure (it runs the seed twice and
// compares), `simrun run` otherwise. The format matches
// scenarios.Outcome.ReplayCommand.
func ReplayCommand(scenario string, seed uint64, impl lease.Impl, props []string) string {
	verb := "run"
	for _, p := range props {
		if p == PropertyDeterminism {
			verb = "replay"
		}
	}
	cmd := fmt.Sprintf("simrun %s --scenario %s --seed %d", verb, scenario, seed)
	if impl.Name != "" && impl.Name != lease.Correct().Name {
		cmd += " --impl " + impl.Name
	}
	return cmd
}
