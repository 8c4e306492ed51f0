// Package truetime is true time, the one time every part of leasesim
// speaks when it says when something happened: nanoseconds since the start
// of a run, on no node's clock. The kernel keeps it (sim.Time), a history
// records it (history.Time), and both are this type, so an instant passes
// from the kernel to the history to the checkers unconverted. Nodes never
// read it: they read their own drifting clocks.
package truetime
