package etcd

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/leasesim/leasesim/checker"
	"github.com/leasesim/leasesim/faults"
	"github.com/leasesim/leasesim/history"
)

// Story is one of issue 12's stories: a run configuration, the premises its
// outcome must show, and what counts as reproducing it.
type Story struct {
	// Name names the story (and its run directories).
	Name string
	// Doc says what it shows.
	Doc string
	// Config is the run, without Dir, Bin and Seed.
	Config Config
	// Premises are the story's own premises, read from the outcome.
	Premises func(o *Outcome, cfg *Config) []history.PremiseRecord
	// Expect is the verdicts that reproduce the story, property by status.
	Expect map[string]checker.Status
	// Shows, if set, is what else a run must show to reproduce the story.
	Shows func(o *Outcome, cfg *Config) bool
	// Measure returns the story's figures (name → value), if it has any.
	Measure func(o *Outcome, cfg *Config) map[string]time.Duration
}

// Stories returns the stories, each fenced and unfenced where fencing is
// the point.
func Stories() []Story {
	var out []Story
	for _, unfenced := range []bool{false, true} {
		out = append(out, PauseStory(1, unfenced), StaleUnlockStory(unfenced))
	}
	out = append(out, LeaderPartitionStory())
	return out
}

// StoryNamed returns the story called name.
func StoryNamed(name string) (Story, bool) {
	for _, s := range Stories() {
		if s.Name == name {
			return s, true
		}
	}
	return Story{}, false
}

func suffix(unfenced bool) string {
	if unfenced {
		return "-unfenced"
	}
	return ""
}

// expectP2 is P2's expected status: ok with the fenced store, violated
// without it.
func expectP2(unfenced bool) checker.Status {
	if unfenced {
		return checker.Violated
	}
	return checker.OK
}

// PauseStory is story 2: holder h1 locks the mutex, then is stopped
// (SIGSTOP) for twice its session's TTL while it believes it holds it; etcd
// expires the session, h2 takes the lock and writes; h1, continued, writes
// under its old revision before it sees its session end. P1 is violated
// (etcd's stance: a lock holder can be paused), P2 holds with the fenced
// store and fails without it.
func PauseStory(members int, unfenced bool) Story {
	ttl := 2 * time.Second
	pauseAt, pauseFor := 1500*time.Millisecond, 2*ttl
	return Story{
		Name: "pause" + suffix(unfenced),
		Doc:  "a holder SIGSTOPped past its session TTL while it believes it holds the mutex",
		Config: Config{Story: "pause" + suffix(unfenced), Members: members, TTL: ttl, Unfenced: unfenced,
			Holders: []HolderSpec{{Name: "h1", LockAt: 300 * time.Millisecond}, {Name: "h2", LockAt: 800 * time.Millisecond}},
			Schedule: faults.Schedule{Version: faults.Version, HealAt: 6 * time.Second,
				Events: []faults.Event{{At: pauseAt, Kind: faults.KindPause, Node: "h1", Duration: pauseFor}}},
			Duration: 7 * time.Second},
		Premises: func(o *Outcome, cfg *Config) []history.PremiseRecord {
			h := o.History
			start, end := history.Time(pauseAt), history.Time(pauseAt+pauseFor)
			b1 := beliefAt(h, "h1", start)
			p := []history.PremiseRecord{{Name: "h1 believed when it was paused, for longer than its TTL",
				Held:   b1 != nil && pauseFor > cfg.TTL,
				Detail: fmt.Sprintf("pause %v..%v (%v, TTL %v); h1's belief %s", start, end, pauseFor, cfg.TTL, beliefText(b1))}}
			b2 := firstBelief(h, "h2")
			p = append(p, history.PremiseRecord{Name: "h2 took the lock during the pause",
				Held:   b2 != nil && b2.Start > start && b2.Start < end,
				Detail: "h2's belief " + beliefText(b2)})
			return p
		},
		Expect: map[string]checker.Status{"P1": checker.Violated, "P2": expectP2(unfenced)},
	}
}

// StaleUnlockStory is story 1, etcd #22082: h1 unlocks, the harness lets the
// Delete through and drops its response; h1 locks again on the same session
// (the same key at a newer create revision), then retries the first Unlock,
// which deletes the newer key; h2 then takes the lock while h1 still
// believes it holds it.
func StaleUnlockStory(unfenced bool) Story {
	ttl := 3 * time.Second
	sched := faults.Schedule{Version: faults.Version, HealAt: 6 * time.Second,
		Events: Drop("h1", "m0", 1900*time.Millisecond, 800*time.Millisecond)}
	return Story{
		Name: "stale-unlock" + suffix(unfenced),
		Doc:  "etcd #22082: a committed Unlock whose response was dropped, retried after a relock on the same session",
		Config: Config{Story: "stale-unlock" + suffix(unfenced), Members: 1, TTL: ttl, Unfenced: unfenced,
			Holders: []HolderSpec{
				{Name: "h1", Script: "stale-unlock", LockAt: 300 * time.Millisecond, ReleaseAt: 2 * time.Second,
					RetryAt: 3500 * time.Millisecond},
				{Name: "h2", LockAt: 4500 * time.Millisecond}},
			Schedule: sched, Duration: 7 * time.Second,
			OmitLessorOps: "the story's Unlocks are Deletes, which the lessor specification does not model (a get that " +
				"found the deleted key gone would read as its lease's expiry); P1 names etcd #22082"},
		Premises: func(o *Outcome, cfg *Config) []history.PremiseRecord {
			h := o.History
			b2 := firstBelief(h, "h2")
			var newer *history.BeliefInterval
			for i := range h.Beliefs {
				if b := &h.Beliefs[i]; b.Holder == "h1" && b2 != nil && b.Start < b2.Start && b.End > b2.Start {
					newer = b
				}
			}
			return []history.PremiseRecord{{Name: "h2 took the lock while h1's relock still believed",
				Held: newer != nil, Detail: fmt.Sprintf("h2 %s; h1 %s", beliefText(b2), beliefText(newer))}}
		},
		Expect: map[string]checker.Status{"P1": checker.Violated, "P2": expectP2(unfenced)},
	}
}

// LeaderPartitionStory is story 3: three members, m0 the leader; h1 holds
// the mutex; at 3s m0 and h1 are both cut off. h1's own deadline ends its
// belief a TTL after its last keepalive response; m1 and m2 elect a leader,
// which extends every lease on its promotion (etcd's lessor.Promote adds the
// election timeout to a full TTL), so h2 gets the lock much later than the
// TTL: measured here against the lessor specification's bound (a lease
// expires a TTL after its last keepalive).
func LeaderPartitionStory() Story {
	ttl := 3 * time.Second
	cut := 3 * time.Second
	return Story{
		Name: "leader-partition",
		Doc:  "the leader partitioned away, a new leader elected: lease TTLs extended on promotion",
		Config: Config{Story: "leader-partition", Members: 3, Leader: "m0", TTL: ttl, ElectionMs: 1000, TickMs: 100,
			Holders: []HolderSpec{{Name: "h1", LockAt: 500 * time.Millisecond},
				{Name: "h2", LockAt: 1500 * time.Millisecond, Members: []string{"m1", "m2"}}},
			Schedule: faults.Schedule{Version: faults.Version, HealAt: 10 * time.Second, Events: []faults.Event{
				{At: cut, Kind: faults.KindIsolate, Node: "m0"}, {At: cut, Kind: faults.KindIsolate, Node: "h1"}}},
			Duration: 15 * time.Second, ProbeLeases: []string{"m1", "m2"}},
		Premises: func(o *Outcome, cfg *Config) []history.PremiseRecord {
			h := o.History
			b1 := beliefAt(h, "h1", history.Time(cut))
			b2 := firstBelief(h, "h2")
			return []history.PremiseRecord{
				{Name: "m0 led when it was cut off", Held: o.Leader == "m0", Detail: "leader at the start: " + o.Leader},
				{Name: "h1 believed when it was cut off", Held: b1 != nil, Detail: "h1 " + beliefText(b1)},
				{Name: "h2 took the lock after the cut", Held: b2 != nil && b2.Start > history.Time(cut), Detail: "h2 " + beliefText(b2)},
			}
		},
		Expect: map[string]checker.Status{"P1": checker.OK, "P2": checker.OK},
		// Reproduced: the lease outlived the spec's bound (its TTL after the
		// last keepalive) by more than the election timeout.
		Shows: func(o *Outcome, cfg *Config) bool {
			last, b2 := lastKeepalive(o.History, "h1", history.Time(cut)), firstBelief(o.History, "h2")
			return last != history.Unknown && b2 != nil &&
				time.Duration(b2.Start-last)-cfg.TTL > time.Duration(cfg.ElectionMs)*time.Millisecond
		},
		Measure: func(o *Outcome, cfg *Config) map[string]time.Duration {
			h := o.History
			last := lastKeepalive(h, "h1", history.Time(cut))
			b2 := firstBelief(h, "h2")
			m := map[string]time.Duration{}
			if last == history.Unknown || b2 == nil {
				return m
			}
			m["h1's last keepalive reply"] = time.Duration(last)
			m["spec bound: h1's lease expires by"] = time.Duration(last) + cfg.TTL
			m["h2 acquired at"] = time.Duration(b2.Start)
			m["lease outlived its TTL by (h2's acquisition - last keepalive - TTL)"] = time.Duration(b2.Start-last) - cfg.TTL
			var gone time.Duration = -1
			var peak time.Duration
			for _, s := range o.Samples {
				if s.At > cut && s.Remaining > 0 && gone < 0 {
					peak = max(peak, s.Remaining)
				}
				if s.At > cut && s.Remaining < 0 && gone < 0 {
					gone = s.At
				}
			}
			if gone > 0 {
				m["probe: lease not found from"] = gone
			}
			if b2.LocalDeadline > 0 && history.Time(b2.LocalDeadline) <= b2.Start {
				m["h2's Lock returned past its session's own deadline by"] = time.Duration(b2.Start) - b2.LocalDeadline
			}
			if peak > 0 {
				m["probe: largest remaining TTL read after the cut"] = peak
			}
			return m
		},
	}
}

// lastKeepalive returns when holder's last keepalive (or grant) reply before
// t reached it.
func lastKeepalive(h *history.History, holder string, t history.Time) history.Time {
	last := history.Unknown
	for _, o := range h.AllOps() {
		if o.Client == holder && (o.Input.Kind == "keepalive" || o.Input.Kind == "grant") && o.Returned() && o.Return <= t {
			last = max(last, o.Return)
		}
	}
	return last
}

func beliefAt(h *history.History, holder string, t history.Time) *history.BeliefInterval {
	for i := range h.Beliefs {
		if b := &h.Beliefs[i]; b.Holder == holder && b.Start <= t && t < b.End {
			return b
		}
	}
	return nil
}

func firstBelief(h *history.History, holder string) *history.BeliefInterval {
	for i := range h.Beliefs {
		if b := &h.Beliefs[i]; b.Holder == holder {
			return b
		}
	}
	return nil
}

func beliefText(b *history.BeliefInterval) string {
	if b == nil {
		return "none"
	}
	return fmt.Sprintf("token %d from %v to %v (%s), own deadline %v", b.Token, b.Start, b.End, b.Reason, b.LocalDeadline)
}

// RunStory runs s once into dir and judges it, the story's premises added
// to the history.
func RunStory(ctx context.Context, s Story, bin Binaries, dir string, seed uint64) (*Verdict, error) {
	cfg := s.Config
	cfg.Dir, cfg.Bin, cfg.Seed = dir, bin, seed
	start := time.Now()
	out, err := Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if s.Premises != nil {
		out.History.Premises = append(out.History.Premises, s.Premises(out, &cfg)...)
	}
	return Judge(cfg, out, time.Since(start))
}

// Reproduced reports whether v shows the story: every premise held and
// every expected verdict came.
func (s Story) Reproduced(v *Verdict) bool {
	if st := v.Status(checker.PropertyPremise); st != "" && st != checker.OK {
		return false
	}
	for p, want := range s.Expect {
		if v.Status(p) != want {
			return false
		}
	}
	return s.Shows == nil || s.Shows(v.Outcome, &v.Config)
}

// Repeat is a story run N times.
type Repeat struct {
	Story      Story
	Runs       []*Verdict
	Reproduced int
	// Measures are each run's figures.
	Measures []map[string]time.Duration
}

// Rate is the reproduction rate, "k/n".
func (r *Repeat) Rate() string { return fmt.Sprintf("%d/%d", r.Reproduced, len(r.Runs)) }

// RepeatStory runs s n times, run i into base/NAME/run-i with seed i.
func RepeatStory(ctx context.Context, s Story, bin Binaries, base string, n int, each func(i int, v *Verdict)) (*Repeat, error) {
	r := &Repeat{Story: s}
	for i := range n {
		cfg := s.Config
		dir := filepath.Join(base, s.Name, fmt.Sprintf("run-%02d", i+1))
		v, err := RunStory(ctx, s, bin, dir, uint64(i+1))
		if err != nil {
			return r, err
		}
		r.Runs = append(r.Runs, v)
		if s.Reproduced(v) {
			r.Reproduced++
		}
		if s.Measure != nil {
			r.Measures = append(r.Measures, s.Measure(v.Outcome, &cfg))
		}
		if each != nil {
			each(i, v)
		}
	}
	return r, nil
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// MeasureSummary prints each figure's min, median and max over the runs.
func MeasureSummary(ms []map[string]time.Duration) string {
	vals := map[string][]time.Duration{}
	for _, m := range ms {
		for k, v := range m {
			vals[k] = append(vals[k], v)
		}
	}
	var b strings.Builder
	for _, k := range sortedKeys(vals) {
		v := vals[k]
		slices.Sort(v)
		fmt.Fprintf(&b, "  %s: min %v, median %v, max %v (%d runs)\n", k, v[0].Round(time.Millisecond),
			v[len(v)/2].Round(time.Millisecond), v[len(v)-1].Round(time.Millisecond), len(v))
	}
	return b.String()
}
