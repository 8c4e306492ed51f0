package checker

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
)

// Limits of decideByGrantorTime's own search: beyond them it leaves the
// partition to porcupine.
const (
	changersMax  = 12      // kinds of state-changing operations sharing one grantor reading
	proofStepMax = 200_000 // specification steps for one partition
)

// decideByGrantorTime decides a lease-store partition by the
// specification's rule that grantor readings never go backwards: every
// legal order sorts the operations by reading, so the only freedom left is
// the order of operations that share a reading (a grantor that resumes
// from a pause processes its whole backlog at one instant). It reports
// whether it decided; if the partition is illegal, the violation is
// recorded. It decides nothing for a fenced-register partition, or when
// the orders within a group of equal readings are too many to explore.
//
// Within a group, only operations that can change the state (a grant, a
// successful renewal, release, revocation or checkpoint) are ordered; the
// others (refusals, reads) each fit wherever the state lets them, between
// the changes. The states reachable through a group are tracked as a set:
// exactly while every group has at most one change, and as a superset
// after a group with more. A superset still proves illegality (if no
// order works from a superset, none works from the states really
// reachable); only an exact set proves legality.
func (l *linHistory) decideByGrantorTime(v *verdict, part []porcupine.Operation) bool {
	if !l.byReading || len(part) == 0 || isRegisterOp(inputOf(part[0].Input).Input.Kind) {
		return false
	}
	order := slices.Clone(part)
	slices.SortStableFunc(order, func(a, b porcupine.Operation) int {
		return cmp.Or(cmp.Compare(reading(a), reading(b)), l.compareProcessed(a, b))
	})
	if l.readingsBreakRealTime(v, order) {
		return true
	}
	p := prover{l: l, budget: proofStepMax}
	states, exact, done := []any{l.model.Init()}, true, 0
	for _, size := range groupByReading(order) {
		g := p.group(states, order[done:done+size])
		switch {
		case !g.decided:
			return false
		case g.blamed >= 0:
			l.blame(v, order, done+g.blamed, g.blamedIn)
			return true
		case len(g.next) == 0:
			l.blame(v, order, done, states[0])
			return true
		}
		states, exact, done = g.next, exact && g.exact, done+size
	}
	return exact // legal if exact; otherwise only a superset was followed: porcupine decides
}

func reading(op porcupine.Operation) int64 { return int64(outputOf(op.Output).Clock) }

// groupByReading returns the sizes of the runs of equal readings in order.
func groupByReading(order []porcupine.Operation) []int {
	var sizes []int
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && reading(order[j]) == reading(order[i]) {
			j++
		}
		sizes = append(sizes, j-i)
		i = j
	}
	return sizes
}

// changesState reports whether an operation may change the lease-store
// state: a successful grant, renewal, release, revocation or checkpoint.
// In model.LeaseStore every other operation (a refusal, a read, a query)
// leaves the state as it was but for the latest grantor reading, which
// within a group of equal readings is the same for every order.
func changesState(op porcupine.Operation) bool {
	if outputOf(op.Output).Err != "" {
		return false
	}
	switch inputOf(op.Input).Input.Kind {
	case kindAcquire, kindRenew, kindRelease, kindRevoke, kindCheckpoint:
		return true
	}
	return false
}

// readingsBreakRealTime records a violation, and reports true, if some
// operation was called after one with a strictly later grantor reading had
// already returned: real time then orders the two against their readings.
// order is sorted by reading; the earliest such operation is blamed.
func (l *linHistory) readingsBreakRealTime(v *verdict, order []porcupine.Operation) bool {
	ret := func(i int) history.Time {
		if rec := inputOf(order[i].Input); rec.Returned() {
			return rec.Return
		}
		return history.Never
	}
	// after[i]: among the operations with a reading above order[i]'s, the
	// one that returned first (-1 if none).
	after := make([]int, len(order))
	best := -1
	for i := len(order) - 1; i >= 0; {
		j := i
		for j >= 0 && reading(order[j]) == reading(order[i]) {
			after[j] = best
			j--
		}
		for k := j + 1; k <= i; k++ {
			if best < 0 || ret(k) < ret(best) {
				best = k
			}
		}
		i = j
	}
	for i, op := range order {
		j := after[i]
		if j < 0 {
			continue
		}
		if call := inputOf(op.Input).Call; call > ret(j) {
			later := inputOf(order[j].Input)
			why := fmt.Sprintf("grantor time went backwards: g=%v after g=%v (%s's %v, which returned at %v, "+
				"before this one was called at %v)", outputOf(op.Output).Clock, later.Output.Clock,
				later.Client, later.Input.Kind, later.Return, call)
			state := l.model.Init()
			for _, prev := range order[:i] {
				_, state = l.model.Step(state, prev.Input, prev.Output)
			}
			l.record(v, op, state, why, l.progress(i, len(order)), order, indices(i))
			return true
		}
	}
	return false
}

// blame records the violation of an illegal partition: from a state that
// reached the first group no order could complete (at index done), the
// operations follow in reading order, then as processed, and the first the
// specification rejects is blamed.
func (l *linHistory) blame(v *verdict, order []porcupine.Operation, done int, state any) {
	for i := done; i < len(order); i++ {
		if why := l.explainStep(state, order[i]); why != "" {
			l.record(v, order[i], state, why, l.progress(i, len(order)), order, indices(i))
			return
		}
		_, state = l.model.Step(state, order[i].Input, order[i].Output)
	}
	op := order[done]
	l.record(v, op, state, "no order of the operations sharing its grantor reading is legal",
		l.progress(done, len(order)), order, indices(done))
}

func (l *linHistory) progress(done, total int) string {
	return fmt.Sprintf("%d of the resource's %d operations linearised before it, in grantor-reading order",
		done, total)
}

// indices returns 0..n-1.
func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// prover explores the orders of operations that share a grantor reading.
type prover struct {
	l      *linHistory
	budget int // specification steps left
}

// groupResult is what one group of equal readings allows.
type groupResult struct {
	decided  bool  // false: over budget or too many changes, porcupine decides
	next     []any // the states after the group (a superset unless exact)
	exact    bool  // next is exactly the reachable set
	blamed   int   // a non-changing operation legal in no reachable state, or -1
	blamedIn any   // a state it is illegal in
}

// group follows one group of operations sharing a reading from states.
func (p *prover) group(states []any, ops []porcupine.Operation) groupResult {
	var changers, others []int
	for i, op := range ops {
		if changesState(op) {
			changers = append(changers, i)
		} else {
			others = append(others, i)
		}
	}
	if kindsOf(ops, changers) > changersMax || p.concurrentOnlyInName(ops) {
		return groupResult{}
	}
	var reached, next stateSet // every state reached within the group; the states after it
	for _, s := range states {
		if !p.orders(s, ops, changers, &reached, &next) {
			return groupResult{}
		}
	}
	// Blame an operation that is legal in no state the group reaches: one
	// that fits nowhere, or, when no order completes, a change that fits
	// nowhere.
	suspects := others
	if len(next.states) == 0 {
		suspects = append(slices.Clone(changers), others...)
	}
	for _, i := range suspects {
		legal := false
		for _, s := range reached.states {
			if p.budget--; p.budget < 0 {
				return groupResult{}
			}
			ok, _ := p.l.model.Step(s, ops[i].Input, ops[i].Output)
			legal = legal || ok
		}
		if !legal {
			return groupResult{decided: true, blamed: i, blamedIn: reached.states[0]}
		}
	}
	// With one start state and at most one change, the others each fit
	// before or after the change, so every state in next is reachable.
	exact := len(states) == 1 && len(changers) <= 1
	return groupResult{decided: true, next: next.states, exact: exact, blamed: -1}
}

// orders runs every order of the changers from s, adding every state on
// the way to reached and every final state to next. Changers that the
// specification cannot tell apart (the same request and reply: a burst of
// renewals of one lease, say) are interchangeable, so only how many of each
// kind are placed matters. It reports false if the budget ran out.
func (p *prover) orders(s any, ops []porcupine.Operation, changers []int, reached, next *stateSet) bool {
	var reps []int  // one changer per kind
	var left []byte // how many of each kind are still to place
	kinds := make(map[changeKey]int)
	for _, i := range changers {
		k := keyOf(ops[i])
		if j, ok := kinds[k]; ok {
			left[j]++
			continue
		}
		kinds[k] = len(reps)
		reps, left = append(reps, i), append(left, 1)
	}
	seen := make(map[visit][]any) // explored (placements, state) points; looked up, never iterated
	var dfs func(s any) bool
	dfs = func(s any) bool {
		key := visit{left: string(left), state: p.l.model.Hash(s)}
		for _, o := range seen[key] {
			if p.l.model.Equal(o, s) {
				return true
			}
		}
		seen[key] = append(seen[key], s)
		reached.add(p.l.model, s)
		complete := true
		for k, i := range reps {
			if left[k] == 0 {
				continue
			}
			complete = false
			if p.budget--; p.budget < 0 {
				return false
			}
			if ok, after := p.l.model.Step(s, ops[i].Input, ops[i].Output); ok {
				left[k]--
				done := dfs(after)
				left[k]++
				if !done {
					return false
				}
			}
		}
		if complete {
			next.add(p.l.model, s)
		}
		return true
	}
	return dfs(s)
}

// changeKey is what the lease-store specification reads of an operation:
// two operations with the same key make the same transitions.
type changeKey struct {
	kind, client, inState, outState, holder        string
	incarnation, token, reqID, outToken, ckptToken uint64
	ttl, outTTL                                    int64
	err                                            string
}

func keyOf(op porcupine.Operation) changeKey {
	o, out := inputOf(op.Input), outputOf(op.Output)
	in := &o.Input
	k := changeKey{kind: in.Kind, client: cmp.Or(in.Holder, o.Client), inState: in.State, outState: out.State,
		holder: out.Holder, incarnation: o.Incarnation, token: in.Token, outToken: out.Token, ckptToken: out.StateToken,
		ttl: int64(in.TTL), outTTL: int64(out.TTL), err: out.Err}
	if in.Kind == kindCheckpoint {
		k.reqID = requestID(o) // the specification orders checkpoints by request id
	}
	return k
}

// concurrentOnlyInName reports whether real time orders two operations of
// a group (one returned before another was called): the group's free order
// would then not be free, and porcupine decides.
func (p *prover) concurrentOnlyInName(ops []porcupine.Operation) bool {
	var lastCall, firstReturn history.Time = -1, history.Never
	for _, op := range ops {
		rec := inputOf(op.Input)
		lastCall = max(lastCall, rec.Call)
		if rec.Returned() {
			firstReturn = min(firstReturn, rec.Return)
		}
	}
	return firstReturn < lastCall
}

// kindsOf counts the kinds of changers (see orders).
func kindsOf(ops []porcupine.Operation, changers []int) int {
	kinds := make(map[changeKey]bool)
	for _, i := range changers {
		kinds[keyOf(ops[i])] = true
	}
	return len(kinds)
}

// stateSet is a set of specification states.
type stateSet struct {
	states []any
	byHash map[uint64][]int // looked up, never iterated
}

func (s *stateSet) add(m porcupine.Model, state any) {
	if s.byHash == nil {
		s.byHash = make(map[uint64][]int)
	}
	h := m.Hash(state)
	for _, i := range s.byHash[h] {
		if m.Equal(s.states[i], state) {
			return
		}
	}
	s.byHash[h] = append(s.byHash[h], len(s.states))
	s.states = append(s.states, state)
}

// visit is a point of the search within one group: how many changes of
// each kind are left to place, and the state's hash.
type visit struct {
	left  string
	state uint64
}

// decideRegister proves a fenced-register partition illegal when it can
// without a search: an accepted write whose token is below that of a write
// accepted and returned before it was even called can go in no order (the
// store would have had to accept a lower token after a higher one). It
// records the violation and reports true when it finds one; false decides
// nothing.
func (l *linHistory) decideRegister(v *verdict, part []porcupine.Operation) bool {
	if len(part) == 0 || !isRegisterOp(inputOf(part[0].Input).Input.Kind) {
		return false
	}
	var accepted []porcupine.Operation
	for _, op := range part {
		if inputOf(op.Input).Input.Kind == kindWrite && outputOf(op.Output).Err == "" {
			accepted = append(accepted, op)
		}
	}
	rec := func(op porcupine.Operation) *history.Operation { return inputOf(op.Input) }
	byReturn := slices.Clone(accepted)
	slices.SortFunc(byReturn, func(a, b porcupine.Operation) int { return cmp.Compare(rec(a).Return, rec(b).Return) })
	byCall := slices.Clone(accepted)
	slices.SortFunc(byCall, func(a, b porcupine.Operation) int { return cmp.Compare(rec(a).Call, rec(b).Call) })
	highest, from, r := -1, uint64(0), 0 // the highest token returned so far, and by which write
	for _, op := range byCall {
		for ; r < len(byReturn) && rec(byReturn[r]).Return < rec(op).Call; r++ {
			if t := inputOf(byReturn[r].Input).Input.Token; highest < 0 || t > from {
				highest, from = r, t
			}
		}
		if highest >= 0 && inputOf(op.Input).Input.Token < from {
			first := byReturn[highest]
			_, state := l.model.Step(l.model.Init(), first.Input, first.Output)
			why := cmp.Or(l.explainStep(state, op), "a lower token accepted after a higher one")
			earlier := rec(first)
			l.record(v, op, state, why, fmt.Sprintf("decided without a search: %s's write under token %d returned at %v, "+
				"before this one was called, so every order places it first", earlier.Client, from, earlier.Return), part, nil)
			return true
		}
	}
	return false
}
