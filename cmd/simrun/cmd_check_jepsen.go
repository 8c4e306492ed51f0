package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/anishathalye/porcupine"
	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history/jepsen"
	"github.com/leasesim/leasesim/model"
)

// The formats simrun check reads.
const (
	formatLeasesim  = "leasesim"
	formatJepsenLog = "jepsen-log"
)

// checkJepsenLog judges a Jepsen text log of a compare-and-set register
// against model.CASRegister: P3 only (a register history has no leases,
// beliefs or tokens), OK or VIOLATED with the longest linearizable prefix
// and what cannot follow it. Bad input exits 2 naming the file and line.
func checkJepsenLog(cmd *cobra.Command, file string) error {
	fh, err := os.Open(file)
	if err != nil {
		return usageErr(cmd, err)
	}
	defer fh.Close()
	ops, err := jepsen.ReadLog(bufio.NewReader(fh), file)
	if err != nil {
		return usageErr(cmd, err)
	}
	if len(ops) == 0 {
		return usagef(cmd, "%s: no operations: nothing to judge", file)
	}
	spec := model.CASRegisterSpec()
	res, info := porcupine.CheckOperationsVerbose(spec.Model, ops, 0)
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "File       %s (%s, spec %s, %d operations)\n", file, formatJepsenLog, spec.Name, len(ops))
	fmt.Fprintln(w, "P1, P2, P4-P6        NOT APPLICABLE: a register history has no leases, beliefs or tokens")
	if res == porcupine.Ok {
		fmt.Fprintf(w, "P3 linearizability   OK: %d operations of a compare-and-set register are linearizable\n", len(ops))
		return nil
	}
	fmt.Fprintf(w, "P3 linearizability   VIOLATED: no order of the %d operations is a legal register history\n", len(ops))
	if p, ok := checker.LongestPrefix(spec, ops, info); ok {
		fmt.Fprint(w, p.String())
	}
	return errViolated
}
