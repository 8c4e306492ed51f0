package benchtest

import (
	"runtime"
	"sync"
	"testing"
)

// Run runs f once as the test name, through testing.RunTests (the
// exported entry point of the test runner), and reports whether it
// passed. RunTests applies the -count and -cpu flags to the tests it is
// given: a once-guard makes f run exactly once per call, at the calling
// benchmark's GOMAXPROCS, which is restored afterwards, so neither flag
// distorts the figure.
func Run(name string, f func(t *testing.T)) bool {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	var once sync.Once
	return testing.RunTests(func(string, string) (bool, error) { return true, nil },
		[]testing.InternalTest{{Name: name, F: func(t *testing.T) {
			once.Do(func() {
				runtime.GOMAXPROCS(procs)
				f(t)
			})
		}}})
}
