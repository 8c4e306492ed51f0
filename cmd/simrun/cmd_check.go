package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/internal/repro"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/reports"
)

type checkFlags struct {
	spec, out string
	format    string
	json      bool
	unknown   unknownPolicy
}

func (a *app) checkCommand() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check FILE [--spec NAME] [--json] [--out DIR] [--unknown fail|pass]",
		Short: "judge a recorded history file (JSON lines) with the same checkers as run",
		Long: "check reads a history file (the JSON-lines schema of package history: a header, events, an end\n" +
			"record; FILE - reads standard input), strictly: bad input exits 2 naming the file, the line and\n" +
			"the field. It runs the same\n" +
			"checkers as simrun run on it and prints the same report, or with --json the run object. The\n" +
			"lease store's specification is the header's spec, or --spec: " + strings.Join(leasewire.Specs, " or ") + "\n" +
			"for leasesim's protocol, or another that simrun list names (expiring-key, cas-record) for an\n" +
			"implementation with its own.\n" +
			"--out writes run.json, history.jsonl, report.html and trace.perfetto.json (and\n" +
			"linearizability.html when P3 fails).\n\n" + exitRuleHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return a.checkFile(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.spec, "spec", "", "the lease store's specification, over the header's: "+strings.Join(leasewire.Specs, ", ")+
		", or another that simrun list names")
	fl.StringVar(&f.out, "out", "", "write the report files into this directory")
	fl.BoolVar(&f.json, "json", false, "print the run as one JSON object")
	fl.StringVar(&f.format, "format", formatLeasesim, "the file's format: "+formatLeasesim+" (a history file), or "+
		formatJepsenLog+" (a Jepsen text log of a compare-and-set register, as porcupine's test data has it), or "+
		formatJepsenEDN+" (a Jepsen history.edn of a register, compare-and-set register or mutex); the Jepsen formats are judged by P3 only")
	addUnknownFlag(fl, &f.unknown)
	return cmd
}

// checkFile judges the history in file.
func (a *app) checkFile(cmd *cobra.Command, file string, f checkFlags) error {
	switch f.format {
	case formatLeasesim:
	case formatJepsenLog, formatJepsenEDN:
		return checkJepsen(cmd, file, f.format)
	default:
		return usagef(cmd, "--format: %q is not a format (want %s, %s or %s)", f.format, formatLeasesim, formatJepsenLog,
			formatJepsenEDN)
	}
	h, meta, err := readHistoryFile(file, f.spec)
	if err != nil {
		return usageErr(cmd, err)
	}
	if err := applySpec(h, file, f.spec); err != nil {
		return usageErr(cmd, err)
	}
	opts := checker.Options{Visualize: f.out != ""}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
	}
	start := time.Now()
	run, data := judgeFile(h, meta, file, opts)
	args := []string{"check", file}
	if f.spec != "" {
		args = append(args, "--spec", f.spec)
	}
	if file != stdinName { // standard input cannot be read again
		run.Replay = repro.Simrun(args...)
	}
	run.WallSeconds = time.Since(start).Seconds()
	if err := a.showRun(run, data, f.json, f.out); err != nil {
		return err
	}
	return runVerdict(run, f.unknown)
}

// applySpec sets the specification h is judged by: spec (the --spec flag)
// or, when it is "", the header's. Under leasesim's lease-store spec it
// sets the grantor's hold from the spec's expiry policy. An error is bad
// input and names the flag.
func applySpec(h *history.History, file, spec string) error {
	if spec == "" {
		spec = h.Spec
	}
	switch {
	case spec == "" && leaseStoreOps(h) > 0:
		return fmt.Errorf("--spec: %s names no specification in its header: give --spec %s", file,
			strings.Join(leasewire.Specs, " or --spec "))
	case spec == "":
		// No lease-store operation to judge by a spec (a goroutine-host lock
		// whose server records none): P3 judges the fenced store alone, as
		// the run that recorded the history did.
	case strings.HasPrefix(spec, leasewire.SpecLeaseStore): // leasesim's protocol: the spec names its expiry policy
		split, err := leasewire.Split(spec)
		if err != nil {
			return fmt.Errorf("--spec: %w", err)
		}
		h.Lease.HoldPPB = leasewire.HoldPPB(split, h.Lease.RhoPPB)
	default:
		if _, err := model.SpecFor(spec, h.Lease); err != nil {
			return fmt.Errorf("--spec %s: %w (the specifications: simrun list)", spec, err)
		}
	}
	h.Spec = spec
	return nil
}

// leaseStoreOps counts the history's operations on its lease store.
func leaseStoreOps(h *history.History) int {
	n := 0
	for _, o := range h.AllOps() {
		if o.Server == h.Grantor {
			n++
		}
	}
	return n
}

// judgeFile judges a history read from file and returns its run object and
// report data, as every host's run draws its reports: from the history
// alone. The run is named by the header's scenario (the file's name when it
// has none) and producer; a file has no trace hash of the kernel's and no
// fault plan.
func judgeFile(h *history.History, meta leasewire.Meta, file string, opts checker.Options) (reports.Run, reports.RunData) {
	data := reports.RunData{History: h, Meta: meta}
	run := reports.NewRun(h, meta, checker.Judge(h, opts)) // Check, Measure and Cover, sharing what they compute alike
	if run.Scenario == "" {
		run.Scenario = file
	}
	run.Impl, run.TraceHash, run.Source = meta.Producer, "none", file
	return run, data
}

// readHistoryFile reads a history file through leasesim's protocol
// adapter, as spec (the --spec flag; "" for the header's). Every error is
// bad input and names the file.
func readHistoryFile(file, spec string) (*history.History, leasewire.Meta, error) {
	in, closeIn, err := openInput(file)
	if err != nil {
		return nil, leasewire.Meta{}, err
	}
	defer closeIn()
	return leasewire.ReadHistoryAs(bufio.NewReader(in), inputName(file), spec)
}
