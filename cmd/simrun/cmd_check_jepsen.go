package main

import (
	"bufio"
	"fmt"

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
	formatJepsenEDN = "jepsen-edn"
)

// checkJepsen judges a Jepsen history (format jepsen-log: a text log of a
// compare-and-set register; jepsen-edn: a history.edn of a register, a
// compare-and-set register or a mutex) against the specification its
// operations name: P3 only (such a history has no leases, beliefs or
// tokens), OK or VIOLATED with the longest linearizable prefix and what
// cannot follow it. Bad input exits 2 naming the file and line.
func checkJepsen(cmd *cobra.Command, file, format string) error {
	fh, closeIn, err := openInput(file)
	if err != nil {
		return usageErr(cmd, err)
	}
	defer closeIn()
	var ops []porcupine.Operation
	spec := model.CASRegisterSpec()
	if format == formatJepsenEDN {
		ops, spec, err = jepsen.ReadEDN(bufio.NewReader(fh), inputName(file))
	} else {
		ops, err = jepsen.ReadLog(bufio.NewReader(fh), inputName(file))
	}
	if err != nil {
		return usageErr(cmd, err)
	}
	if len(ops) == 0 {
		return usagef(cmd, "%s: no operations: nothing to judge", file)
	}
	res, info := porcupine.CheckOperationsVerbose(spec.Model, ops, 0)
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "File       %s (%s, spec %s, %d operations)\n", file, format, spec.Name, len(ops))
	fmt.Fprintf(w, "P1, P2, P4-P6        NOT APPLICABLE: a %s history has no leases, beliefs or tokens\n", spec.Name)
	if res == porcupine.Ok {
		fmt.Fprintf(w, "P3 linearizability   OK: %d operations of a %s are linearizable\n", len(ops), spec.Name)
		return nil
	}
	fmt.Fprintf(w, "P3 linearizability   VIOLATED: no order of the %d operations is a legal register history\n", len(ops))
	if p, ok := checker.LongestPrefix(spec, ops, info); ok {
		fmt.Fprint(w, p.String())
	}
	return errViolated
}
