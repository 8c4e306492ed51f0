// Package sweep runs many seeds of many scenarios in parallel and summarises
// them: failures by property with their seeds, throughput, acceleration,
// determinism checks, and aggregate metrics. Each seed runs single-threaded
// in its own world; only independent seeds run in parallel, so a sweep's
// results do not depend on scheduling. Summaries of shards merge into the
// summary of the whole sweep.
//
// [Run] takes a [Config]: the scenarios, the implementation, a seed set
// ([ParseSeeds] reads "N", "A-B" or "1-5,9") and a [Shard] of it ([ParseShard] reads "I/N";
// shards interleave, shard I of N taking the seeds whose offset from the
// first is I-1 modulo N). Results are aggregated in (scenario, seed) order,
// so the [Summary] is identical at any parallelism apart from its
// wall-clock fields. Memory and summary size stay flat: each outcome is
// reduced to a few numbers as soon as its run ends, runs may finish at most
// a fixed window ahead of the oldest unfinished one, distributions are
// fixed-size mergeable histograms (internal/dist: exact counts, quantiles
// within 1%), and lists are bounded ([MaxFailures], [MaxSeedRanges],
// [MaxReasons]) with a count of the rest. Cancelling the context stops the
// sweep and returns a summary marked Partial that covers exactly the
// finished runs; a harness bug stops it with an error.
//
// [Merge] and [Merger] combine shard summaries exactly, one at a time: a
// merge that lacks a shard of N is Partial and names the missing shards,
// and a shard given twice is an error.
//
// This package reads the wall clock and starts goroutines: it is the
// parallel driver around the simulated path, not part of it.
package sweep
