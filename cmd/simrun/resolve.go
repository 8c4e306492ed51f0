package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/mutants"
	"github.com/leasesim/leasesim/scenarios"
	"github.com/leasesim/leasesim/zoo/etcdraft"
	"github.com/leasesim/leasesim/zoo/k8slease"
	"github.com/leasesim/leasesim/zoo/redislock"
)

// allScenarios is the --scenario value that selects the whole catalogue.
const allScenarios = "all"

// lookupScenario resolves --scenario; the error lists the known names.
func lookupScenario(name string) (scenarios.Scenario, error) {
	sc, err := scenarios.Lookup(name)
	if err != nil {
		return sc, fmt.Errorf("--scenario: %w", err)
	}
	return sc, nil
}

// lookupScenarios resolves a sweep's --scenario: "all", one name, or
// several separated by commas.
func lookupScenarios(value string) ([]scenarios.Scenario, error) {
	if value == allScenarios {
		return scenarios.Catalog(), nil
	}
	var out []scenarios.Scenario
	for _, name := range strings.Split(value, ",") {
		sc, err := scenarios.Lookup(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("--scenario: %w, or %q", err, allScenarios)
		}
		out = append(out, sc)
	}
	return out, nil
}

// implementations returns every implementation --impl accepts: the correct
// one, every mutant, then the zoo's implementations written from scratch
// (their variants and mutants after each).
func implementations() []lease.Impl {
	impls := append([]lease.Impl{lease.Correct()}, mutants.All()...)
	impls = append(impls,
		redislock.Impl(),
		redislock.ImplWith(redislock.Options{Persistence: redislock.AppendFsyncEverySec}),
		redislock.ImplWith(redislock.Options{Persistence: redislock.NoPersistence}),
		redislock.Mutant(),
		redislock.SessionTokenMutant(),
		k8slease.Impl(),
		k8slease.Unfenced(),
		k8slease.Mutant(),
	)
	return append(impls, etcdraft.All()...)
}

// lookupImpl resolves --impl: "correct", "mutant/NAME" or "zoo/NAME". The
// error lists the known names.
func lookupImpl(name string) (lease.Impl, error) {
	var names []string
	for _, impl := range implementations() {
		if impl.Name == name {
			return impl, nil
		}
		names = append(names, impl.Name)
	}
	return lease.Impl{}, fmt.Errorf("--impl: unknown implementation %q (known: %s)", name, strings.Join(names, ", "))
}

// readSchedule reads, parses and validates the schedule file at path
// against a scenario's nodes. Errors name the file and, from package
// faults, the line and column or the event and field.
func readSchedule(path string, nodes, failpoints []string) (faults.Schedule, error) {
	f, closeIn, err := openInput(path)
	if err != nil {
		return faults.Schedule{}, fmt.Errorf("--schedule: %w", err)
	}
	defer closeIn()
	s, err := faults.Parse(f)
	if err != nil {
		return s, fmt.Errorf("--schedule %s: %w", path, err)
	}
	if err := s.Validate(nodes); err != nil {
		return s, fmt.Errorf("--schedule %s: %w (nodes: %s)", path, err, strings.Join(nodes, ", "))
	}
	if err := s.CheckFailpoints(failpoints); err != nil {
		return s, fmt.Errorf("--schedule %s: %w", path, err)
	}
	return s, nil
}

// knownFailpoints are the failpoint names a schedule may arm against impl:
// those leasesim's own code marks, the event triggers the wiring reaches
// for every implementation, and those impl declares.
func knownFailpoints(impl lease.Impl) []string {
	known := append(slices.Clone(lease.AllCapabilities().Failpoints), scenarios.Triggers()...)
	for _, fp := range impl.Capabilities.Failpoints {
		if !slices.Contains(known, fp) {
			known = append(known, fp)
		}
	}
	return known
}
