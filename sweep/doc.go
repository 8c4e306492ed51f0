// Package sweep runs many seeds of many scenarios in parallel and summarises
// them: failures by property with their seeds, throughput, acceleration,
// determinism checks, and aggregate metrics. Each seed runs single-threaded
// in its own world; only independent seeds run in parallel, so a sweep's
// results do not depend on scheduling. Summaries of shards merge into the
// summary of the whole sweep.
//
// This package reads the wall clock and starts goroutines: it is the
// parallel driver around the simulated path, not part of it.
package sweep
