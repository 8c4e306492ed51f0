// Package gcwatch observes the garbage collector without forcing it, for
// tests that assert a memory property: how many cycles have completed and
// the live heap the latest cycle found (runtime/metrics). [Churn] brings
// collections about the way ordinary work does, by allocating short-lived
// garbage, never by calling runtime.GC; [SettledLiveHeap] reads the live
// heap from a few such collections, the smallest reading being the closest
// to what is reachable. A test asserts on those readings with the data
// under test in hand; a benchmark that wants an exact figure may still
// force a collection.
package gcwatch
