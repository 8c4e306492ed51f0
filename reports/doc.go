// Package reports renders runs and sweeps for people and programs: the
// terminal summary, the stable JSON objects of the CLI contract, a
// self-contained report.html with a timeline, and a Perfetto (Chrome
// trace-event) export.
package reports
