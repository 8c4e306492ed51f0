package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// swarmScaling is the prefix of BenchmarkSwarmScaling's runs, each named
// "policy/series=size" (./scenarios), the policy a GC policy's sub-benchmark.
const swarmScaling = "SwarmScaling/"

// scalingRows reports, for each GC policy and series of
// BenchmarkSwarmScaling, the cost per event of its largest run against its
// smallest: cost linear in events keeps it near 1. Beside it, without a
// target, the same per operation the history recorded: a series whose
// large runs record more operations per event costs more per event for
// that alone.
func scalingRows(r results) []row {
	type point struct {
		size float64
		name string
	}
	var rows []row
	for _, gc := range gcPolicies {
		series := make(map[string][]point)
		for name := range r {
			rest, ok := strings.CutPrefix(name, swarmScaling+gc.policy+"/")
			if !ok {
				continue
			}
			s, size, ok := strings.Cut(rest, "=")
			if v, isSize := parseSize(size); ok && isSize && v > 0 {
				series[s] = append(series[s], point{v, name})
			}
		}
		bySize := func(a, b point) int { return cmp.Compare(a.size, b.size) }
		for _, s := range slices.Sorted(maps.Keys(series)) {
			pts := series[s]
			small, large := slices.MinFunc(pts, bySize), slices.MaxFunc(pts, bySize)
			lo, ok1 := r.metric(small.name, "ns/event")
			hi, ok2 := r.metric(large.name, "ns/event")
			if len(pts) < 2 || !ok1 || !ok2 || lo <= 0 {
				continue
			}
			growth := hi / lo
			rows = append(rows, row{fmt.Sprintf("swarm scaled by %s x%.0f, %s: ns/event largest / smallest", s, large.size/small.size, gc.label),
				fmt.Sprintf("%.2fx (%.0f / %.0f ns)", growth, hi, lo), "<= 1.5x", verdict(growth <= 1.5)})
			opLo, ok1 := r.metric(small.name, "ns/history-op")
			opHi, ok2 := r.metric(large.name, "ns/history-op")
			if ok1 && ok2 && opLo > 0 { // what the series costs per recorded operation: no target
				rows = append(rows, row{name: fmt.Sprintf("swarm scaled by %s x%.0f, %s: ns per history operation largest / smallest", s, large.size/small.size, gc.label),
					value: fmt.Sprintf("%.2fx (%.0f / %.0f ns)", opHi/opLo, opHi, opLo)})
			}
		}
	}
	return rows
}

// parseSize reads a series' size: a duration or a count.
func parseSize(s string) (float64, bool) {
	if d, err := time.ParseDuration(s); err == nil {
		return float64(d), true
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}
