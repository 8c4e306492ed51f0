// Package repro builds every reproduction line leasesim prints, in one
// place, so that each runs exactly as printed when pasted into a shell:
// a simrun invocation for the CLI (named as the caller actually invoked it,
// for example bin/simrun) and a `go test -run '^TestX$/^seed=N$' ./pkg`
// line for a Go test.
package repro
