package model

import "slices"

// Replayer applies one partition's operations, in one order, to a state it
// keeps and changes in place: the sequential walk a checker makes when it
// tries a single order (the order a server processed them), without
// porcupine's immutable states, so that a step boxes no state and copies
// no register cells. Its verdicts are Model.Step's, step for step.
type Replayer interface {
	// Reset returns to the model's initial state.
	Reset()
	// Step applies (input, output) and reports whether it is legal in the
	// current state, as Model.Step would. After an illegal step the state
	// is unspecified until Reset.
	Step(input, output any) bool
}

// leaseReplayer walks a lease-store partition.
type leaseReplayer struct {
	sp leaseSpec
	op func(input, output any) (LeaseInput, LeaseOutput, string)
	s  leaseState
}

func (r *leaseReplayer) Reset() { r.s = leaseState{} }

func (r *leaseReplayer) Step(input, output any) bool {
	in, out, why := r.op(input, output)
	if why != "" {
		return false
	}
	r.s, why = r.sp.step(r.s, &in, &out)
	return why == ""
}

// registerReplayer walks a fenced-register partition, writing its cells in
// place: nothing else ever sees them.
type registerReplayer struct {
	op func(input, output any) (RegisterInput, RegisterOutput, string)
	s  registerState
}

func (r *registerReplayer) Reset() { r.s = registerState{cells: r.s.cells[:0]} }

func (r *registerReplayer) Step(input, output any) bool {
	in, out, why := r.op(input, output)
	if why != "" {
		return false
	}
	c, writes, why := registerCheck(r.s, in, out)
	if why != "" {
		return false
	}
	if writes {
		r.s.set(c)
	}
	return true
}

// set writes c into s in place.
func (s *registerState) set(c cell) {
	if i, ok := s.find(c.key); ok {
		s.cells[i] = c
	} else {
		s.cells = slices.Insert(s.cells, i, c)
	}
	s.highest = max(s.highest, c.token)
}
