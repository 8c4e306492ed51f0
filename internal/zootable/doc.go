// Package zootable measures a goroutine-host zoo module's scenarios for its
// RESULTS.md: every scenario over seeds 1..N, each seed run twice
// (verified), a table of verdicts per property, and the first failing
// seed shrunk and replayed. The modules' TestMeasure functions are one
// call to Measure, each with its own environment prefix.
package zootable
