package checker

import "github.com/leasesim/leasesim/history"

// Linearizability is a placeholder until the porcupine checker lands; it
// answers Unknown, never OK.
func Linearizability(h *history.History, opts Options) Result {
	return todo("P3", "linearizability")
}
