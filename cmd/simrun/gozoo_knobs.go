package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/gohost"
)

// Knobs of goroutine-host implementations (gohost.Knob) on run, sweep,
// replay and shrink: --knob NAME=VALUE, repeated, checked against the
// knobs the implementation's worker lists, and by the worker itself (a
// combination it refuses), then carried by every job and repeated by
// every printed line. tune takes --knob NAME=V1,V2 as a grid axis.

const knobUsage = "goroutine host: set a knob of the implementation, NAME=VALUE (repeat for more; " +
	"simrun list --impl NAME lists them)"

// addKnobFlag adds --knob to c.
func addKnobFlag(c *cobra.Command) { c.Flags().StringArray("knob", nil, knobUsage) }

// knobFlags are the --knob flags as given.
func knobFlags(cmd *cobra.Command) []string {
	vs, err := cmd.Flags().GetStringArray("knob")
	if err != nil {
		return nil // the command has no --knob
	}
	return vs
}

// readKnobs reads --knob (one value a knob) for g and checks the values
// against its knobs and with its worker: any error is bad input naming
// the flag and the knob.
func (h *goHost) readKnobs(cmd *cobra.Command, g *goImpl) (gohost.KnobValues, error) {
	flags := knobFlags(cmd)
	if len(flags) == 0 {
		return nil, nil
	}
	return h.knobValues(cmd, g, flags, "--knob")
}

// summaryKnobs reads the knob settings a sweep summary recorded, for
// --rerun-failures without --knob: the failing runs re-run as they ran.
func (h *goHost) summaryKnobs(cmd *cobra.Command, g *goImpl, settings []string, file string) (gohost.KnobValues, error) {
	return h.knobValues(cmd, g, settings, "--rerun-failures: "+file+": knobs")
}

// knobValues reads settings (NAME=VALUE, one value a knob, each knob
// once) for g and checks them against its knobs and with its worker; a
// bad one is bad input, its message led by where the settings came from.
func (h *goHost) knobValues(cmd *cobra.Command, g *goImpl, settings []string, where string) (gohost.KnobValues, error) {
	values := gohost.KnobValues{}
	for _, s := range settings {
		name, vs, err := gohost.ParseKnob(s)
		switch {
		case err != nil:
			return nil, usagef(cmd, "%s: %w", where, err)
		case len(vs) != 1:
			return nil, usagef(cmd, "%s %s: one value here (a list of values is simrun tune's grid)", where, s)
		}
		if _, twice := values[name]; twice {
			return nil, usagef(cmd, "%s %s: knob %s is set twice", where, s, name)
		}
		values[name] = vs[0]
	}
	if err := h.checkKnobs(cmd, g, values); err != nil {
		if errors.Is(err, gohost.ErrBadKnob) {
			return nil, usagef(cmd, "%s: %w", where, err)
		}
		return nil, err
	}
	return values, nil
}

// checkKnobs checks values against g's declared knobs, then asks g's
// worker to build its scenarios with them (a list job), which refuses a
// combination the implementation does not take. The error matches
// gohost.ErrBadKnob for bad values; any other is exit-coded already.
func (h *goHost) checkKnobs(cmd *cobra.Command, g *goImpl, values gohost.KnobValues) error {
	infos, err := h.scenarioInfos(cmd, g)
	if err != nil {
		return err
	}
	if len(infos[0].Knobs) == 0 {
		return fmt.Errorf("%w: %s declares no knobs", gohost.ErrBadKnob, g.Name)
	}
	if err := gohost.CheckKnobs(infos[0].Knobs, values); err != nil {
		return err
	}
	bin, err := h.start(cmd, g)
	if err != nil {
		return err
	}
	wr, err := g.runWorker(cmd.Context(), bin, gohost.Job{Kind: gohost.JobList, Knobs: values}, false)
	if err != nil {
		return internalErr(err)
	}
	for _, r := range wr.records {
		if r.Error != nil && r.Error.Kind == gohost.ErrKindBadKnob {
			// The message names the knob after gohost.ErrBadKnob's words.
			return fmt.Errorf("%w%s", gohost.ErrBadKnob, strings.TrimPrefix(r.Error.Message, gohost.ErrBadKnob.Error()))
		}
		if r.Error != nil {
			return internalErr(fmt.Errorf("%s: %s", g.Name, r.Error.Message))
		}
	}
	return nil
}

// refuseKnobs is the event host's answer to --knob.
func refuseKnobs(cmd *cobra.Command) error {
	if len(knobFlags(cmd)) > 0 {
		return usagef(cmd, "--knob: only for goroutine-host implementations, which declare knobs "+
			"(the event host's lease settings are --ttl, --renew and the like on a --workload run)")
	}
	return nil
}

// writeKnobs lists knobs for a person, as list --impl prints them.
func writeKnobs(w io.Writer, knobs []gohost.Knob) {
	if len(knobs) == 0 {
		return
	}
	fmt.Fprintln(w, "Knobs (--knob NAME=VALUE on run, sweep, replay and shrink; --knob NAME=V1,V2 on tune)")
	for _, k := range knobs {
		fmt.Fprintf(w, "  %s  default %v, %v to %v: %s\n", k.Name, k.Default, k.Min, k.Max, k.Doc)
	}
}
