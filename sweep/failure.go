package sweep

import (
	"slices"
	"strconv"

	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/lease"
)

// The pseudo-properties under which a run fails besides P1..P6.
const (
	PropertyLimit       = "limit"       // the run stopped early at a limit
	PropertyDeterminism = "determinism" // two runs of one seed gave different trace hashes
	PropertyError       = "error"       // the run could not start (for example, the implementation failed to boot)
	PropertyPanic       = "panic"       // the implementation panicked: a broken invariant
	// PropertyHost: the host found a fault outside the protocol (a
	// goroutine that outlived its node, a node function that failed).
	PropertyHost = "host"
)

// Failure is one failing run, and the one record of a failing run that
// leasesim's sweeps, merges and tuning keep: what ran (scenario, seed,
// implementation), what failed, and the line that reproduces it.
type Failure struct {
	Scenario   string   `json:"scenario"`
	Seed       uint64   `json:"seed"`
	Impl       string   `json:"impl"`
	Properties []string `json:"properties"` // violated properties, or "limit" / "determinism" / "error" / "panic"
	Detail     string   `json:"detail"`     // the first violation's summary
	TraceHash  string   `json:"trace_hash"`
	// Replay is the simrun line that reproduces the run, as the CLI was
	// invoked (see repro.Simrun).
	Replay string `json:"replay"`
	// Dir is the run's report directory, relative to the sweep's --out
	// directory, when the sweep kept one.
	Dir string `json:"dir,omitempty"`
}

// ReplayCommand returns the simrun line that reproduces a failing run:
// `simrun replay` for a determinism failure (it runs the seed twice and
// compares), `simrun run` otherwise, built by repro.Simrun so that it runs
// as printed.
func ReplayCommand(scenario string, seed uint64, impl string, props []string) string {
	verb := "run"
	if slices.Contains(props, PropertyDeterminism) {
		verb = "replay"
	}
	args := []string{verb, "--scenario", scenario, "--seed", strconv.FormatUint(seed, 10)}
	if impl != "" && impl != lease.Correct().Name {
		args = append(args, "--impl", impl)
	}
	return repro.Simrun(args...)
}
