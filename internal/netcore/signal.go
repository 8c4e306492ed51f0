package netcore

// signal wakes every goroutine waiting on it: waiters take the current
// channel under mu, broadcast closes it (and the next wait makes a new
// one). A single-slot channel would wake only one of two waiters, say a
// Read and a Write blocked on one connection when it closes.
type signal struct{ ch chan struct{} }

// wait returns the channel that the next broadcast closes. Callers hold mu.
func (s *signal) wait() <-chan struct{} {
	if s.ch == nil {
		s.ch = make(chan struct{})
	}
	return s.ch
}

// broadcast wakes every waiter. Callers hold mu.
func (s *signal) broadcast() {
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}
