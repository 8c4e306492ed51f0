package tune

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// value returns the metric an objective minimises.
func value(m Metrics, o Objective) float64 {
	switch o {
	case ObjectiveReexecuted:
		return m.ReexecutedFraction
	case ObjectiveStoreWrites:
		return m.StoreWritesPerWorkloadSecond
	case ObjectiveTaskLatencyP99:
		return float64(m.TaskLatencyP99)
	case ObjectiveFalseSuspicions:
		return float64(m.FalseSuspicions)
	case ObjectiveDetectionMax:
		return float64(m.DetectionMax)
	}
	return float64(m.FailoverP99)
}

// order returns the objectives in the order a choice compares them: o
// first, then the others in tie-breaking order.
func order(o Objective) []Objective {
	out := []Objective{o}
	for _, other := range Objectives() {
		if other != o {
			out = append(out, other)
		}
	}
	return out
}

// meets reports whether m meets every constraint.
func (c Constraints) meets(m Metrics) bool {
	return len(c.exceeded(m)) == 0
}

// limit is one constraint, for explanations.
type limit struct {
	set     bool
	metric  float64 // the configuration's value
	max     float64
	exceeds [2]string // for one config and for several: "needs more than 200 store writes/s", "need …"
	within  [2]string // for one config and for several: "stays under 200 store writes/s", "stay under …"
	have    string    // "it needs 3.1/s"
}

// limits returns the constraints applied to m, in a fixed order.
func (c Constraints) limits(m Metrics) []limit {
	var out []limit
	if v := c.MaxStoreWritesPerSecond; v != nil {
		out = append(out, limit{set: true, metric: m.StoreWritesPerWorkloadSecond, max: *v,
			exceeds: [2]string{"needs more than " + formatSig(*v) + " store writes/s", "need more than " + formatSig(*v) + " store writes/s"},
			within:  [2]string{"stays under " + formatSig(*v) + " store writes/s", "stay under " + formatSig(*v) + " store writes/s"},
			have:    "it needs " + formatRate(m.StoreWritesPerWorkloadSecond)})
	}
	if v := c.MaxReexecutedFraction; v != nil {
		out = append(out, limit{set: true, metric: m.ReexecutedFraction, max: *v,
			exceeds: [2]string{"re-executes more than " + formatPercent(*v) + " of its work",
				"re-execute more than " + formatPercent(*v) + " of their work"},
			within: [2]string{"re-executes at most " + formatPercent(*v) + " of its work",
				"re-execute at most " + formatPercent(*v) + " of their work"},
			have: "it re-executes " + formatPercent(m.ReexecutedFraction)})
	}
	if v := c.MaxFailoverP99; v != nil {
		out = append(out, limit{set: true, metric: float64(m.FailoverP99), max: float64(*v),
			exceeds: [2]string{"takes longer than " + formatSeconds(*v) + " to fail over at p99",
				"take longer than " + formatSeconds(*v) + " to fail over at p99"},
			within: [2]string{"fails over within " + formatSeconds(*v) + " at p99", "fail over within " + formatSeconds(*v) + " at p99"},
			have:   "it takes " + formatSeconds(m.FailoverP99)})
	}
	if v := c.MaxFalseSuspicions; v != nil {
		n := strconv.Itoa(*v)
		out = append(out, limit{set: true, metric: float64(m.FalseSuspicions), max: float64(*v),
			exceeds: [2]string{"suspects healthy members more than " + n + " times", "suspect healthy members more than " + n + " times"},
			within:  [2]string{"suspects healthy members at most " + n + " times", "suspect healthy members at most " + n + " times"},
			have:    "it suspects them " + strconv.Itoa(m.FalseSuspicions) + " times"})
	}
	if v := c.MaxDetection; v != nil {
		out = append(out, limit{set: true, metric: float64(m.DetectionMax), max: float64(*v),
			exceeds: [2]string{"takes longer than " + formatSeconds(*v) + " to declare a stopped member dead",
				"take longer than " + formatSeconds(*v) + " to declare a stopped member dead"},
			within: [2]string{"declares a stopped member dead within " + formatSeconds(*v),
				"declare a stopped member dead within " + formatSeconds(*v)},
			have: "it takes up to " + formatSeconds(m.DetectionMax)})
	}
	return out
}

// exceeded returns the constraints m does not meet.
func (c Constraints) exceeded(m Metrics) []limit {
	var out []limit
	for _, l := range c.limits(m) {
		if l.metric > l.max {
			out = append(out, l)
		}
	}
	return out
}

// excess is how far m is beyond the constraints: the sum of the relative
// excesses, to find the configuration closest to meeting them.
func (c Constraints) excess(m Metrics) float64 {
	sum := 0.0
	for _, l := range c.exceeded(m) {
		if l.max == 0 {
			sum += math.MaxFloat64 / 8 // beyond a zero limit: as far as it gets
			continue
		}
		sum += l.metric/l.max - 1
	}
	return sum
}

// choice is the state of a recommendation: which configurations take
// part, which meet the constraints, which are on the frontier.
type choice struct {
	configs    []ConfigResult
	seeds      int
	objective  Objective
	c          Constraints
	eligible   []int // take part (see participants)
	feasible   []int // eligible and meeting the constraints
	candidates []int // feasible and on the frontier
	frontier   int
	violating  int // valid configurations with a failing run
	unsampled  int // completed configurations left out for want of a failover
}

// recommend marks the feasible configurations and the recommended one
// (the frontier must be marked already), and returns its index (-1 for
// none) and the explanation.
func recommend(configs []ConfigResult, seeds int, obj Objective, c Constraints) (int, string) {
	ch := choice{configs: configs, seeds: seeds, objective: obj, c: c}
	part := participants(configs, seeds)
	for i := range configs {
		cfg := &configs[i]
		cfg.Feasible, cfg.Recommended = false, false
		if cfg.Valid && cfg.ViolatingRuns > 0 {
			ch.violating++
		}
		if cfg.completed(seeds) && !part[i] {
			ch.unsampled++
		}
		if !part[i] {
			continue
		}
		ch.eligible = append(ch.eligible, i)
		if cfg.Pareto {
			ch.frontier++
		}
		if c.meets(cfg.Metrics) {
			cfg.Feasible = true
			ch.feasible = append(ch.feasible, i)
			if cfg.Pareto {
				ch.candidates = append(ch.candidates, i)
			}
		}
	}
	if len(ch.candidates) == 0 {
		return -1, ch.none()
	}
	best := slices.MinFunc(ch.candidates, ch.compare)
	configs[best].Recommended = true
	return best, ch.explain(best)
}

// compare orders two configurations by the objectives in order, then by
// their place in the grid.
func (ch *choice) compare(a, b int) int {
	for _, o := range order(ch.objective) {
		va, vb := value(ch.configs[a].Metrics, o), value(ch.configs[b].Metrics, o)
		if va != vb {
			if va < vb {
				return -1
			}
			return 1
		}
	}
	return a - b
}

// paretoObjective reports whether the objective is one of the frontier's
// costs. Then the best feasible configuration is always on the frontier
// (one that dominated it would be feasible too, and better), so the
// choice is among every feasible one; otherwise it is among the feasible
// ones on the frontier.
func (ch *choice) paretoObjective() bool { return ch.objective != ObjectiveTaskLatencyP99 }

// explain says in one sentence why best was chosen.
func (ch *choice) explain(best int) string {
	m := ch.configs[best].Metrics
	n := len(ch.feasible)
	pool := plural(n, "valid config")
	if !ch.paretoObjective() {
		n = len(ch.candidates)
		pool = plural(n, "config") + " on the Pareto frontier"
	}
	form := 1 // the verbs agree with the pool
	if n == 1 {
		form = 0
	}
	// No failover anywhere is no data, never the lowest p99 failover.
	unmeasured := ch.objective == ObjectiveFailoverP99 && !ch.anyFailover()
	var s strings.Builder
	if unmeasured {
		fmt.Fprintf(&s, "%s: chosen from the %s", ch.configs[best].Label, pool)
	} else {
		fmt.Fprintf(&s, "%s: %s of the %s", ch.configs[best].Label, objectivePhrase(ch.objective, m), pool)
	}
	var within []string
	for _, l := range ch.c.limits(m) {
		within = append(within, l.within[form]+" ("+l.have+")")
	}
	if len(within) > 0 {
		s.WriteString(" that " + joinAnd(within))
	}
	if unmeasured {
		s.WriteString("; no run cut a holder off from its lease store, so no p99 failover was measured")
	}
	s.WriteString(ch.tieNote(best))
	fmt.Fprintf(&s, "; %s on the Pareto frontier", isAre(ch.frontier, "config"))
	if n := m.Failovers; n < MinFailoverSamples && ch.anyFailover() {
		fmt.Fprintf(&s, "; its p99 failover rests on only %s, so more seeds would firm it up", plural(n, "failover"))
	}
	s.WriteString(ch.leftOut())
	return s.String() + "."
}

// MinFailoverSamples is how many failovers a recommended configuration
// should have seen for its p99 failover to mean much; with fewer, the
// explanation says so.
const MinFailoverSamples = 20

// anyFailover reports whether any configuration that takes part saw a
// failover: if none did, the workload has no crashes to fail over from,
// and more seeds would not help.
func (ch *choice) anyFailover() bool {
	for _, i := range ch.eligible {
		if ch.configs[i].Metrics.Failovers > 0 {
			return true
		}
	}
	return false
}

// tieNote says how a tie on the objective was broken, or "".
func (ch *choice) tieNote(best int) string {
	pool := ch.feasible
	if !ch.paretoObjective() {
		pool = ch.candidates
	}
	objs := order(ch.objective)
	tied := []int{}
	for _, i := range pool {
		if i != best && value(ch.configs[i].Metrics, objs[0]) == value(ch.configs[best].Metrics, objs[0]) {
			tied = append(tied, i)
		}
	}
	if len(tied) == 0 {
		return ""
	}
	n := len(tied)
	for _, o := range objs[1:] {
		v := value(ch.configs[best].Metrics, o)
		tied = slices.DeleteFunc(tied, func(i int) bool { return value(ch.configs[i].Metrics, o) != v })
		if len(tied) == 0 {
			return fmt.Sprintf("; it ties with %s on %s and has %s", plural(n, "other"), objectiveName(objs[0]), tieBreakPhrase(o))
		}
	}
	return fmt.Sprintf("; it ties with %s on every measure and comes first in the grid", plural(n, "other"))
}

// none says why nothing is recommended.
func (ch *choice) none() string {
	valid := 0
	var reason string
	for _, c := range ch.configs {
		if c.Valid {
			valid++
		} else if reason == "" {
			reason = c.InvalidReason
		}
	}
	switch {
	case len(ch.configs) == 0:
		return "No recommendation: the grid is empty."
	case valid == 0:
		return fmt.Sprintf("No recommendation: none of the %s is valid (%s).", plural(len(ch.configs), "config"), reason)
	case len(ch.eligible) == 0 && ch.violating > 0:
		who := fmt.Sprintf("every one of the %d valid configs", valid)
		if valid == 1 {
			who = "the only valid config"
		}
		return fmt.Sprintf("No recommendation: %s violated a property; see the violations and their replay commands.", who)
	case len(ch.eligible) == 0:
		return "No recommendation: the tuning run was interrupted before every config ran on every seed."
	}
	return ch.noneFeasible()
}

// noneFeasible says which constraints excluded the configurations, and
// which one came closest.
func (ch *choice) noneFeasible() string {
	var parts []string
	var sample []limit
	for _, i := range ch.eligible {
		sample = ch.c.limits(ch.configs[i].Metrics)
		break
	}
	for k, l := range sample {
		count := 0
		for _, i := range ch.eligible {
			if lk := ch.c.limits(ch.configs[i].Metrics)[k]; lk.metric > lk.max {
				count++
			}
		}
		if count > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count, l.exceeds[min(count-1, 1)]))
		}
	}
	closest := slices.MinFunc(ch.eligible, func(a, b int) int {
		ea, eb := ch.c.excess(ch.configs[a].Metrics), ch.c.excess(ch.configs[b].Metrics)
		if ea != eb {
			if ea < eb {
				return -1
			}
			return 1
		}
		return ch.compare(a, b)
	})
	var have []string
	for _, l := range ch.c.exceeded(ch.configs[closest].Metrics) {
		have = append(have, l.have)
	}
	s := fmt.Sprintf("No recommendation: none of the %s meets the constraints (%s); the closest is %s (%s)",
		plural(len(ch.eligible), "valid config"), joinAnd(parts), ch.configs[closest].Label, joinAnd(have))
	return s + ch.leftOut() + "."
}

// leftOut says which completed configurations took no part, or "".
func (ch *choice) leftOut() string {
	var s string
	if ch.violating > 0 {
		s += fmt.Sprintf("; %s that violated a property %s left out", plural(ch.violating, "config"), verb(ch.violating))
	}
	if ch.unsampled > 0 {
		s += fmt.Sprintf("; %s that saw no failover %s left out (more seeds would give %s some)",
			plural(ch.unsampled, "config"), verb(ch.unsampled), pronoun(ch.unsampled))
	}
	return s
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// objectiveName names an objective's metric: "p99 failover".
func objectiveName(o Objective) string {
	switch o {
	case ObjectiveReexecuted:
		return "re-executed work"
	case ObjectiveStoreWrites:
		return "store writes"
	case ObjectiveTaskLatencyP99:
		return "p99 task latency"
	case ObjectiveFalseSuspicions:
		return "false suspicions"
	case ObjectiveDetectionMax:
		return "longest detection"
	}
	return "p99 failover"
}

// objectivePhrase is "the lowest p99 failover (5.9 s)" and the like.
func objectivePhrase(o Objective, m Metrics) string {
	switch o {
	case ObjectiveReexecuted:
		return "the least re-executed work (" + formatPercent(m.ReexecutedFraction) + " of unit executions)"
	case ObjectiveStoreWrites:
		return "the fewest store writes (" + formatRate(m.StoreWritesPerWorkloadSecond) + ")"
	case ObjectiveTaskLatencyP99:
		return "the lowest p99 task latency (" + formatSeconds(m.TaskLatencyP99) + ")"
	case ObjectiveFalseSuspicions:
		return "the fewest false suspicions (" + strconv.Itoa(m.FalseSuspicions) + ")"
	case ObjectiveDetectionMax:
		return "the shortest longest detection (" + formatSeconds(m.DetectionMax) + ")"
	}
	return "the lowest p99 failover (" + formatSeconds(m.FailoverP99) + ")"
}

// tieBreakPhrase says what won a tie.
func tieBreakPhrase(o Objective) string {
	switch o {
	case ObjectiveReexecuted:
		return "the least re-executed work"
	case ObjectiveStoreWrites:
		return "the fewest store writes"
	case ObjectiveTaskLatencyP99:
		return "the lowest p99 task latency"
	case ObjectiveFalseSuspicions:
		return "the fewest false suspicions"
	case ObjectiveDetectionMax:
		return "the shortest longest detection"
	}
	return "the lowest p99 failover"
}

// formatSeconds writes a duration in seconds to about three significant
// digits: "5.9 s", "0.512 s", "120 s".
func formatSeconds(d time.Duration) string { return formatSig(d.Seconds()) + " s" }

// formatRate writes a rate per second: "3.1/s".
func formatRate(v float64) string { return formatSig(v) + "/s" }

// formatPercent writes a fraction as a percentage: "1.2%".
func formatPercent(f float64) string { return formatSig(f*100) + "%" }

// formatSig writes v with about three significant digits and no trailing
// zeros, never in exponent form.
func formatSig(v float64) string {
	decimals := 0
	switch a := math.Abs(v); {
	case a == 0 || a >= 100:
	case a >= 10:
		decimals = 1
	case a >= 1:
		decimals = 2
	default:
		decimals = min(3-int(math.Floor(math.Log10(a)))-1, 9)
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// plural writes "1 config" or "3 configs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// isAre writes "1 config is" or "5 configs are".
func isAre(n int, noun string) string { return plural(n, noun) + " " + verb(n) }

func verb(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
