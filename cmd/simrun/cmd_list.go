package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/model"
	"github.com/leasesim/leasesim/scenarios"
)

// catalogue is the JSON object of `simrun list --json`.
type catalogue struct {
	SchemaVersion int               `json:"schema_version"`
	Scenarios     []entry           `json:"scenarios"`
	Impls         []entry           `json:"impls"`
	Specs         []entry           `json:"specs"`
	Behaviours    []entry           `json:"behaviours"`
	FaultKinds    []faults.KindInfo `json:"fault_kinds"`
}

// entry is a name with its one-line description.
type entry struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// listSchemaVersion is the version of list's JSON object.
const listSchemaVersion = 1

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
		c.Impls = append(c.Impls, entry{impl.Name, impl.Doc})
	}
	return c
}

func (a *app) listCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list [--json]",
		Short: "list the scenarios, the implementations (correct and every mutant) and the fault kinds",
		Args:  cobra.NoArgs,
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
	writeSection(tw, "\nImplementations (--impl)", c.Impls)
	writeSection(tw, "\nSpecifications (P3; an implementation declares its own)", c.Specs)
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
