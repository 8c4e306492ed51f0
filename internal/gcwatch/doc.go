// Package gcwatch observes the garbage collector without forcing it, for
// tests that assert a memory property: how many cycles have completed, and
// the live heap the latest cycle found (runtime/metrics). A test reads
// enough that the work's own allocations trigger collections, then asserts
// on what those collections saw; [Churn] triggers collections the way
// ordinary work does, by allocating short-lived garbage, never by calling
// runtime.GC. Benchmarks that want an exact figure may still force one.
package gcwatch
