// Package spares keeps a few values that finished runs hand on to later
// runs in the same process: tables without pointers (or cleared), which a
// later run reuses instead of allocating, clearing and faulting in the
// same memory again. A sweep runs thousands of runs one after another, on
// one goroutine per processor.
package spares
