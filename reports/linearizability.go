package reports

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/leasesim/leasesim/checker"
)

// runContext is the bar that WriteRunDir puts at the top of the run's
// linearizability.html: which run it is, which property, and the way back
// to report.html. The P3 checker wrote the page and knows none of this.
var runContext = template.Must(template.New("context").Parse(
	`<nav class="leasesim-run" style="margin:0 0 10px;padding:6px 10px;background:#f3f3f3;border-radius:4px">` +
		`<a href="{{.Report}}">← report.html</a> · scenario <b>{{.Scenario}}</b> · seed <b>{{.Seed}}</b> · ` +
		`implementation <b>{{.Impl}}</b> · property <b>{{.Property}} {{.Name}}</b>: {{.Status}}</nav>`))

// runContextBar matches a bar an earlier WriteRunDir added, so that
// writing the directory again replaces it instead of adding a second.
var runContextBar = regexp.MustCompile(`<nav class="leasesim-run"[^>]*>.*?</nav>\n?`)

// pageTitle matches the page's title.
var pageTitle = regexp.MustCompile(`<title>[^<]*</title>`)

// addRunContext gives the linearizability.html at path, which result
// names as its artifact, the run's context and a title that names the run,
// and writes it back atomically.
func addRunContext(path string, run Run, result checker.Result) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reports: %s: %w", LinearizableFile, err)
	}
	var bar bytes.Buffer
	if err := runContext.Execute(&bar, map[string]any{
		"Report": ReportFile, "Scenario": run.Scenario, "Seed": run.Seed, "Impl": run.Impl,
		"Property": result.Property, "Name": result.Name, "Status": strings.ToUpper(string(result.Status)),
	}); err != nil {
		return fmt.Errorf("reports: %s: %w", LinearizableFile, err)
	}
	page := runContextBar.ReplaceAllString(string(b), "")
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
