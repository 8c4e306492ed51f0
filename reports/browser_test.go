package reports

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chromiumPath is where Debian installs chromium (`apt-get install
// chromium`); CI installs it there so that the browser tests really run.
const chromiumPath = "/usr/bin/chromium"

// screenshotDirEnv names a directory in which the browser tests keep their
// screenshots, to look at; without it they go to a temporary directory.
const screenshotDirEnv = "LEASESIM_SCREENSHOTS"

// browserTimeout bounds one browser test, start of chromium included.
const browserTimeout = 60 * time.Second

// browser starts a headless chromium with a fresh profile and no network
// services, or skips the test when chromium is not installed.
func browser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("chromium not found at %s; install Debian's chromium to run the browser test", chromiumPath)
	}
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	t.Cleanup(cancel)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	return tab
}

// pageProblems collects what a page reports as wrong: console errors,
// uncaught exceptions, and browser log errors (a failed load, for one).
type pageProblems struct {
	mu       sync.Mutex
	problems []string
}

func watchPage(t *testing.T, ctx context.Context) *pageProblems {
	t.Helper()
	p := &pageProblems{}
	require.NoError(t, chromedp.Listen(ctx, func(ev any) {
		var problem string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				problem = fmt.Sprintf("console.%s with %d arguments", ev.Type, len(ev.Args))
				if len(ev.Args) > 0 {
					problem += fmt.Sprintf(": %s", ev.Args[0].Value)
				}
			}
		case *runtime.EventExceptionThrown:
			problem = "uncaught exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				problem += " " + ev.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				problem = fmt.Sprintf("browser log error (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		}
		if problem != "" {
			p.mu.Lock()
			p.problems = append(p.problems, problem)
			p.mu.Unlock()
		}
	}))
	return p
}

func (p *pageProblems) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}

// saveScreenshot keeps a PNG where a person can look at it.
func saveScreenshot(t *testing.T, name string, png []byte) {
	t.Helper()
	dir := os.Getenv(screenshotDirEnv)
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}

// timelineFacts is what the page's own DOM says about the drawn timeline.
type timelineFacts struct {
	Width, Height float64
	Lanes         []string
	Beliefs       int
	Fenced        int
	Pauses        int
	// PauseRight and FencedCentre are on-screen x coordinates, to check
	// the story's order as drawn.
	PauseRight, FencedCentre float64
	H1BeliefRight            float64
	H2BeliefLeft             float64
	BeliefFills              []string
}

const timelineFactsJS = `(() => {
  const svg = document.getElementById("timeline");
  const box = svg.getBoundingClientRect();
  const lane = (name) => svg.querySelector('g.lane[data-node="' + name + '"]');
  const rect = (el) => el ? el.getBoundingClientRect() : {left: -1, right: -1};
  const pause = rect(lane("h1").querySelector("rect.f-pause"));
  const fenced = rect(lane("h1").querySelector("g.mark.fenced"));
  return {
    Width: box.width, Height: box.height,
    Lanes: [...svg.querySelectorAll("g.lane")].map(g => g.dataset.node),
    Beliefs: svg.querySelectorAll("rect.belief").length,
    Fenced: svg.querySelectorAll("g.mark.fenced").length,
    Pauses: svg.querySelectorAll("rect.f-pause").length,
    PauseRight: pause.right, FencedCentre: (fenced.left + fenced.right) / 2,
    H1BeliefRight: rect(lane("h1").querySelector("rect.belief")).right,
    H2BeliefLeft: rect(lane("h2").querySelector("rect.belief")).left,
    BeliefFills: [...svg.querySelectorAll("rect.belief")].map(r => r.getAttribute("fill")),
  };
})()`

// zoomJS moves the zoom slider as a person would and returns the plot's
// new width.
const zoomJS = `(() => {
  const slider = document.getElementById("zoom");
  slider.value = "%d";
  slider.dispatchEvent(new Event("input"));
  return document.getElementById("timeline").getBoundingClientRect().width;
})()`

// The Kleppmann report in a real browser: it loads from file:// with no
// errors, the timeline has a lane per node and a bar per belief, and the
// story is drawn in order: h1's belief ends, h2's begins, and h1's fenced
// write comes after its pause.
func TestReportInBrowser(t *testing.T) {
	ctx := browser(t)
	run, out := kleppmann(t)
	dir := t.TempDir()
	paths, err := WriteRunDir(dir, run, out)
	require.NoError(t, err)
	problems := watchPage(t, ctx)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate("file://"+paths[2]),
		chromedp.WaitVisible(chromedp.ID("timeline")),
	))
	facts, err := chromedp.Run(ctx, chromedp.Evaluate[timelineFacts](timelineFactsJS))
	require.NoError(t, err)
	assert.Greater(t, facts.Width, 500.0, "the timeline has a real size")
	assert.Greater(t, facts.Height, 80.0)
	assert.Equal(t, []string{"grantor", "store", "h1", "h2"}, facts.Lanes, "one lane per node")
	assert.Equal(t, len(out.History.Beliefs), facts.Beliefs, "one bar per belief")
	assert.Equal(t, 1, facts.Fenced)
	assert.Equal(t, 1, facts.Pauses)
	assert.Less(t, facts.H1BeliefRight, facts.H2BeliefLeft, "h1 stops believing before h2 starts")
	assert.GreaterOrEqual(t, facts.FencedCentre, facts.PauseRight, "the stale write is fenced after the pause")
	require.Len(t, facts.BeliefFills, 2)
	assert.NotEqual(t, facts.BeliefFills[0], facts.BeliefFills[1], "tokens have their own colours")

	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("timeline-section")))
	require.NoError(t, err)
	saveScreenshot(t, "kleppmann-timeline.png", png)
	page, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
	require.NoError(t, err)
	saveScreenshot(t, "kleppmann-report.png", page)

	// Zoomed to the first third of the run, where the story happens: the
	// picture in the README.
	width, err := chromedp.Run(ctx, chromedp.Evaluate[float64](fmt.Sprintf(zoomJS, 3)))
	require.NoError(t, err)
	assert.Greater(t, width, 2.5*facts.Width, "zoom widens the plot")
	_, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementById("timeline-scroll").scrollLeft = 0`))
	require.NoError(t, err)
	zoomed, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("timeline-section")))
	require.NoError(t, err)
	saveScreenshot(t, "kleppmann-story.png", zoomed)

	assert.Empty(t, problems.list(), "the page reports no errors")
}

// The sweep page, with its histograms, loads with no errors too.
func TestSweepReportInBrowser(t *testing.T) {
	ctx := browser(t)
	s := sampleSweep()
	s.Partial = true
	paths, err := WriteSweepDir(t.TempDir(), s)
	require.NoError(t, err)
	problems := watchPage(t, ctx)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate("file://"+paths[1]),
		chromedp.WaitVisible(chromedp.CSS("figure.histogram svg")),
	))
	histograms, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](
		`[...document.querySelectorAll("figure.histogram svg")].map(s => s.getBoundingClientRect().width)`))
	require.NoError(t, err)
	require.Len(t, histograms, 3)
	for _, w := range histograms {
		assert.Greater(t, w, 100.0)
	}
	partial, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector(".partial") !== null`))
	require.NoError(t, err)
	assert.True(t, partial, "a partial sweep says so")
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	saveScreenshot(t, "sweep.png", png)
	assert.Empty(t, problems.list(), "the page reports no errors")
}
