package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/scenarios"
)

// completeScenarios completes --scenario with the catalogue's names.
func completeScenarios(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	return withPrefix(scenarios.Names(), prefix), cobra.ShellCompDirectiveNoFileComp
}

// completeSweepScenarios completes a sweep's --scenario: "all" or names,
// separated by commas; it completes the last name of the list.
func completeSweepScenarios(_ *cobra.Command, _ []string, value string) ([]string, cobra.ShellCompDirective) {
	head, last := "", value
	if i := strings.LastIndexByte(value, ','); i >= 0 {
		head, last = value[:i+1], value[i+1:]
	}
	names := scenarios.Names()
	if head == "" {
		names = append([]string{allScenarios}, names...)
	}
	var out []string
	for _, n := range withPrefix(names, last) {
		out = append(out, head+n)
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeImpls completes --impl with "correct" and every mutant.
func completeImpls(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	var names []string
	for _, impl := range implementations() {
		names = append(names, impl.Name)
	}
	return withPrefix(names, prefix), cobra.ShellCompDirectiveNoFileComp
}

// withPrefix keeps the names that start with prefix.
func withPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
