package main

import (
	"fmt"
	"io"
	"time"

	"github.com/leasesim/leasesim/sweep"
	"github.com/leasesim/leasesim/tune"
)

// plainEvery is how often plain progress output prints a line when nothing
// failed.
const plainEvery = 5 * time.Second

// progress shows the progress of many runs (a sweep, a tuning run) on
// stderr: a progress bar on a terminal, otherwise a line per failure and a
// status line now and then; and, when they are over, a final status line
// ("sweep: 600/600 runs, 0 failing") either way. Its methods run on the
// goroutine that runs the runs. It is the CLI's one progress printer.
type progress struct {
	w     io.Writer
	label string // "sweep", "tune"
	bar   bar    // nil when w is not a terminal
	total int    // 0 until known
	last  time.Time

	done, failed int
}

// newProgress returns a sweep's progress printer for total runs.
func newProgress(w io.Writer, total int) *progress {
	return newLabelledProgress(w, "sweep", total)
}

// newLabelledProgress returns a progress printer whose lines start with
// label; a total of 0 is learnt from the first update.
func newLabelledProgress(w io.Writer, label string, total int) *progress {
	p := &progress{w: w, label: label, last: time.Now()}
	if total > 0 {
		p.start(total)
	}
	return p
}

// start learns the total and draws the bar on a terminal.
func (p *progress) start(total int) {
	p.total = total
	if p.bar = newBar(p.w, total); p.bar != nil {
		p.bar.Describe(p.label)
	}
}

// update records one finished run of a sweep.
func (p *progress) update(s sweep.Progress) {
	failure := ""
	if s.Failure != nil {
		failure = fmt.Sprintf("%s seed %d: %s", s.Scenario, s.Seed, s.Failure.Detail)
	}
	p.step(s.Done, s.Total, s.Failed, failure)
}

// updateTune records one finished run of a tuning run.
func (p *progress) updateTune(s tune.Progress) {
	failure := ""
	if s.Failure != "" {
		failure = fmt.Sprintf("%s seed %d: %s", s.Config, s.Seed, s.Failure)
	}
	p.step(s.Done, s.Total, s.Failed, failure)
}

// step records that done of total runs finished, failed of them failing,
// the last one with failure ("" if it passed).
func (p *progress) step(done, total, failed int, failure string) {
	if p.total == 0 && total > 0 {
		p.start(total)
	}
	p.done, p.failed = done, failed
	if p.bar != nil {
		if failure != "" {
			p.bar.Describe(fmt.Sprintf("%s (%d failing)", p.label, failed))
		}
		if err := p.bar.Set(done); err == nil {
			return
		}
		p.bar = nil // the terminal went away: go on with plain lines
	}
	if failure != "" {
		fmt.Fprintf(p.w, "FAIL %s\n", failure)
	}
	if time.Since(p.last) >= plainEvery {
		p.last = time.Now()
		p.status()
	}
}

// status prints the status line.
func (p *progress) status() {
	fmt.Fprintf(p.w, "%s: %d/%d runs, %d failing\n", p.label, p.done, p.total, p.failed)
}

// bar is a progress bar on a terminal: *progressbar.ProgressBar.
type bar interface {
	Describe(description string)
	Set(done int) error
	Finish() error
}

// finish clears the bar and prints the final status line, if the runs
// had started. Progress is best effort: a bar that cannot be drawn any
// more is not an error of the runs.
func (p *progress) finish() {
	if p.bar != nil && p.bar.Finish() != nil {
		p.bar = nil
	}
	if p.total > 0 {
		p.status()
	}
}
