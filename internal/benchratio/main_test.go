package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `goos: linux
goarch: amd64
pkg: github.com/leasesim/leasesim/sim
cpu: AMD EPYC
BenchmarkKernelHeartbeatStorm-2     	20000000	        40.0 ns/op	         0 allocs/event	        40.0 ns/event	       0 B/op	       0 allocs/op
BenchmarkKernelHeartbeatStorm-2     	20000000	        44.0 ns/op	         0 allocs/event	        44.0 ns/event	       0 B/op	       0 allocs/op
BenchmarkKernelHeartbeatStorm-2     	20000000	        42.0 ns/op	         0 allocs/event	        42.0 ns/event	       0 B/op	       0 allocs/op
BenchmarkBareHeapHeartbeatStorm-2   	21000000	        56.0 ns/op	        56.0 ns/event	       0 B/op	       0 allocs/op
BenchmarkSynctestHeartbeatStorm-2   	 2000000	       520.0 ns/op	       520.0 ns/wakeup	       0 B/op	       0 allocs/op
BenchmarkKernelMessageStorm-2       	13000000	        80.0 ns/op	         0 allocs/event	  12500000 events/s	        80.0 ns/event	       0 B/op	       0 allocs/op
PASS
ok  	github.com/leasesim/leasesim/sim	5.574s
`

func TestRunEchoesAndReportsRatios(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(strings.NewReader(sample), &out))
	got := out.String()
	require.True(t, strings.HasPrefix(got, sample), "the input is echoed first, unchanged")
	report := got[len(sample):]
	assert.Contains(t, report, "kernel / bare heap (ns per event)")
	assert.Contains(t, report, "0.75x (42.0 / 56.0 ns)", "the median of three runs is 42")
	assert.Contains(t, report, "12.4x (520.0 / 42.0 ns)")
	assert.Contains(t, report, "1.25e+07 events/s")
	assert.Contains(t, report, "2.38e+07 events/s", "the heartbeat storm's rate is 1e9 / ns per event")
	assert.NotContains(t, report, "MISSED")
}

func TestRunFlagsMissedTargets(t *testing.T) {
	in := strings.ReplaceAll(sample, "56.0 ns/event", "15.0 ns/event")
	var out bytes.Buffer
	require.NoError(t, run(strings.NewReader(in), &out), "a missed target is reported, not an error")
	var line string
	for l := range strings.Lines(out.String()) {
		if strings.HasPrefix(l, "kernel / bare heap") {
			line = l
		}
	}
	assert.Contains(t, line, "2.80x (42.0 / 15.0 ns)")
	assert.Equal(t, "MISSED", strings.Fields(line)[len(strings.Fields(line))-1])
	assert.NotContains(t, strings.ReplaceAll(out.String(), line, ""), "MISSED", "only the bare-heap ratio misses")
}

func TestRunFailsOnFailureOrNoBenchmarks(t *testing.T) {
	tests := []struct {
		name, in string
		err      string
	}{
		{"empty", "", "no benchmark results"},
		{"only a failure", "--- FAIL: BenchmarkX\nFAIL\n", "no benchmark results"},
		{"failure among results", sample + "--- FAIL: BenchmarkKernelMessageStorm\nFAIL\n", "reported a failure"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(strings.NewReader(tc.in), &out)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			assert.Equal(t, tc.in, out.String()[:len(tc.in)], "the input is still echoed")
		})
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		line    string
		name    string
		metrics map[string]float64
		ok      bool
	}{
		{"BenchmarkX-8   100   5.5 ns/op   2 allocs/op", "X", map[string]float64{"ns/op": 5.5, "allocs/op": 2}, true},
		{"BenchmarkY   7   1e+06 events/s", "Y", map[string]float64{"events/s": 1e6}, true},
		{"BenchmarkA-B-4   7   1 ns/op", "A-B", map[string]float64{"ns/op": 1}, true},
		{"BenchmarkX-8   --- FAIL", "", nil, false},
		{"goos: linux", "", nil, false},
		{"BenchmarkX-8   100   fast ns/op", "", nil, false},
		{"BenchmarkX-8   100   5 ns/op 3", "", nil, false},
	}
	for _, tc := range tests {
		name, metrics, ok := parseLine(tc.line)
		assert.Equal(t, tc.ok, ok, tc.line)
		assert.Equal(t, tc.name, name, tc.line)
		assert.Equal(t, tc.metrics, metrics, tc.line)
	}
}

func TestReportWithoutKernelBenchmarks(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(strings.NewReader("BenchmarkOther-2  10  3 ns/op\n"), &out))
	assert.Contains(t, out.String(), "none of the kernel benchmarks ran")
}

func TestCheckingRows(t *testing.T) {
	in := strings.Join([]string{
		"BenchmarkScenario/swarm/checked-2   40   20000000 ns/op   30000 acceleration",
		"BenchmarkScenario/swarm/unchecked-2 40   16000000 ns/op   37500 acceleration",
		"BenchmarkLinearizability100k-2      20   60000000 ns/op",
	}, "\n")
	var out strings.Builder
	require.NoError(t, run(strings.NewReader(in), &out))
	assert.Contains(t, out.String(), "30000x")
	assert.Contains(t, out.String(), "25% (20.0 ms checked, 16.0 ms not)")
	assert.Contains(t, out.String(), "60 ms")
	assert.NotContains(t, out.String(), "MISSED")
}

func TestPerEventRows(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
		miss bool
	}{
		{"met", []string{
			"BenchmarkKernelHeartbeatStorm-2     1000   100.0 ns/op   100.0 ns/event",
			"BenchmarkScenario/swarm/checked-2   40   20000000 ns/op   700.0 ns/event   0.9 allocs/event   120 B/event",
			"BenchmarkScenario/swarm/checked-2   40   20000000 ns/op   900.0 ns/event   0.5 allocs/event   100 B/event",
			"BenchmarkScenario/swarm/checked-2   40   20000000 ns/op   800.0 ns/event   0.7 allocs/event   110 B/event",
			"BenchmarkLeaseWorkload/leasesim-2   10   2000000 ns/op",
			"BenchmarkLeaseWorkload/synctest-2   10   9000000 ns/op",
		}, []string{"8.0x (800 / 100.0 ns)", "0.70 (110 B/event)", "4.5x (9.0 / 2.0 ms)"}, false},
		{"missed", []string{
			"BenchmarkKernelHeartbeatStorm-2     1000   100.0 ns/op   100.0 ns/event",
			"BenchmarkScenario/swarm/checked-2   40   20000000 ns/op   2000 ns/event   7 allocs/event",
			"BenchmarkLeaseWorkload/leasesim-2   10   2000000 ns/op",
			"BenchmarkLeaseWorkload/synctest-2   10   3000000 ns/op",
		}, []string{"20.0x (2000 / 100.0 ns)", "7.00", "1.5x (3.0 / 2.0 ms)"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			require.NoError(t, run(strings.NewReader(strings.Join(tc.in, "\n")), &out))
			for _, w := range tc.want {
				assert.Contains(t, out.String(), w)
			}
			assert.Equal(t, tc.miss, strings.Contains(out.String(), "MISSED"))
		})
	}
}

// The herd's peak memory and the sweep's time are reported with their
// targets, from the medians of their runs.
func TestRunReportsScale(t *testing.T) {
	in := `BenchmarkHerd500/default-gc-2   	       7	 150000000 ns/op	       100.0 peak-RSS-MB	        34.0 outcome-MB	16.0 base-RSS-MB
BenchmarkHerd500/default-gc-2   	       7	 150000000 ns/op	       130.0 peak-RSS-MB	        34.0 outcome-MB	16.0 base-RSS-MB
BenchmarkHerd500/default-gc-2   	       7	 150000000 ns/op	       102.0 peak-RSS-MB	        34.0 outcome-MB	16.0 base-RSS-MB
BenchmarkHerd500/batch-gc-2   	       7	 150000000 ns/op	       60.0 peak-RSS-MB	        34.0 outcome-MB	16.0 base-RSS-MB
BenchmarkSweep-2   	       1	 566816494 ns/op	       458.7 runs/s	        28.34 s/1000-seeds
`
	var out bytes.Buffer
	require.NoError(t, run(strings.NewReader(in), &out))
	const growth = "herd-500 peak above the process's base / its history's heap, "
	lines := map[string]string{}
	for l := range strings.Lines(out.String()) {
		for _, name := range []string{"herd-500 peak resident set, GOGC=100", growth + "GOGC=100",
			growth + "simrun's GC", "sweep --scenario all"} {
			if strings.HasPrefix(l, name) {
				lines[name] = l
			}
		}
	}
	assert.Contains(t, lines["herd-500 peak resident set, GOGC=100"], "102 MB")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(lines["herd-500 peak resident set, GOGC=100"]), "ok"))
	assert.Contains(t, lines[growth+"GOGC=100"], "2.5x ((102 - 16) / 34.0 MB)")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(lines[growth+"GOGC=100"]), "MISSED"))
	assert.Contains(t, lines[growth+"simrun's GC"], "1.3x ((60 - 16) / 34.0 MB)")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(lines[growth+"simrun's GC"]), "ok"))
	assert.Contains(t, lines["sweep --scenario all"], "28.3 s (459 runs/s)")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(lines["sweep --scenario all"]), "MISSED"))
}

// Each scaling series is reported as its largest run's cost per event
// against its smallest's, whatever order the runs came in.
func TestRunReportsScalingSeries(t *testing.T) {
	in := `BenchmarkSwarmScaling/batch-gc/duration=1h0m0s-2   3   100 ns/op   900.0 ns/event
BenchmarkSwarmScaling/batch-gc/duration=10m0s-2   3   100 ns/op   800.0 ns/event
BenchmarkSwarmScaling/batch-gc/duration=6h0m0s-2   3   100 ns/op   1000.0 ns/event
BenchmarkSwarmScaling/default-gc/workers=32-2   3   100 ns/op   2000.0 ns/event   5500 ns/history-op
BenchmarkSwarmScaling/default-gc/workers=2-2   3   100 ns/op   1000.0 ns/event   5000 ns/history-op
BenchmarkSwarmScaling/default-gc/workers=8-2   3   100 ns/op   1000.0 ns/event   5200 ns/history-op
`
	var out bytes.Buffer
	require.NoError(t, run(strings.NewReader(in), &out))
	assert.Regexp(t, `swarm scaled by duration x36, simrun's GC: ns/event largest / smallest +1\.25x \(1000 / 800 ns\) +<= 1\.5x +ok`, out.String())
	assert.Regexp(t, `swarm scaled by workers x16, GOGC=100: ns/event largest / smallest +2\.00x \(2000 / 1000 ns\) +<= 1\.5x +MISSED`, out.String())
	// Per history operation, where the runs report it: no target.
	assert.Regexp(t, `swarm scaled by workers x16, GOGC=100: ns per history operation largest / smallest +1\.10x \(5500 / 5000 ns\) *\n`, out.String())
	assert.NotContains(t, out.String(), "duration x36, simrun's GC: ns per history operation")
}

// The goroutine host's cost is the median of its runs over the median of
// the same election under plain synctest over simnet.
func TestGoroutineHostRows(t *testing.T) {
	for _, tc := range []struct {
		name   string
		host   []string
		want   string
		missed bool
	}{
		{"met", []string{"24000000", "26000000", "90000000"}, "1.25x (26.0 / 20.8 ms)", false},
		{"missed", []string{"41600000"}, "2.00x (41.6 / 20.8 ms)", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in []string
			for _, ns := range tc.host {
				in = append(in, "BenchmarkElection/gohost-2   5   "+ns+" ns/op   110 requests/run   6000 sim-s/cpu-s")
			}
			in = append(in, "BenchmarkElection/simnet-2   5   20800000 ns/op   110 requests/run   9000 sim-s/cpu-s",
				"BenchmarkElection/synctest-2   5   99000000 ns/op   110 requests/run")
			var out strings.Builder
			require.NoError(t, run(strings.NewReader(strings.Join(in, "\n")), &out))
			assert.Contains(t, out.String(), "k8s election: gohost / synctest over simnet (per run)")
			assert.Contains(t, out.String(), tc.want)
			assert.Contains(t, out.String(), "1.50x (9000 / 6000 sim-s per CPU-s)")
			assert.Equal(t, tc.missed, strings.Contains(out.String(), "MISSED"))
		})
	}
}
