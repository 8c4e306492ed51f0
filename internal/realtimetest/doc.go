// Package realtimetest holds what the tests of real-time code share: one
// lease configuration long enough that no assertion depends on how busy
// the machine is, and the runner of verdict stories whose outcome does
// depend on timing, which `make realtime-stories` repeats and reports as a
// reproduction rate instead of letting CI flake on them.
package realtimetest
