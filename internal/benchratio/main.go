// Command benchratio reads `go test -bench` output on stdin, echoes it, and
// then prints the ratios the kernel's performance targets are stated in,
// computed from figures measured in that same run:
//
//	go test -run '^$' -bench . -benchmem ./sim/ | go run ./internal/benchratio
//
// Comparing figures from one run on one machine is the point: absolute
// nanoseconds drift with the hardware and its load, ratios much less.
// Benchmarks that appear several times (-count) are summarised by their
// median. It exits 1 when the input reports a failure or holds no
// benchmark, so that a pipeline cannot hide a broken benchmark; a missed
// target is reported but is not a failure, because a shared machine's noise
// must not break the build.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
}

// The benchmarks the ratios are made of, without the "Benchmark" prefix.
const (
	kernelStorm   = "KernelHeartbeatStorm"
	bareStorm     = "BareHeapHeartbeatStorm"
	synctestStorm = "SynctestHeartbeatStorm"
	messageStorm  = "KernelMessageStorm"
	// From ./scenarios and ./checker.
	swarmChecked   = "Scenario/swarm/checked"
	swarmUnchecked = "Scenario/swarm/unchecked"
	linearize100k  = "Linearizability100k"
	// The same lease workload on leasesim and as plain goroutines under
	// testing/synctest (./scenarios).
	leaseSim      = "LeaseWorkload/leasesim"
	leaseSynctest = "LeaseWorkload/synctest"
	// The 500-contender herd's memory (./scenarios) and a catalogue sweep's
	// throughput under simrun's GC policy (./sweep).
	herd500 = "Herd500"
	sweep   = "Sweep"
	// zoo/k8s: client-go's election under the goroutine host and under
	// plain testing/synctest over simnet, the host's network on its own.
	electionGohost = "Election/gohost"
	electionSimnet = "Election/simnet"
)

// gcPolicies are the garbage collector settings a benchmark of ./scenarios
// may run under, as the suffix or the sub-benchmark that names them
// (internal/batchgc is simrun's), with the label the report gives them.
var gcPolicies = []struct{ swarm, herd, policy, label string }{
	{"ScenarioBatchGC/swarm/checked", herd500 + "/batch-gc", "batch-gc", "simrun's GC"},
	{swarmChecked, herd500 + "/default-gc", "default-gc", "GOGC=100"},
}

// results maps a benchmark name (without "Benchmark" and the -GOMAXPROCS
// suffix) to its metrics by unit, one value per line the benchmark printed.
type results map[string]map[string][]float64

// errFailed says the input reported a failing test or benchmark.
var errFailed = errors.New("the benchmark run reported a failure")

// run echoes in to out, then appends the ratio report.
func run(in io.Reader, out io.Writer) error {
	res := make(results)
	failed := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if _, err := fmt.Fprintln(out, line); err != nil {
			return err
		}
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "panic:") {
			failed = true
		}
		if name, metrics, ok := parseLine(line); ok {
			if res[name] == nil {
				res[name] = make(map[string][]float64)
			}
			for unit, v := range metrics {
				res[name][unit] = append(res[name][unit], v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read stdin: %w", err)
	}
	if len(res) == 0 {
		return errors.New("no benchmark results on stdin")
	}
	if err := report(out, res); err != nil {
		return err
	}
	if failed {
		return errFailed
	}
	return nil
}

// parseLine parses one benchmark result line:
//
//	BenchmarkName-8   1000   52.1 ns/op   0 B/op   52.1 ns/event
//
// into the name without prefix and suffix, and its value per unit.
func parseLine(line string) (string, map[string]float64, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return "", nil, false
	}
	if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
		return "", nil, false // not an iteration count: some other line
	}
	name := strings.TrimPrefix(f[0], "Benchmark")
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	metrics := make(map[string]float64)
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return "", nil, false
		}
		metrics[f[i+1]] = v
	}
	return name, metrics, true
}

// metric returns the median of a benchmark's values in unit.
func (r results) metric(name, unit string) (float64, bool) {
	vs := r[name][unit]
	if len(vs) == 0 {
		return 0, false
	}
	vs = slices.Sorted(slices.Values(vs))
	mid := len(vs) / 2
	if len(vs)%2 == 0 {
		return (vs[mid-1] + vs[mid]) / 2, true
	}
	return vs[mid], true
}

// row is one line of the report: a figure, its target and whether it is met.
type row struct {
	name, value, target string
	met                 string // "ok", "MISSED" or "" when there is no target
}

// ratioRows computes the report's rows from whatever benchmarks are present.
func ratioRows(r results) []row {
	var rows []row
	kernel, haveKernel := r.metric(kernelStorm, "ns/event")
	if haveKernel {
		rows = append(rows, row{name: "kernel heartbeat storm", value: fmt.Sprintf("%.1f ns/event, %.3g events/s", kernel, 1e9/kernel)})
		if allocs, ok := r.metric(kernelStorm, "allocs/event"); ok {
			rows = append(rows, row{"kernel allocs/event", fmt.Sprintf("%.4f", allocs), "0 (steady state)", verdict(allocs < 0.001)})
		}
	}
	if bare, ok := r.metric(bareStorm, "ns/event"); ok && haveKernel {
		ratio := kernel / bare
		rows = append(rows, row{"kernel / bare heap (ns per event)", fmt.Sprintf("%.2fx (%.1f / %.1f ns)", ratio, kernel, bare), "<= 2x", verdict(ratio <= 2)})
	}
	if st, ok := r.metric(synctestStorm, "ns/wakeup"); ok && haveKernel {
		ratio := st / kernel
		rows = append(rows, row{"synctest / kernel (ns per wakeup)", fmt.Sprintf("%.1fx (%.1f / %.1f ns)", ratio, st, kernel), ">= 10x", verdict(ratio >= 10)})
	}
	if eps, ok := r.metric(messageStorm, "events/s"); ok {
		value := fmt.Sprintf("%.3g events/s", eps)
		if allocs, ok := r.metric(messageStorm, "allocs/event"); ok {
			value += fmt.Sprintf(", %.4f allocs/event", allocs)
		}
		rows = append(rows, row{name: "kernel message storm", value: value})
	}
	rows = append(rows, checkingRows(r)...)
	rows = append(rows, perEventRows(r, kernel, haveKernel)...)
	rows = append(rows, scaleRows(r)...)
	rows = append(rows, goroutineHostRows(r)...)
	return append(rows, scalingRows(r)...)
}

// scaleRows reports the 500-contender herd's peak memory, and what its runs
// add to the process's resident set against the heap its outcome (nearly
// all of it the history) keeps, and how long a sweep
// of the catalogue over seeds 1-1000 takes at the measured rate.
func scaleRows(r results) []row {
	var rows []row
	for _, gc := range gcPolicies {
		peak, ok := r.metric(gc.herd, "peak-RSS-MB")
		if !ok {
			continue
		}
		rows = append(rows, row{"herd-500 peak resident set, " + gc.label, fmt.Sprintf("%.0f MB", peak), "< 120 MB", verdict(peak < 120)})
		base, ok := r.metric(gc.herd, "base-RSS-MB")
		if history, hok := r.metric(gc.herd, "outcome-MB"); ok && hok && history > 0 {
			ratio := (peak - base) / history
			rows = append(rows, row{"herd-500 peak above the process's base / its history's heap, " + gc.label,
				fmt.Sprintf("%.1fx ((%.0f - %.0f) / %.1f MB)", ratio, peak, base, history), "<= 2x", verdict(ratio <= 2)})
		}
	}
	if secs, ok := r.metric(sweep, "s/1000-seeds"); ok {
		value := fmt.Sprintf("%.1f s", secs)
		if rate, ok := r.metric(sweep, "runs/s"); ok {
			value += fmt.Sprintf(" (%.0f runs/s)", rate)
		}
		rows = append(rows, row{"sweep --scenario all --seeds 1-1000, 2 workers", value, "<= 25 s", verdict(secs <= 25)})
	}
	return rows
}

// goroutineHostRows reports what the goroutine host costs over the same
// code and the same network without it (zoo/k8s's BenchmarkElection).
func goroutineHostRows(r results) []row {
	host, ok1 := r.metric(electionGohost, "ns/op")
	plain, ok2 := r.metric(electionSimnet, "ns/op")
	if !ok1 || !ok2 || plain <= 0 {
		return nil
	}
	ratio := host / plain
	rows := []row{{"k8s election: gohost / synctest over simnet (per run)",
		fmt.Sprintf("%.2fx (%.1f / %.1f ms)", ratio, host/1e6, plain/1e6), "<= 1.3x", verdict(ratio <= 1.3)}}
	// The same in the process's CPU time, which a loaded machine distorts
	// less than the wall clock; reported beside it, with no target of its own.
	hostRate, ok1 := r.metric(electionGohost, "sim-s/cpu-s")
	plainRate, ok2 := r.metric(electionSimnet, "sim-s/cpu-s")
	if ok1 && ok2 && hostRate > 0 {
		rows = append(rows, row{name: "k8s election: gohost / synctest over simnet (CPU time)",
			value: fmt.Sprintf("%.2fx (%.0f / %.0f sim-s per CPU-s)", plainRate/hostRate, plainRate, hostRate)})
	}
	return rows
}

// perEventRows reports what one kernel event of the default scenario costs,
// checked, against the kernel's own event measured in the same run, and
// leasesim against the same lease workload under testing/synctest.
func perEventRows(r results, kernel float64, haveKernel bool) []row {
	var rows []row
	for _, gc := range gcPolicies {
		if ns, ok := r.metric(gc.swarm, "ns/event"); ok && haveKernel && kernel > 0 {
			ratio := ns / kernel
			rows = append(rows, row{"swarm checked / kernel (ns per event), " + gc.label, fmt.Sprintf("%.1fx (%.0f / %.1f ns)", ratio, ns, kernel), "<= 8x", verdict(ratio <= 8)})
		}
	}
	if allocs, ok := r.metric(swarmChecked, "allocs/event"); ok {
		value := fmt.Sprintf("%.2f", allocs)
		if bytes, ok := r.metric(swarmChecked, "B/event"); ok {
			value += fmt.Sprintf(" (%.0f B/event)", bytes)
		}
		rows = append(rows, row{"swarm checked allocs/event", value, "<= 1", verdict(allocs <= 1)})
	}
	sim, ok1 := r.metric(leaseSim, "ns/op")
	st, ok2 := r.metric(leaseSynctest, "ns/op")
	if ok1 && ok2 && sim > 0 {
		ratio := st / sim
		rows = append(rows, row{"lease workload: synctest / leasesim (per run)", fmt.Sprintf("%.1fx (%.1f / %.1f ms)", ratio, st/1e6, sim/1e6), ">= 4x", verdict(ratio >= 4)})
	}
	return rows
}

// checkingRows reports the default scenario's speed and what checking costs.
func checkingRows(r results) []row {
	var rows []row
	if acc, ok := r.metric(swarmChecked, "acceleration"); ok {
		rows = append(rows, row{"swarm acceleration, checked (sim s / wall s)", fmt.Sprintf("%.0fx", acc), ">= 20000x", verdict(acc >= 20000)})
	}
	checked, ok1 := r.metric(swarmChecked, "ns/op")
	unchecked, ok2 := r.metric(swarmUnchecked, "ns/op")
	if ok1 && ok2 && unchecked > 0 {
		extra := checked/unchecked - 1
		rows = append(rows, row{"checking / simulation time (swarm)", fmt.Sprintf("%.0f%% (%.1f ms checked, %.1f ms not)", 100*extra, checked/1e6, unchecked/1e6),
			"<= 50%", verdict(extra <= 0.5)})
	}
	if ns, ok := r.metric(linearize100k, "ns/op"); ok {
		rows = append(rows, row{"P3 porcupine check, 100,000 operations", fmt.Sprintf("%.0f ms", ns/1e6), "a few seconds", verdict(ns <= 3e9)})
	}
	return rows
}

func verdict(met bool) string {
	if met {
		return "ok"
	}
	return "MISSED"
}

// report writes the ratio table.
func report(out io.Writer, r results) error {
	rows := ratioRows(r)
	if len(rows) == 0 {
		_, err := fmt.Fprintln(out, "\nbenchratio: none of the kernel benchmarks ran; no ratios to report")
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nfigure\tmeasured in this run\ttarget\t")
	for _, rw := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", rw.name, rw.value, rw.target, rw.met)
	}
	return tw.Flush()
}
