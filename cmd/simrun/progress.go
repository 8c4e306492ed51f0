package main

import (
	"fmt"
	"io"
	"time"

	"github.com/leasesim/leasesim/sweep"
)

// plainEvery is how often plain progress output prints a line when nothing
// failed.
const plainEvery = 5 * time.Second

// progress shows a sweep's progress on stderr: a progress bar on a
// terminal, otherwise a line per failure and a status line now and then.
// Its methods run on the goroutine that called sweep.Run.
type progress struct {
	w     io.Writer
	bar   bar // nil when w is not a terminal
	last  time.Time
	state sweep.Progress
}

func newProgress(w io.Writer, total int) *progress {
	return &progress{w: w, last: time.Now(), bar: newBar(w, total)}
}

// update records one finished run.
func (p *progress) update(s sweep.Progress) {
	p.state = s
	if p.bar != nil {
		if s.Failure != nil {
			p.bar.Describe(fmt.Sprintf("sweep (%d failing)", s.Failed))
		}
		if err := p.bar.Set(s.Done); err == nil {
			return
		}
		p.bar = nil // the terminal went away: go on with plain lines
	}
	if s.Failure != nil {
		fmt.Fprintf(p.w, "FAIL %s seed %d: %s\n", s.Scenario, s.Seed, s.Failure.Detail)
	}
	if time.Since(p.last) >= plainEvery {
		p.last = time.Now()
		fmt.Fprintf(p.w, "sweep: %d/%d runs, %d failing\n", s.Done, s.Total, s.Failed)
	}
}

// bar is a progress bar on a terminal: *progressbar.ProgressBar.
type bar interface {
	Describe(description string)
	Set(done int) error
	Finish() error
}

// finish clears the bar. Progress is best effort: a bar that cannot be
// drawn any more is not an error of the sweep.
func (p *progress) finish() {
	if p.bar != nil && p.bar.Finish() != nil {
		p.bar = nil
	}
}
