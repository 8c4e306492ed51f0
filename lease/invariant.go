package lease

import "fmt"

// violated panics, naming a broken invariant. Broken invariants are
// programmer errors, never operating errors. Callers test the invariant
// themselves and call violated only when it fails, so that the message's
// arguments are neither boxed nor formatted on the hot path:
//
//	if len(b) != 8 {
//		violated("durable-counter-format", "%d bytes", len(b))
//	}
func violated(name, format string, args ...any) {
	panic(fmt.Sprintf("lease: invariant %s violated: %s", name, fmt.Sprintf(format, args...)))
}
