package gohost

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
)

// Producer names the goroutine host in a history file's header.
const Producer = "leasesim goroutine host"

// HistoryPath is the file a worker writes seed's history to when its job
// names a HistoryDir: simrun reads it back as `simrun check` reads a file,
// judges it, and draws the run's reports from it.
func HistoryPath(dir string, seed uint64) string {
	return filepath.Join(dir, "seed-"+strconv.FormatUint(seed, 10)+".jsonl")
}

// WriteRunHistory writes a run's history to HistoryPath(dir, seed), with
// the scenario and seed in its header and its determinism level: verified
// when a second run gave the same trace, statistical otherwise (the
// schedule replays, the trace may not).
func WriteRunHistory(dir, scenario string, seed uint64, res *Result) error {
	level := history.Statistical
	if res.Level.Determinism == history.Verified && !res.Level.Diverged() {
		level = history.Verified
	}
	path := HistoryPath(dir, seed)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gohost worker: history: %w", err)
	}
	w := bufio.NewWriter(f)
	err = leasewire.WriteHistory(w, res.History, leasewire.Meta{Producer: Producer, Determinism: level,
		Scenario: scenario, Seed: seed})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("gohost worker: history %s: %w", path, err)
	}
	return nil
}
