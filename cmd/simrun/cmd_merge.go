package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/sweep"
)

type mergeFlags struct {
	json, allowPartial bool
	out                string
	unknown            unknownPolicy
}

func (a *app) mergeCommand() *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge FILE... [--json] [--out DIR] [--allow-partial] [--unknown fail|pass]",
		Short: "combine the JSON summaries of sweep shards into one summary",
		Long: "merge reads the summaries that `simrun sweep --shard I/N --json` (or --out's summary.json)\n" +
			"wrote on several machines (a FILE of - is standard input), one at a time, and combines them\n" +
			"exactly: counts add up, and the distributions are mergeable histograms. They must be of the\n" +
			"same scenarios, implementation and seeds, with distinct shards: a shard given twice is an\n" +
			"error. merge knows N from each summary's shard I/N: when a shard is missing, or a shard's\n" +
			"sweep was interrupted, the merged summary is PARTIAL and names what is missing, and merge\n" +
			"exits non-zero unless --allow-partial. --out writes summary.json and sweep.html.\n" +
			"Exit 0 when every run passed; 1 when one failed, or had an unknown verdict under --unknown=fail;\n" +
			"2 for bad input, including a missing shard without --allow-partial; 3 when a shard was\n" +
			"interrupted before finding a failure, without --allow-partial.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error { return a.merge(cmd, f, files) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.json, "json", false, "print the merged summary as one JSON object")
	fl.StringVar(&f.out, "out", "", "write summary.json and sweep.html into this directory")
	fl.BoolVar(&f.allowPartial, "allow-partial", false,
		"accept missing or interrupted shards: the summary still says PARTIAL, the exit code follows the runs merged")
	addUnknownFlag(fl, &f.unknown)
	return cmd
}

// merge reads the shard summaries one at a time (decode, merge, drop), so
// that its memory does not grow with their number.
func (a *app) merge(cmd *cobra.Command, f mergeFlags, files []string) error {
	var m sweep.Merger
	for _, file := range files {
		var part sweep.Summary
		if err := readJSONFile(file, &part); err != nil {
			return usageErr(cmd, err)
		}
		var me *sweep.MergeError
		if err := m.Add(part); errors.As(err, &me) {
			return usagef(cmd, "%s: %w", file, me.Err)
		} else if err != nil {
			return classify(cmd, err)
		}
		if part.Runs < part.RunsExpected && len(part.MissingShards) == 0 {
			fmt.Fprintf(a.stderr, "simrun: %s: shard %s is PARTIAL: its sweep was interrupted after %d of %d runs\n",
				file, part.Shard, part.Runs, part.RunsExpected)
		}
	}
	sum, err := m.Summary()
	if err != nil {
		return classify(cmd, err)
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return usagef(cmd, "--out: %w", err)
		}
	}
	return a.showSweep(sum, f.json, f.out, f.unknown, f.allowPartial)
}
