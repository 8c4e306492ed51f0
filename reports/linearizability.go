package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/leasesim/leasesim/checker"
)

// runContext is the bar that WriteRunDir puts at the top of the run's
// linearizability.html: which run it is, which property, and the way back
// to report.html. The P3 checker rendered the page and knows none of this.
var runContext = template.Must(template.New("context").Parse(
	`<nav class="leasesim-run" style="margin:0 0 10px;padding:6px 10px;background:#f3f3f3;border-radius:4px">` +
		`<a href="{{.Report}}">← report.html</a> · scenario <b>{{.Scenario}}</b> · seed <b>{{.Seed}}</b> · ` +
		`implementation <b>{{.Impl}}</b> · property <b>{{.Property}} {{.Name}}</b>: {{.Status}}</nav>`))

// pageTitle matches the page's title.
var pageTitle = regexp.MustCompile(`<title>[^<]*</title>`)

// writeVisualization writes result's visualisation (porcupine's page, as
// the P3 checker rendered it) to path atomically, with the run's context
// at its top and a title that names the run.
func writeVisualization(path string, run Run, result checker.Result) error {
	var bar bytes.Buffer
	if err := runContext.Execute(&bar, map[string]any{
		"Report": ReportFile, "Scenario": run.Scenario, "Seed": run.Seed, "Impl": run.Impl,
		"Property": result.Property, "Name": result.Name, "Status": strings.ToUpper(string(result.Status)),
	}); err != nil {
		return fmt.Errorf("reports: %s: %w", LinearizableFile, err)
	}
	page := string(result.Visualization)
	// Inside the checker's header block, which clears porcupine's floating
	// legend; at the top of the body if there is none.
	anchor := `<div class="leasesim-top">`
	if !strings.Contains(page, anchor) {
		anchor = "<body>"
	}
	page = strings.Replace(page, anchor, anchor+"\n"+bar.String()+"\n", 1)
	title := fmt.Sprintf("<title>%s %s · %s seed %d · leasesim</title>", result.Property, result.Name,
		template.HTMLEscapeString(run.Scenario), run.Seed)
	page = pageTitle.ReplaceAllLiteralString(page, title)
	return WriteFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, page)
		return err
	})
}
