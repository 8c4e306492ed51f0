package etcd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/history/leasewire"
	"github.com/leasesim/leasesim/reports"
)

// Producer names this host in a history's header.
const Producer = "zoo/etcd real-time host (etcd v3.7.3, clientv3/concurrency)"

// Verdict is a judged run.
type Verdict struct {
	Story string
	Dir   string
	// Checks are checker.Check's results (P1..P6 and the premises).
	Checks []checker.Result
	// DeadlineP1 is P1 again with every belief cut at the holder's own
	// deadline (the TTL after its last keepalive response) in true time,
	// as the simulator reads a paused holder's belief; its MarginMin is
	// how far the holder's own deadline stayed ahead of the next holder.
	DeadlineP1 checker.Result
	// ReadBack is the error `simrun check` would give reading the run's
	// history.jsonl (leasewire.ReadHistory), or nil.
	ReadBack error
	Outcome  *Outcome
	// Config is the run's configuration.
	Config Config
}

// Status returns the status of property name ("P1", …), or "".
func (v *Verdict) Status(name string) checker.Status {
	for _, r := range v.Checks {
		if r.Property == name {
			return r.Status
		}
	}
	return ""
}

// Line is the verdicts on one line: "P1 violated, P2 ok, …".
func (v *Verdict) Line() string {
	var parts []string
	for _, r := range v.Checks {
		parts = append(parts, fmt.Sprintf("%s %s", r.Property, r.Status))
	}
	return strings.Join(parts, ", ")
}

// Judge checks the outcome with checker.Judge and writes the run directory
// cfg.Dir: history.jsonl (determinism statistical), report.html, run.json
// and the other report files (reports.WriteRunDir, as `simrun check --out`
// writes them), verdicts.txt, harness.log and samples.json beside the member
// and holder logs the run wrote.
func Judge(cfg Config, out *Outcome, wall time.Duration) (*Verdict, error) {
	h := out.History
	j := checker.Judge(h, checker.Options{Visualize: true})
	v := &Verdict{Story: cfg.Story, Dir: cfg.Dir, Checks: j.Checks, Outcome: out, Config: cfg, DeadlineP1: deadlineP1(h)}
	meta := leasewire.Meta{Producer: Producer, Determinism: history.Statistical,
		Scenario: cfg.Story, Seed: cfg.Seed, Holders: holderNames(cfg), Resources: []string{cfg.resource()}}
	// history.jsonl is the history with the holders' actions, which the
	// history keeps apart. The report is drawn from that file read back as
	// `simrun check` reads it, so that a check of it draws the same report,
	// and the verdicts of the file are held equal to the run's.
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("etcd: run directory: %w", err)
	}
	path := filepath.Join(cfg.Dir, reports.HistoryFile)
	file, err := writeHistory(path, h, meta, out.Actions)
	if err != nil {
		return nil, err
	}
	data, judged := reports.RunData{History: h, Meta: meta, Schedule: &cfg.Schedule}, j
	back, backMeta, err := leasewire.ReadHistory(bytes.NewReader(file), path)
	if err != nil {
		v.ReadBack = err
	} else {
		data.History, data.Meta, data.Recorded = back, backMeta, file
		judged = checker.Judge(back, checker.Options{Visualize: true})
		for i, r := range judged.Checks {
			if i >= len(j.Checks) || r.Property != j.Checks[i].Property || r.Status != j.Checks[i].Status {
				v.ReadBack = fmt.Errorf("simrun check %s gives %s %s, the run gave %s", path, r.Property, r.Status, v.Status(r.Property))
				break
			}
		}
	}
	run := reports.NewRun(data.History, data.Meta, judged)
	run.Impl, run.TraceHash, run.Source = "etcd", "none", "real time"
	run.WallSeconds = wall.Seconds()
	run.Replay = "go run ./cmd/etcdstories -story " + cfg.Story + " (statistical: re-runs the schedule)"
	if _, err := reports.WriteRunDir(cfg.Dir, run, data); err != nil {
		return nil, fmt.Errorf("etcd: run directory: %w", err)
	}
	// etcd-ops.jsonl has every operation the holders made on etcd.
	all := *h
	all.SetOps(out.EtcdOps)
	if _, err := writeHistory(filepath.Join(cfg.Dir, OpsFile), &all, meta, nil); err != nil {
		return nil, err
	}

	var txt strings.Builder
	fmt.Fprintf(&txt, "story %s, determinism statistical, %d member(s), leader %s, unfenced %v\n", cfg.Story, cfg.Members, out.Leader, cfg.Unfenced)
	for _, r := range j.Checks {
		fmt.Fprintf(&txt, "%-8s %-8s %s\n", r.Property, r.Status, r.Summary)
	}
	if cfg.OmitLessorOps != "" {
		fmt.Fprintf(&txt, "P3 reads only the fenced store here: %s\n", cfg.OmitLessorOps)
	}
	fmt.Fprintf(&txt, "P1 with beliefs cut at the holder's own deadline: %s: %s\n", v.DeadlineP1.Status, v.DeadlineP1.Summary)
	if v.ReadBack != nil {
		fmt.Fprintf(&txt, "history.jsonl read back as simrun check reads it: %v\n", v.ReadBack)
	} else {
		fmt.Fprintf(&txt, "history.jsonl read back as simrun check reads it: the same verdicts\n")
	}
	files := map[string][]byte{"verdicts.txt": []byte(txt.String()), "harness.log": []byte(strings.Join(out.Log, "\n") + "\n")}
	if b, err := json.MarshalIndent(out.Samples, "", " "); err == nil {
		files["samples.json"] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(cfg.Dir, name), b, 0o644); err != nil {
			return nil, fmt.Errorf("etcd: %s: %w", name, err)
		}
	}
	return v, nil
}

// OpsFile is the run directory's file of every operation the holders made
// on etcd (grant, keepalive, create, lock, get, unlock, also those whose
// reply never came), as history records in the schema; processing times
// are unknown there, so it is for reading, not for simrun check.
const OpsFile = "etcd-ops.jsonl"

// writeHistory writes h (and actions) as a history file at path and
// returns its bytes.
func writeHistory(path string, h *history.History, meta leasewire.Meta, actions []history.Action) ([]byte, error) {
	head, events, end := leasewire.Events(h, meta)
	for i := range actions {
		events = append(events, &actions[i])
	}
	var buf bytes.Buffer
	wr, err := history.NewWriter(&buf, head)
	for i := 0; err == nil && i < len(events); i++ {
		err = wr.Write(events[i])
	}
	if err == nil {
		err = wr.End(end)
	}
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		return nil, fmt.Errorf("etcd: %s: %w", path, err)
	}
	return buf.Bytes(), nil
}

// deadlineP1 is P1 over the beliefs cut at their holder's own deadline.
func deadlineP1(h *history.History) checker.Result {
	c := *h
	c.Beliefs = slices.Clone(h.Beliefs)
	for i := range c.Beliefs {
		b := &c.Beliefs[i]
		if d := history.Time(b.LocalDeadline); b.LocalDeadline > 0 && d < b.End {
			b.End, b.Reason = max(d, b.Start), history.EndDeadline
		}
	}
	return checker.Exclusivity(&c)
}

func holderNames(cfg Config) []string {
	var out []string
	for _, hs := range cfg.Holders {
		out = append(out, hs.Name)
	}
	slices.Sort(out)
	return out
}
