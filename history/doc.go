// Package history is the record of one run that the checkers read: every
// client-visible lease-store and resource operation with its invocation and
// return in true simulated time, every unfenced side effect, every belief
// interval (when a holder believed it held which grant), every unit of work
// executed, and the faults that acted.
//
// A history is plain data. It is filled by package scenarios while a run
// goes on and read by package checker afterwards; recording it never changes
// the run, so the trace hash is the same with checking on or off.
package history
