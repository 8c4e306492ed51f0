package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/leasesim/leasesim/sweep"
)

func (a *app) mergeCommand() *cobra.Command {
	var (
		asJSON bool
		out    string
	)
	cmd := &cobra.Command{
		Use:   "merge FILE... [--json] [--out DIR]",
		Short: "combine the JSON summaries of sweep shards into one summary",
		Long: "merge reads the summaries that `simrun sweep --shard I/N --json` printed on several machines\n" +
			"and combines them. They must be of the same scenarios, implementation and seed range, with\n" +
			"distinct shards. Exit 0 when every run passed, 1 when one failed.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, files []string) error {
			parts := make([]sweep.Summary, len(files))
			for i, file := range files {
				if err := readJSONFile(file, &parts[i]); err != nil {
					return usageErr(cmd, err)
				}
			}
			sum, err := sweep.Merge(parts...)
			var me *sweep.MergeError
			if errors.As(err, &me) && me.Part >= 1 && me.Part <= len(files) {
				return usagef(cmd, "%s: %w", files[me.Part-1], me.Err)
			}
			if err != nil {
				return classify(cmd, err)
			}
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return usagef(cmd, "--out: %w", err)
				}
			}
			return a.showSweep(sum, asJSON, out)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the merged summary as one JSON object")
	cmd.Flags().StringVar(&out, "out", "", "write summary.json and sweep.html into this directory")
	return cmd
}
