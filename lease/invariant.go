package lease

import "fmt"

// invariant panics, naming the invariant, if ok is false. Broken invariants
// are programmer errors, never operating errors.
func invariant(ok bool, name, format string, args ...any) {
	if !ok {
		panic(fmt.Sprintf("lease: invariant %s violated: %s", name, fmt.Sprintf(format, args...)))
	}
}
