package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/scenarios"
)

// eventScenarioList is list --impl's JSON object for an event-host
// implementation: the catalogue scenarios it runs, and those it cannot
// with the reason.
type eventScenarioList struct {
	SchemaVersion int            `json:"schema_version"`
	Host          string         `json:"host"`
	Impl          string         `json:"impl"`
	Scenarios     []entry        `json:"scenarios"`
	Skipped       []skippedEntry `json:"skipped"`
}

// skippedEntry is a catalogue scenario an implementation cannot run.
type skippedEntry struct {
	entry
	Reason string `json:"reason"`
}

// listEventScenarios prints the catalogue scenarios impl runs and those
// it skips, as a sweep --scenario all would.
func listEventScenarios(w io.Writer, impl lease.Impl, asJSON bool) error {
	res := eventScenarioList{SchemaVersion: listSchemaVersion, Host: "event", Impl: impl.Name,
		Scenarios: []entry{}, Skipped: []skippedEntry{}}
	for _, sc := range scenarios.Catalog() {
		var unsupported *scenarios.UnsupportedError
		switch err := scenarios.Supports(sc, impl); {
		case err == nil:
			res.Scenarios = append(res.Scenarios, entry{sc.Name, sc.Doc})
		case errors.As(err, &unsupported):
			res.Skipped = append(res.Skipped, skippedEntry{entry{sc.Name, sc.Doc}, unsupported.Reason()})
		default:
			return internalErr(err)
		}
	}
	if asJSON {
		if err := writeJSON(w, res); err != nil {
			return internalErr(err)
		}
		return nil
	}
	fmt.Fprintf(w, "Scenarios of %s (event host; simrun run --impl %s --scenario NAME)\n", impl.Name, impl.Name)
	for _, e := range res.Scenarios {
		fmt.Fprintf(w, "  %s  %s\n", e.Name, e.Doc)
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(w, "Skipped (%s cannot run them)\n", impl.Name)
		for _, e := range res.Skipped {
			fmt.Fprintf(w, "  %s  %s\n", e.Name, e.Reason)
		}
	}
	return nil
}
