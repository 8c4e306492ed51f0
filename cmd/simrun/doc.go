// Command simrun is leasesim's command line. It is thin: the work is done
// by packages scenarios (one run), sweep (many runs, merging), faults
// (schedules, shrinking), workload and tune (replayed workloads, the config
// grid) and reports (rendering).
//
//	simrun run     [--scenario NAME] [--seed N] [--impl NAME] [--schedule FILE] [--out DIR] [--json] [--trace FILE]
//	simrun sweep   [--scenario NAME|all] [--seeds A-B] [--impl NAME] [--parallel N] [--shard I/N] [--out DIR] [--json] [--verify-determinism]
//	simrun replay  DIR | --scenario NAME --seed N [--impl NAME]
//	simrun shrink  [--scenario NAME] [--seed N] [--impl NAME] [--out DIR] [--max-attempts N]
//	simrun list    [--json]
//	simrun merge   FILE... [--json] [--out DIR]
//	simrun tune    --workload FILE [--ttl LIST] [--renew LIST] [--checkpoint LIST] [--seeds N] [--objective ...] [--max-store-writes N/s] [--json] [--out DIR]
//	simrun workload gen [flags] [-o FILE]
//	simrun workload from-events LOG [-o FILE]
//
// run defaults to the swarm scenario, seed 1, and the correct
// implementation; sweep to every scenario and seeds 1-100 on every core.
// --impl takes "correct" or "mutant/NAME"; simrun list shows them all.
// --json prints exactly one JSON object on stdout (anything else goes to
// stderr). -v logs the seed, the derived seeds and the sweep to stderr.
//
// Exit codes:
//
//	0  every property held (replay: the trace hash is identical; shrink: a schedule was written)
//	1  a property was violated or a run stopped at a limit (replay: the trace hash differs)
//	2  bad usage or bad input, with a message naming the flag, file, line or field
//	   (shrink: the seed violates nothing, so there is nothing to shrink)
//	3  an internal error, or a sweep interrupted (Ctrl-C) before it found a failure:
//	   it neither passed nor finished, and its partial summary says PARTIAL
package main
