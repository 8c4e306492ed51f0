package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/tune"
)

// simrun tune over a goroutine-host implementation's knobs: the grid is
// the --knob axes, the runs go through the module's serving workers as a
// sweep's do (goSweepHost, one pool for every configuration), and
// tune.RunKnobs decides as tune.Run does.

// goTuneOnly are the flags only a goroutine-host tuning run takes;
// eventTuneOnly those only a workload's takes.
var (
	goTuneOnly    = []string{"scenario", "knob", "max-false-suspicions", "max-detection"}
	eventTuneOnly = []string{"workload", "ttl", "renew", "checkpoint", "election-timeout", "rho", "margin",
		"max-store-writes", "max-reexecuted"}
)

// tuneTarget returns the goroutine-host implementation --impl names, or
// nil for the event host, whose tuning run must not be given the
// goroutine host's flags.
func (a *app) tuneTarget(cmd *cobra.Command, f tuneFlags) (*goImpl, error) {
	h := &goHost{a: a, zooDir: f.zooDir}
	if !isEventImpl(f.impl) {
		return h.lookup(cmd, f.impl)
	}
	if err := refuse(cmd, "they tune a goroutine-host implementation's knobs; --impl names one", goTuneOnly...); err != nil {
		return nil, err
	}
	return nil, nil
}

// tuneKnobs runs simrun tune over g's knobs.
func (a *app) tuneKnobs(cmd *cobra.Command, f tuneFlags, g *goImpl) error {
	for _, name := range eventTuneOnly {
		if cmd.Flags().Changed(name) {
			return usagef(cmd, "--%s: a workload's lease setting; %s is tuned over its knobs (--scenario, --knob)", name, g.Name)
		}
	}
	h := &goHost{a: a, zooDir: f.zooDir}
	cfg, err := a.knobTuneConfig(cmd, f, h, g)
	if err != nil {
		return err
	}
	bin, err := h.start(cmd, g)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	parallel := cfg.Parallel
	if parallel == 0 {
		parallel = runtime.NumCPU()
	}
	pool := newWorkerPool(ctx, g, bin, parallel)
	defer pool.close()
	cfg.Host = func(values gohost.KnobValues) (sweep.Host, string, error) {
		if err := h.checkKnobs(cmd, g, values); err != nil {
			if errors.Is(err, gohost.ErrBadKnob) {
				return nil, err.Error(), nil
			}
			return nil, "", err
		}
		return &goSweepHost{h: h, g: g, bin: bin, pool: pool, knobs: values}, "", nil
	}
	progress := newLabelledProgress(a.stderr, "tune", 0)
	res, err := tune.RunKnobs(ctx, cfg, progress.updateTune)
	progress.finish()
	if err != nil {
		var exit *exitError
		switch {
		case errors.As(err, &exit):
			return exit
		case errors.Is(err, tune.ErrInvalid):
			return usageErr(cmd, err)
		}
		return classify(cmd, err)
	}
	return a.showTune(res, f.json, f.out)
}

// knobTuneConfig reads the flags of a goroutine-host tuning run; every
// error names its flag, and a knob's its knob.
func (a *app) knobTuneConfig(cmd *cobra.Command, f tuneFlags, h *goHost, g *goImpl) (tune.KnobConfig, error) {
	cfg := tune.KnobConfig{Impl: g.Name, Target: h.targetArgs(g), Parallel: f.parallel}
	if f.zooDir != "" {
		cfg.Target = append(cfg.Target, "--zoo-dir", f.zooDir)
	}
	if f.scenario == "" {
		return cfg, usagef(cmd, "--scenario: name the stories every configuration runs, separated by commas, "+
			"or all (simrun list --impl %s)", g.Name)
	}
	var err error
	if cfg.Scenarios, err = h.sweepScenarios(cmd, g, f.scenario); err != nil {
		return cfg, err
	}
	infos, err := h.scenarioInfos(cmd, g)
	if err != nil {
		return cfg, err
	}
	if cfg.Axes, err = knobAxes(cmd, f.knobs, infos[0].Knobs, g.Name); err != nil {
		return cfg, err
	}
	if cfg.Seeds, err = a.parseSeeds(cmd, "--seeds", f.seeds); err != nil {
		return cfg, err
	}
	if cmd.Flags().Changed("objective") { // else chosen by what the runs measured (tune.KnobConfig)
		if cfg.Objective, err = tune.ParseObjective(f.objective); err != nil {
			return cfg, usagef(cmd, "--objective: %w", err)
		}
	}
	if cfg.Constraints, err = f.constraints(cmd); err != nil {
		return cfg, err
	}
	if cfg.Constraints, err = f.detectorConstraints(cmd, cfg.Constraints); err != nil {
		return cfg, err
	}
	if f.parallel < 0 {
		return cfg, usagef(cmd, "--parallel: must not be negative, got %d", f.parallel)
	}
	return cfg, nil
}

// knobAxes reads the --knob axes against the declared knobs.
func knobAxes(cmd *cobra.Command, flags []string, declared []gohost.Knob, impl string) ([]tune.KnobAxis, error) {
	if len(flags) == 0 {
		return nil, usagef(cmd, "--knob: missing: give at least one axis, NAME=V1,V2 (%s's knobs: %s)", impl,
			gohost.KnobNames(declared))
	}
	var axes []tune.KnobAxis
	for _, flag := range flags {
		name, values, err := gohost.ParseKnob(flag)
		if err != nil {
			return nil, usagef(cmd, "--knob: %w", err)
		}
		if slices.ContainsFunc(axes, func(a tune.KnobAxis) bool { return a.Name == name }) {
			return nil, usagef(cmd, "--knob %s: knob %s is given twice: put its values in one list", flag, name)
		}
		for _, v := range values {
			if err := gohost.CheckKnobs(declared, gohost.KnobValues{name: v}); err != nil {
				return nil, usagef(cmd, "--knob %s: %w", flag, err)
			}
		}
		axes = append(axes, tune.KnobAxis{Name: name, Values: values})
	}
	return axes, nil
}

// detectorConstraints reads --max-false-suspicions and --max-detection.
func (f tuneFlags) detectorConstraints(cmd *cobra.Command, c tune.Constraints) (tune.Constraints, error) {
	if f.maxFalse != "" {
		n, err := strconv.Atoi(f.maxFalse)
		if err != nil || n < 0 {
			return c, usagef(cmd, "--max-false-suspicions: %q: want a count, 0 or more", f.maxFalse)
		}
		c.MaxFalseSuspicions = &n
	}
	if f.maxDetection != "" {
		d, err := time.ParseDuration(f.maxDetection)
		if err != nil || d < 0 {
			return c, usagef(cmd, "--max-detection: %q: want a non-negative duration such as 70s", f.maxDetection)
		}
		c.MaxDetection = &d
	}
	return c, nil
}

// writeKnobTuneText prints a goroutine-host tuning run for a person: a
// row per configuration, its replay line, its failing runs' lines, and
// the recommendation.
func writeKnobTuneText(w io.Writer, res tune.Result) error {
	fmt.Fprintf(w, "tune %s  scenario %s  seeds %s  (goroutine host)\n\n", res.Impl, res.Scenario, res.Seeds)
	fmt.Fprintf(w, "   %-44s %4s  %-22s %-16s %9s %10s %9s %9s %9s %10s\n", "config", "runs", "violated", "unknown",
		"false-sus", "suspected", "detect50", "detectmax", "fail-p99", "p1-margin")
	for _, c := range res.Configs {
		mark := "  "
		switch {
		case c.Recommended:
			mark = "→ "
		case c.Pareto:
			mark = "★ "
		}
		if !c.Valid {
			fmt.Fprintf(w, " %s%-44s invalid: %s\n", mark, c.Label, c.InvalidReason)
			continue
		}
		m := c.Metrics
		margin := "-"
		if m.P1MarginMin != nil {
			margin = seconds(*m.P1MarginMin)
		}
		fmt.Fprintf(w, " %s%-44s %4d  %-22s %-16s %9d %10s %9s %9s %9s %10s\n", mark, c.Label, c.Runs,
			countsCell(c.Violated), countsCell(c.Unknown), m.FalseSuspicions, seconds(m.FalseSuspicionTime),
			sampled(m.DetectionP50, m.Detections), sampled(m.DetectionMax, m.Detections),
			sampled(m.FailoverP99, m.Failovers), margin)
	}
	fmt.Fprintln(w)
	for _, c := range res.Configs {
		if !c.Valid {
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", c.Label, c.Replay)
		for _, v := range c.Violations {
			fmt.Fprintf(w, "  seed %d %s: %s\n", v.Seed, strings.Join(v.Properties, ","), v.Replay)
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", res.Explanation)
	return err
}

// countsCell writes per-property counts: "P7×3 P8×1", or "-".
func countsCell(counts map[string]int) string {
	props := make([]string, 0, len(counts))
	for p, n := range counts {
		if n > 0 {
			props = append(props, p)
		}
	}
	if len(props) == 0 {
		return "-"
	}
	slices.Sort(props)
	for i, p := range props {
		props[i] = p + "×" + strconv.Itoa(counts[p])
	}
	return strings.Join(props, " ")
}

// seconds writes a duration in seconds: "12.3s".
func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 1, 64) + "s" }

// sampled writes d, or "-" when no sample measured it.
func sampled(d time.Duration, samples int) string {
	if samples == 0 {
		return "-"
	}
	return seconds(d)
}
