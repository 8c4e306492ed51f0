// Package reports renders runs and sweeps for people and programs.
//
// For one run, its Run object and its RunData: plain data only, the
// history the checkers judged (with its fault windows), the verdicts,
// metrics and coverage (NewRun), and the fault plan where it is known. Every
// host's run is drawn from these, and so is `simrun check`'s judgement of a
// history file, so a run directory's history.jsonl judged again draws the
// same report. EventRun is the event host's one adapter (its outcome and
// kernel fault log to a Run and RunData), ProcessRun the real-time host's;
// nothing else reads a host's types.
//
//   - WriteRunText: the terminal summary: the properties P1..P6 (ok,
//     violated, unknown; in colour on a terminal), each violation with its
//     evidence and the faults active then, the metrics, the run's figures,
//     its trace hash and the command that replays it.
//   - WriteRunDir: run.json (the Run object of the CLI contract),
//     schedule.json (replayable with `simrun run --schedule`; when the fault
//     plan is known), report.html, trace.perfetto.json and history.jsonl.
//   - WriteRunHTML: report.html alone: one self-contained page (inline CSS,
//     JS and SVG; no network) whose timeline has a lane per node, belief
//     intervals coloured by grant, writes (fenced ones in red), renewals,
//     checkpoints, grants, the store's accepted token, faults as shaded
//     regions, and violations as vertical lines; below it the properties,
//     the violations, the metrics, the faults and the replay command.
//   - WritePerfetto: the Chrome trace-event JSON that ui.perfetto.dev opens:
//     a process per node with tracks for beliefs, operations, requests
//     served, work units, side effects and faults.
//
// For a sweep (a sweep.Summary): WriteSweepText, and WriteSweepDir, which
// writes summary.json and sweep.html with the failures by property and by
// scenario, their replay commands, throughput, the aggregate metrics and
// histograms of failover time and of the P1 margin.
//
// Everything rendered depends only on its input: lists are sorted, maps
// are never iterated into output, and the only wall-clock figure is the
// wall time the caller passes in. The pages are html/template templates
// embedded from templates/.
package reports
