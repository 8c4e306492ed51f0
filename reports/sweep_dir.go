package reports

import (
	"fmt"
	"io"
	"os"

	"github.com/leasesim/leasesim/sweep"
)

// The files of a sweep's output directory.
const (
	SweepJSONFile = "summary.json"
	SweepHTMLFile = "sweep.html"
)

// WriteSweepDir writes a sweep's report files into dir, creating it:
// summary.json (the sweep summary, which `simrun merge` reads) and
// sweep.html. It returns the paths written, in that order.
func WriteSweepDir(dir string, s sweep.Summary) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("reports: sweep directory: %w", err)
	}
	return writeFiles(dir, []namedWriter{
		{SweepJSONFile, func(w io.Writer) error { return writeIndentedJSON(w, s) }},
		{SweepHTMLFile, func(w io.Writer) error { return WriteSweepHTML(w, s) }},
	})
}
