package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/scenarios"
)

// catalogue is the JSON object of `simrun list --json`.
type catalogue struct {
	Scenarios  []entry           `json:"scenarios"`
	Impls      []entry           `json:"impls"`
	FaultKinds []faults.KindInfo `json:"fault_kinds"`
}

// entry is a name with its one-line description.
type entry struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

func newCatalogue() catalogue {
	c := catalogue{FaultKinds: faults.Kinds()}
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

// write prints the catalogue as three aligned tables.
func (c catalogue) write(a *app) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Scenarios (--scenario)")
	for _, e := range c.Scenarios {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Name, e.Doc)
	}
	fmt.Fprintln(tw, "\nImplementations (--impl)")
	for _, e := range c.Impls {
		fmt.Fprintf(tw, "  %s\t%s\n", e.Name, e.Doc)
	}
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
