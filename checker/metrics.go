package checker

import (
	"slices"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/dist"
)

// Metrics summarise one run, or many merged, for reports, sweeps and the
// tuner. JSON names are snake_case and stable. Every duration is a
// time.Duration, encoded as integer nanoseconds, and its JSON name ends in
// _ns; rates end in _per_s (per simulated second). A key means the same in
// a run's, a sweep's and a tuning run's JSON (tune.Metrics embeds these and
// adds its per-workload-second rate under a key of its own).
//
// The percentiles are nearest-rank over the samples. The samples are kept
// (sorted) so that Merge and Aggregate can compute exact percentiles over
// many seeds; they stay out of the JSON.
type Metrics struct {
	// Runs is how many runs were merged into these metrics (1 for one run).
	Runs int `json:"runs"`
	// SimTime is the simulated time covered, summed over runs.
	SimTime time.Duration `json:"sim_time_ns"`

	// Acquisitions counts new grants: successful acquires that issued a
	// token, not the re-confirmations of a holder's own current grant.
	Acquisitions int `json:"acquisitions"`
	// Renewals counts renewals that worked: the grantor accepted them and
	// the reply reached the holder.
	Renewals int `json:"renewals"`
	// RenewalFailures counts the other processed renewals: refused by the
	// grantor (any error), or accepted but with a reply that never reached
	// the holder, which timed out. Renewals lost before the grantor
	// processed them are not in the history and are not counted.
	RenewalFailures int `json:"renewal_failures"`
	// FalseExpirations counts beliefs that ended while their holder was
	// alive and still wanted the lease: by its own deadline, or because
	// the grantor refused a renewal (end reasons deadline and lost; not a
	// crash, a release, a fence or the end of the run).
	FalseExpirations int `json:"false_expirations"`
	// Fenced counts operations answered with ErrFenced, by the grantor or
	// the fenced store.
	Fenced int `json:"fenced"`

	// Failovers counts failover samples: a holder cut off from the lease
	// store (its crash, its isolation or the grantor's, a partition between
	// them; on a replicated store, whatever leaves it fewer than a quorum
	// of the members) while it believed it held a resource, until the resource is
	// held again: the next new grant to another holder, or a grant to the
	// same holder for a request it sent after the cut (restarted or
	// reconnected, it took its lease back).
	Failovers int `json:"failovers"`
	// FailoversUnresolved counts cut-off holders whose resource was not
	// held again before the run ended.
	FailoversUnresolved int           `json:"failovers_unresolved"`
	FailoverP50         time.Duration `json:"failover_p50_ns"`
	FailoverP99         time.Duration `json:"failover_p99_ns"`
	FailoverMax         time.Duration `json:"failover_max_ns"`
	FailoverMean        time.Duration `json:"failover_mean_ns"`

	// UnitsExecuted counts unit executions, re-executions included.
	UnitsExecuted int `json:"units_executed"`
	// UnitsReexecuted counts executions of a unit that had executed before
	// (see AtLeastOnce), and ReexecutedFraction is their share of
	// UnitsExecuted.
	UnitsReexecuted    int     `json:"units_reexecuted"`
	ReexecutedFraction float64 `json:"reexecuted_fraction"`
	// Handoffs counts new grants on tasks on which work had been done.
	Handoffs int `json:"handoffs"`
	// DuplicateEffects counts unfenced side effects performed again: every
	// performance of a (resource, id) after its first.
	DuplicateEffects int `json:"duplicate_effects"`

	// StoreWrites counts the grantor's durable writes (syncs), the load on
	// the lease store, and StoreWritesPerSecond divides it by SimTime.
	StoreWrites          uint64  `json:"store_writes"`
	StoreWritesPerSecond float64 `json:"store_writes_per_s"`

	// TasksCompleted counts completed tasks, and TaskLatencyP50/P99 are
	// their completion latencies (Done − Arrival). TasksUnfinished counts
	// tasks that arrived but never completed.
	TasksCompleted  int           `json:"tasks_completed"`
	TasksUnfinished int           `json:"tasks_unfinished"`
	TaskLatencyP50  time.Duration `json:"task_latency_p50_ns"`
	TaskLatencyP99  time.Duration `json:"task_latency_p99_ns"`

	// FalseSuspicions counts P7's false suspicions (a member declared dead
	// while it renewed within its rules) and FalseSuspicionTime is how
	// long they lasted, summed. Detections counts P8's stops declared dead
	// within the bound, and DetectionP50/Max are their detection times,
	// from the stop to the declaration. All are absent from the JSON (zero)
	// on a history that is not a failure detector's (no detect_bound_ns).
	FalseSuspicions    int           `json:"false_suspicions,omitempty"`
	FalseSuspicionTime time.Duration `json:"false_suspicion_ns,omitempty"`
	Detections         int           `json:"detections,omitempty"`
	DetectionP50       time.Duration `json:"detection_p50_ns,omitempty"`
	DetectionMax       time.Duration `json:"detection_max_ns,omitempty"`

	// NotApplicable names the metrics (by JSON key) the history cannot
	// measure, each with why: they are not zero, they are unknown (the
	// lease store's operations are not recorded, the host does not count
	// the store's durable writes). Merged runs keep every run's.
	NotApplicable map[string]string `json:"not_applicable,omitempty"`

	// FailoverSamples, TaskLatencySamples and DetectionSamples are the
	// sorted samples behind the percentiles.
	FailoverSamples    []time.Duration `json:"-"`
	TaskLatencySamples []time.Duration `json:"-"`
	DetectionSamples   []time.Duration `json:"-"`
}

// Measure computes the metrics of one run from its history.
func Measure(h *history.History) Metrics { return measure(newAnalysis(h)) }

// measure is Measure on an analysis that the checkers may share (Judge).
func measure(a *analysis) Metrics {
	h := a.h
	m := Metrics{Runs: 1, SimTime: time.Duration(h.End), StoreWrites: h.GrantorSyncs}
	if leasesimProtocol(a) {
		m.countOps(a)
	} else {
		m.countFenced(a)
		m.countForeign(a)
	}
	for i := range h.Beliefs {
		if r := h.Beliefs[i].Reason; r == history.EndDeadline || r == history.EndLost {
			m.FalseExpirations++
		}
	}
	m.FailoverSamples, m.FailoversUnresolved = failovers(a)
	rw := a.rework()
	m.UnitsExecuted, m.UnitsReexecuted, m.Handoffs = len(h.Units), rw.reexec, rw.handoffs
	m.DuplicateEffects = a.duplicateEffects()
	for _, t := range h.Tasks {
		switch {
		case t.Done != history.Never:
			m.TasksCompleted++
			m.TaskLatencySamples = append(m.TaskLatencySamples, t.Done.Sub(t.Arrival))
		case t.Arrival <= h.End:
			m.TasksUnfinished++
		}
	}
	slices.Sort(m.TaskLatencySamples)
	if h.Lease.DetectBound > 0 {
		m.measureDetector(h)
	}
	m.derive()
	return m
}

// measureDetector counts a failure detector's false suspicions (P7's
// scan) and its detection times (P8's), with verdicts nobody reads.
func (m *Metrics) measureDetector(h *history.History) {
	dv := newDetectorView(h)
	acc := scanAccuracy(dv, newVerdict(h, "P7"))
	m.FalseSuspicions, m.FalseSuspicionTime = acc.falseCount, acc.falseTime
	m.DetectionSamples, _, _ = scanCompleteness(dv, newVerdict(h, "P8"))
}

// countOps counts acquisitions, renewals and fenced replies.
func (m *Metrics) countOps(a *analysis) {
	grants := newGrantTracker()
	var op history.Operation
	for i, r := range a.inProcessedOrder() {
		if r.err == errIsFenced {
			m.Fenced++
		}
		if !r.grantor() {
			continue
		}
		switch r.kind {
		case opAcquire:
			if r.err != errNone {
				continue
			}
			a.h.LoadOp(i, &op)
			if kind, _ := grants.observe(&op); kind.isNew() {
				m.Acquisitions++
			}
		case opRenew:
			if r.err == errNone && r.returned() {
				m.Renewals++
			} else {
				m.RenewalFailures++
			}
		}
	}
}

// countFenced counts the operations answered with ErrFenced.
func (m *Metrics) countFenced(a *analysis) {
	for _, r := range a.rows() {
		if r.err == errIsFenced {
			m.Fenced++
		}
	}
}

// Merge adds the metrics of other runs to m; percentiles and rates are
// recomputed over everything merged. Merging in any order gives the same
// result. Merge is linear in the samples held; to merge many runs at once,
// Aggregate sorts once instead.
func (m *Metrics) Merge(o Metrics) {
	m.addCounters(o)
	m.FailoverSamples = mergeSorted(m.FailoverSamples, o.FailoverSamples)
	m.TaskLatencySamples = mergeSorted(m.TaskLatencySamples, o.TaskLatencySamples)
	m.DetectionSamples = mergeSorted(m.DetectionSamples, o.DetectionSamples)
	m.derive()
}

// Aggregate merges the metrics of many runs, as Merge would one by one.
func Aggregate(ms ...Metrics) Metrics {
	var total Metrics
	for _, m := range ms {
		total.addCounters(m)
		total.FailoverSamples = append(total.FailoverSamples, m.FailoverSamples...)
		total.TaskLatencySamples = append(total.TaskLatencySamples, m.TaskLatencySamples...)
		total.DetectionSamples = append(total.DetectionSamples, m.DetectionSamples...)
	}
	slices.Sort(total.FailoverSamples)
	slices.Sort(total.TaskLatencySamples)
	slices.Sort(total.DetectionSamples)
	total.derive()
	return total
}

// addCounters adds the counters of o to m.
func (m *Metrics) addCounters(o Metrics) {
	m.Runs += o.Runs
	m.SimTime += o.SimTime
	m.Acquisitions += o.Acquisitions
	m.Renewals += o.Renewals
	m.RenewalFailures += o.RenewalFailures
	m.FalseExpirations += o.FalseExpirations
	m.Fenced += o.Fenced
	m.FailoversUnresolved += o.FailoversUnresolved
	m.UnitsExecuted += o.UnitsExecuted
	m.UnitsReexecuted += o.UnitsReexecuted
	m.Handoffs += o.Handoffs
	m.DuplicateEffects += o.DuplicateEffects
	m.StoreWrites += o.StoreWrites
	m.TasksCompleted += o.TasksCompleted
	m.TasksUnfinished += o.TasksUnfinished
	m.FalseSuspicions += o.FalseSuspicions
	m.FalseSuspicionTime += o.FalseSuspicionTime
	for metric, why := range o.NotApplicable { // into a map: order does not matter
		m.notApplicable(metric, why)
	}
}

// derive recomputes the fields that follow from the counters and samples.
func (m *Metrics) derive() {
	m.Failovers = len(m.FailoverSamples)
	m.FailoverP50 = dist.Quantile(m.FailoverSamples, 0.5)
	m.FailoverP99 = dist.Quantile(m.FailoverSamples, 0.99)
	m.FailoverMax = dist.Quantile(m.FailoverSamples, 1)
	m.FailoverMean = mean(m.FailoverSamples)
	m.TaskLatencyP50 = dist.Quantile(m.TaskLatencySamples, 0.5)
	m.TaskLatencyP99 = dist.Quantile(m.TaskLatencySamples, 0.99)
	m.Detections = len(m.DetectionSamples)
	m.DetectionP50 = dist.Quantile(m.DetectionSamples, 0.5)
	m.DetectionMax = dist.Quantile(m.DetectionSamples, 1)
	m.ReexecutedFraction = 0
	if m.UnitsExecuted > 0 {
		m.ReexecutedFraction = float64(m.UnitsReexecuted) / float64(m.UnitsExecuted)
	}
	m.StoreWritesPerSecond = 0
	if m.SimTime > 0 {
		m.StoreWritesPerSecond = float64(m.StoreWrites) / m.SimTime.Seconds()
	}
}

// mean returns the mean of samples, 0 if there are none.
func mean(samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	return sum / time.Duration(len(samples))
}

// mergeSorted merges two sorted slices into a new sorted slice.
func mergeSorted(a, b []time.Duration) []time.Duration {
	if len(b) == 0 {
		return a
	}
	out := make([]time.Duration, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] <= b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// Add returns the merge of m and o (see Merge), leaving both unchanged:
// Merge never writes into a sample slice it was given, it builds a new one.
func (m Metrics) Add(o Metrics) Metrics {
	m.Merge(o)
	return m
}
