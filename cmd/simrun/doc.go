// Command simrun is leasesim's command line. It is thin: the work is done
// by packages scenarios (one run), sweep (many runs, merging), faults
// (schedules, shrinking), workload and tune (replayed workloads, the config
// grid) and reports (rendering).
//
//	simrun run     [--scenario NAME] [--seed N|random] [--impl NAME] [--schedule FILE] [--out DIR] [--json] [--trace FILE] [--unknown fail|pass]
//	simrun run     --workload FILE --ttl D --renew D|ttl/N --checkpoint Nu|D|none [--rho F] [--margin D] [--seed N] [--impl NAME] [--out DIR]
//	simrun sweep   [--scenario NAME|all] [--seeds SEEDS] [--impl NAME] [--parallel N] [--shard I/N] [--out DIR] [--json] [--verify-determinism]
//	simrun replay  DIR|DIR/run.json | --scenario NAME --seed N [--impl NAME] [--json] [--unknown fail|pass]
//	simrun shrink  [--scenario NAME] [--seed N] [--impl NAME] [--out DIR] [--max-attempts N] [--json]
//	simrun list    [--json] [--impl NAME] [--zoo-dir DIR] [--pkg DIR]
//	simrun merge   FILE... [--json] [--out DIR]
//	simrun tune    --workload FILE [--ttl LIST] [--renew LIST] [--checkpoint LIST] [--seeds SEEDS] [--objective ...] [--max-store-writes N/s] [--json] [--out DIR]
//	simrun workload gen [flags] [-o FILE]
//	simrun workload from-events LOG [-o FILE]
//	simrun completion bash|zsh|fish|powershell
//	simrun --version
//
// run defaults to the swarm scenario, seed 1, and the correct
// implementation; sweep to every scenario and seeds 1-100 on every core.
// Seeds are read the same way everywhere: N, a range A-B, or a list such
// as 1-5,9; "random" (and "random:N" for a set) draws seeds once from
// crypto/rand and prints them first, with the flag that repeats them.
// --impl takes "correct" or "mutant/NAME"; simrun list shows them all.
// --json prints exactly one JSON object on stdout (anything else goes to
// stderr). -v logs the seed, the derived seeds and the sweep to stderr.
// Every printed simrun line names the CLI as it was invoked (bin/simrun,
// ./simrun), so that it runs as pasted from the same directory.
//
// Goroutine-host implementations: --impl also takes the names a zoo module
// declares in zoo/NAME/leasesim.json (ordinary Go lease code run by package
// gohost; simrun list shows them, simrun list --impl NAME their scenarios).
// simrun builds the module's test binary (go test -c, cached) and runs its
// worker test in worker processes; --zoo-dir DIR looks for modules in DIR
// instead of the zoo/ of the leasesim module around the working directory:
//
//	simrun run    --impl NAME --scenario S [--seed N] [--schedule FILE] [--out DIR] [--json] [--zoo-dir DIR]
//	simrun replay --impl NAME --scenario S --seed N [--schedule FILE] [--hash H] [--json]
//	simrun shrink --impl NAME --scenario S --seed N [--out DIR] [--max-attempts N] [--json]
//	simrun sweep  --impl NAME [--scenario S|all] [--seeds SEEDS] [--parallel N] [--shard I/N]
//	              [--out DIR] [--verify-determinism] [--rerun-failures SUMMARY.json] [--json]
//
// A user's own package runs the same way with no manifest: --pkg DIR (on
// run, replay, shrink, sweep and list) takes a Go package directory in any
// module whose test TestLeasesimWorker calls scenarios.Worker (the one
// line of glue). The implementation is named after the last element of the
// package's import path; --impl and --zoo-dir are refused with --pkg;
// without --scenario, a package with one scenario runs it; printed lines
// repeat --pkg DIR as given. A DIR that is not a package of a module, does
// not build (the compiler's output follows), lacks the worker test or
// lists no scenarios exits 2 naming --pkg:
//
//	simrun list   --pkg DIR [--json]
//	simrun sweep  --pkg DIR [--scenario S|all] [--seeds SEEDS] ...
//	simrun shrink --pkg DIR [--scenario S] --seed N [--out DIR]
//
// Every run is run twice in its worker process and its determinism is
// verified (or reported diverged, which fails it); replay --hash compares
// with the hash run, sweep or shrink printed. Their replay lines are replay
// lines with --hash. The worker hands each seed's history file back, and
// simrun judges it as simrun check judges a file: run --out writes
// report.html, history.jsonl and the other report files from it, and
// simrun check DIR/history.jsonl gives the same verdicts and report. A
// sweep goes through package sweep as the event host's does (its summary,
// shards, merge, --rerun-failures, --out with failing runs' report
// directories), one worker process per seed, --parallel at once;
// --verify-determinism runs each seed in a second worker process too and
// compares the trace hashes. Not for these: --trace (no kernel trace).
//
// Exit codes (one rule for verdicts, exitForVerdicts):
//
//	0  every property held (replay: the trace hash is identical and the replayed run passed;
//	   shrink: a schedule was written). A verdict that only says a run exceeded an assumption
//	   (P1 under drift beyond rho) is counted and shown apart and never fails.
//	1  a property was violated, a run stopped at a limit, or a property was unknown (no data,
//	   a timeout, a premise that did not happen) under --unknown=fail, the default: unknown is
//	   never a pass (replay: also when the trace hash differs)
//	2  bad usage or bad input, with a message naming the flag, file, line or field
//	   (shrink: the seed violates nothing, so there is nothing to shrink)
//	3  an internal error, including a bug of the harness itself (recognised by where the panic
//	   came from, never blamed on the implementation), or a sweep interrupted (Ctrl-C) before it
//	   found a failure: it neither passed nor finished, and its partial summary says PARTIAL
package main
