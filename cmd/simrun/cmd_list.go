package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/scenarios"
)

// catalogue is the JSON object of `simrun list --json`.
type catalogue struct {
	SchemaVersion int               `json:"schema_version"`
	Scenarios     []entry           `json:"scenarios"`
	Impls         []implEntry       `json:"impls"`
	Specs         []entry           `json:"specs"`
	Failpoints    []entry           `json:"failpoints"`
	Behaviours    []entry           `json:"behaviours"`
	FaultKinds    []faults.KindInfo `json:"fault_kinds"`
}

// entry is a name with its one-line description.
type entry struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// implEntry is an implementation: its name and doc, the specification P3
// judges it by, and the capabilities it does not declare (the scenarios
// that need them are skipped for it).
type implEntry struct {
	entry
	Spec  string   `json:"spec"`
	Lacks []string `json:"lacks"`
}

// listSchemaVersion is the version of list's JSON object.
const listSchemaVersion = 2

func newCatalogue() catalogue {
	c := catalogue{SchemaVersion: listSchemaVersion, FaultKinds: faults.Kinds()}
	for _, sp := range model.Specs() {
		c.Specs = append(c.Specs, entry{sp.Name, sp.Doc})
	}
	for _, b := range checker.Behaviours() {
		c.Behaviours = append(c.Behaviours, entry{b.Name, b.Doc})
	}
	for _, sc := range scenarios.Catalog() {
		c.Scenarios = append(c.Scenarios, entry{sc.Name, sc.Doc})
	}
	for _, impl := range implementations() {
		c.Impls = append(c.Impls, implEntry{entry: entry{impl.Name, impl.Doc}, Spec: specOf(impl), Lacks: lacks(impl)})
	}
	c.Failpoints = []entry{
		{lease.FailpointBeforeWrite, "leasesim's holder: after deciding to write under its token, before the write leaves"},
		{lease.FailpointBeforeCheckpoint, "leasesim's holder: after deciding to checkpoint, before the checkpoint leaves"},
		{scenarios.TriggerOnReply, "any node, any implementation: a reply arrives, before the node handles it"},
		{scenarios.TriggerAfterRequest, "any node, any implementation: right after it sent a request to the lease store"},
		{scenarios.TriggerAfterWrite, "any node, any implementation: right after it sent a write to the fenced store"},
	}
	return c
}

// specOf is the specification P3 judges impl by.
func specOf(impl lease.Impl) string {
	if impl.Spec != "" {
		return impl.Spec
	}
	return leasewire.Spec(impl.DriftSplit)
}

// lacks lists the optional capabilities impl does not declare.
func lacks(impl lease.Impl) []string {
	c := impl.Capabilities
	out := []string{}
	for _, f := range []struct {
		name string
		has  bool
	}{{"checkpoints", c.Checkpoints}, {"registrations", c.Registrations}, {"side effects", c.SideEffects}, {"reads", c.Reads}} {
		if !f.has {
			out = append(out, f.name)
		}
	}
	for _, fp := range lease.AllCapabilities().Failpoints {
		if !slices.Contains(c.Failpoints, fp) {
			out = append(out, "failpoint "+fp)
		}
	}
	return out
}

func (a *app) listCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "list the scenarios, the implementations (correct and every mutant) and the fault kinds",
		Long: "list prints the scenarios, the implementations (correct, every mutant and the zoo's, with\n" +
			"the specification each is judged by), the specifications, failpoints, rare behaviours and\n" +
			"fault kinds, or with --json one object.\n" +
			"Exit 0 when it listed; 2 for bad input; 3 for an internal error.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := newCatalogue()
			var err error
			if asJSON {
				err = writeJSON(a.stdout, c)
			} else {
				err = c.write(a)
			}
			if err != nil {
				return internalErr(err)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalogue as one JSON object")
	return cmd
}

// write prints the catalogue as aligned tables.
func (c catalogue) write(a *app) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	writeSection(tw, "Scenarios (--scenario)", c.Scenarios)
	impls := make([]entry, len(c.Impls))
	for i, im := range c.Impls {
		impls[i] = im.entry
		impls[i].Doc += " [spec " + im.Spec
		if len(im.Lacks) > 0 {
			impls[i].Doc += "; lacks " + strings.Join(im.Lacks, ", ")
		}
		impls[i].Doc += "]"
	}
	writeSection(tw, "\nImplementations (--impl)", impls)
	writeSection(tw, "\nSpecifications (P3; an implementation declares its own)", c.Specs)
	writeSection(tw, "\nFailpoints (schedule \"failpoint\"; a nemesis draws those the implementation reaches)", c.Failpoints)
	writeSection(tw, "\nRare behaviours (counted per run; a sweep flags those no run reached)", c.Behaviours)
	fmt.Fprintln(tw, "\nFault kinds (schedule \"kind\")")
	for _, k := range c.FaultKinds {
		fields := ""
		if len(k.Fields) > 0 {
			fields = " (" + strings.Join(k.Fields, ", ") + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\n", k.Name, k.Description, fields)
	}
	return tw.Flush()
}

// writeSection prints one table of the catalogue: a title, then a name and
// its one-line doc per row.
func writeSection(tw io.Writer, title string, entries []entry) {
	fmt.Fprintln(tw, title)
	for _, e := range entries {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Name, e.Doc)
	}
}
