// Package benchtest runs a function as a test from inside a benchmark:
// testing/synctest (and so gohost.Run) needs a *testing.T, and Go 1.26
// gives a benchmark none (the experimental synctest.Run is gone). The
// kernel's, the scenarios', the goroutine host's and the zoo modules'
// benchmarks that set leasesim against plain synctest all go through it.
package benchtest
