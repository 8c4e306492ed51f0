package spares

import (
	"runtime"
	"sync"
)

// Spares keeps up to one value per processor (GOMAXPROCS), as many as run
// at once. Unlike a sync.Pool it keeps them through collections (a pool
// empties at the second collection after a Put, and a Get on one processor
// does not see what another put in its private slot: one swarm run in five
// or more missed the table the run before it had released, and allocated
// its own). A run too large to hand its tables on lets the spares go
// (Drop), so that they do not add to its peak. The zero value is ready to
// use, and safe for concurrent use.
type Spares[T any] struct {
	mu   sync.Mutex
	free []T
}

// Get takes a spare, if there is one.
func (s *Spares[T]) Get() (v T, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.free)
	if n == 0 {
		return v, false
	}
	v = s.free[n-1]
	clear(s.free[n-1:])
	s.free = s.free[:n-1]
	return v, true
}

// Put keeps v, unless there are spares enough.
func (s *Spares[T]) Put(v T) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.free) < runtime.GOMAXPROCS(0) {
		s.free = append(s.free, v)
	}
}

// Drop lets every spare go.
func (s *Spares[T]) Drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.free)
	s.free = s.free[:0]
}

// Len returns the number of spares kept.
func (s *Spares[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.free)
}
