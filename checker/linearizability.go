package checker

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// Linearizability checks P3: the grantor's client-visible operations are
// linearizable against the lease store's specification (opts.Spec, or the
// one the history names: leasesim's lease store, model.LeaseStoreSpec,
// with expiry on the grantor's clock readings carried in its replies, by
// default; the lessor's bounded by the history's leader terms:
// model.WithLeaderTerms), and the fenced resource's against the fenced register
// (model.FencedRegisterSpec), both partitioned as the specification says
// (by resource, by key).
//
// Each recorded operation spans [Call, Return] in true time. An operation
// whose reply never reached its client took effect, and its output is
// known, so it is kept, with a Return after the end of the run: it may be
// linearised anywhere after its call. list spans resources and unfenced side
// effects are not operations of either model; other checkers look at those.
// Before the search, under the lease-store specification, its operations
// are narrowed to where the specification's grantor-time order can place
// them (orderByGrantorTime), which changes no verdict and keeps the search
// close to linear.
//
// Each resource is decided as cheaply as it can be. If the order in which
// its server processed the operations is a legal sequential history, that
// order is a witness: the operations were processed within their
// intervals, so the resource is linearizable. On a
// resource of an etcd-style lessor, the order of the store revisions its
// replies name is tried as a second witness, kept only if it also keeps
// real time (legalByRevision). Otherwise, on a lease-store
// resource (under the lease-store specification only), the rule that
// grantor readings never go
// backwards leaves only the order within bursts of equal readings open, and
// exploring those decides the resource (decideByGrantorTime); a fenced
// register that accepted a lower token after a higher one had returned is
// illegal in every order (decideRegister). What is left goes to porcupine
// over both models, each resource within opts.LinearizabilitySteps model
// steps (DefaultLinearizabilitySteps if zero; budgetedCheck), so the
// verdict is the same on any machine and load; running out is Unknown
// ("undecided after N model steps"), never OK. A violation names, per resource, the first operation that breaks the
// specification, why, the state it met, and the faults active when the
// server processed it. On Illegal or Unknown, when opts.Visualize is set,
// porcupine's visualisation, with the faults as annotations, is returned in
// Result.Visualization; the checker writes no file. The only clock read is
// porcupine's timeout on that drawing, which decides no verdict.
func Linearizability(h *history.History, opts Options) Result {
	const name = "linearizability"
	if h == nil {
		return Result{Property: "P3", Name: name, Status: Unknown, Summary: "no history to check"}
	}
	store := opts.Spec
	if store.Model.Step == nil {
		var err error
		if store, err = model.SpecFor(h.Spec, h.Lease, model.WithLeaderTerms(h.Leaders, h.Faults)); err != nil {
			return Result{Property: "P3", Name: name, Status: Unknown,
				Summary: "no specification to check the lease store against: " + err.Error()}
		}
	}
	p := newAsProcessed(h, store)
	walk := p.inOrderWalk()
	counted := newP3Ops(h, p.store, p.register, walk)
	if counted.count == 0 {
		return notApplicable("P3", name, fmt.Sprintf("no %s or fenced-resource operation was recorded, so there is "+
			"nothing to linearize", store.Name))
	}
	v := newVerdict(h, "P3")
	okSummary := fmt.Sprintf("%d %s and %d fenced-resource operations on %d resources are linearizable",
		counted.stores, store.Name, counted.count-counted.stores, counted.resources)
	const witness = " (witness: the servers' processing order)"
	if walk.inOrder && walk.legal {
		return v.result(name, okSummary+witness)
	}
	ops := newP3Ops(h, p.store, p.register, nil)
	if !walk.inOrder && p.witnessed(ops) {
		return v.result(name, okSummary+witness)
	}
	l := newLinHistory(p, ops)
	var search, decided []porcupine.Operation // what porcupine must decide; what the grantor's readings decided
	witnessed := true
	for _, part := range l.model.Partition(l.ops) {
		switch {
		case l.legalAsProcessed(part), l.legalByRevision(part):
		case l.decideByGrantorTime(v, part) || l.decideRegister(v, part):
			witnessed = false
			decided = append(decided, part...)
		default:
			witnessed = false
			search = append(search, part...)
		}
	}
	if witnessed {
		return v.result(name, okSummary+witness)
	}
	steps := cmp.Or(opts.LinearizabilitySteps, DefaultLinearizabilitySteps)
	verdict, info := porcupine.Ok, porcupine.LinearizationInfo{}
	if len(search) > 0 {
		b := budgetedCheck(l.model, search, steps)
		verdict, info = b.verdict, b.info
		if verdict == porcupine.Illegal {
			l.explain(v, b.illegal, info)
		}
		if miss := b.undecided; miss.partitions > 0 {
			v.dontKnow(fmt.Sprintf("porcupine did not decide %d operations on %d resources within %d model steps "+
				"each: undecided, not checked", miss.ops, miss.partitions, steps))
			if verdict == porcupine.Ok {
				verdict = porcupine.Unknown
			}
		}
	}
	r := v.result(name, okSummary)
	if !opts.Visualize || r.Status == OK {
		return r
	}
	switch verdict {
	case porcupine.Ok:
		// The violations were proven from the grantor's readings: porcupine
		// only draws those partitions, with a short limit, since the proof
		// is already in hand.
		_, info = porcupine.CheckOperationsVerbose(l.model, decided, visualizeTimeout)
	case porcupine.Unknown:
		// Undecided within the step budget: porcupine draws how far it
		// got in a short time. Only the drawing reads the clock; the
		// verdict was reached in steps.
		_, info = porcupine.CheckOperationsVerbose(l.model, search, visualizeTimeout)
	}
	if page, err := l.visualize(info); err != nil {
		r.Summary += "; " + err.Error()
	} else {
		r.Visualization = page
	}
	return r
}

// visualizeTimeout bounds the porcupine run that only draws partitions
// already proven illegal, or how far an undecided search got: a drawing,
// never a verdict.
const visualizeTimeout = 2 * time.Second

// linHistory is a run's history as porcupine operations.
type linHistory struct {
	asProcessed
	byReading  bool                  // store is leasesim's lease store, whose grantor readings order its operations
	byRevision bool                  // store is an etcd-style lessor, whose replies name store revisions
	ops        []porcupine.Operation // Input points into recs, Metadata at the index in the history (opIndex)
	// recs are the checked operations, loaded once: the history may give
	// its operations only as copies (History.OpSource), and porcupine's
	// operations need inputs that stay put.
	recs    []history.Operation
	stores  int      // how many ops are lease-store ops
	scale   int64    // porcupine time per nanosecond of true time
	clients []string // by ClientId
	scratch []int32  // positions in a partition, for legalAsProcessed
}

// newLinHistory builds the porcupine operations of checked, P3's
// operations of p's history.
func newLinHistory(p asProcessed, checked p3Ops) *linHistory {
	h := p.h
	l := &linHistory{asProcessed: p, byReading: p.store.Name == leaseStoreName,
		byRevision: p.store.Name == model.LessorSpec().Name, stores: checked.stores}
	// One copy of every checked operation: this runs only when the
	// witness (asProcessed.witnessed) failed, which is rare.
	l.recs = make([]history.Operation, len(checked.idx))
	ids := make(map[string]int)
	end := h.End
	for k, i := range checked.idx {
		op := &l.recs[k]
		h.LoadOp(int(i), op)
		ids[op.Client] = 0
		end = max(end, op.Call, op.Processed)
	}
	for c := range ids { // order does not matter: sorted below
		l.clients = append(l.clients, c)
	}
	slices.Sort(l.clients)
	for i, c := range l.clients {
		ids[c] = i
	}
	l.ops = make([]porcupine.Operation, 0, len(checked.idx))
	// Each operation's Metadata points into index: a pointer fits the
	// interface, where an int above 255 would be boxed, one allocation per
	// operation.
	index := make([]int, 0, len(checked.idx))
	for k, i := range checked.idx {
		op := &l.recs[k]
		ret := op.Return
		if !op.Returned() {
			ret = end + 1 // took effect; the client never learned
		}
		// Pointers into recs, read and never written: no copy into the
		// interface. A request that names no holder acts for its client
		// (model.LeaseStore), as the grantor takes it.
		index = append(index, int(i))
		l.ops = append(l.ops, porcupine.Operation{ClientId: ids[op.Client], Input: op, Output: &op.Output,
			Call: int64(op.Call), Return: int64(ret), Metadata: &index[len(index)-1]})
	}
	l.scale = 1
	if l.byReading {
		l.scale = orderByGrantorTime(l.ops)
	}
	return l
}

// leaseStoreName names leasesim's lease-store specification, the one the
// grantor-reading proof (decideByGrantorTime) is about.
var leaseStoreName = model.LeaseSpec(model.ExactTTL()).Name

// inputOf returns a porcupine operation's input: the recorded operation
// (of a linHistory's, the one in its recs).
func inputOf(v any) *history.Operation { return v.(*history.Operation) }

// outputOf returns a porcupine operation's output: the recorded reply.
func outputOf(v any) *history.Payload { return v.(*history.Payload) }

// checkedByP3 reports whether op is an operation of one of P3's models.
func checkedByP3(h *history.History, op *history.Operation) bool {
	switch {
	case op.Server == h.Grantor || isFurtherMember(h.Grantor, op.Server):
		return op.Input.Kind != kindList
	case op.Server == h.Resource:
		return isRegisterOp(op.Input.Kind)
	}
	return false
}

// isFurtherMember reports whether server is a further member of the
// replicated lease store whose first member is grantor: grantor2,
// grantor3, … (lease.MemberAddrs).
func isFurtherMember(grantor, server string) bool {
	n, ok := strings.CutPrefix(server, grantor)
	if !ok || n == "" || n[0] < '2' || n[0] > '9' {
		return false
	}
	return strings.Trim(n, "0123456789") == ""
}

// isRegisterOp reports whether requests of kind k go to the fenced register.
func isRegisterOp(kind string) bool { return kind == kindWrite || kind == kindRead }

// routedModel serves the lease store's and the fenced register's partitions
// in one porcupine check, so that one visualisation shows both. Each
// partition holds one model's operations only; its state is nil before its
// first step, and then a state of that model, told apart by its type.
func routedModel(store, register porcupine.Model, describeMeta func(any) string) porcupine.Model {
	registerState := reflect.TypeOf(register.Init())
	pick := func(reg bool) porcupine.Model {
		if reg {
			return register
		}
		return store
	}
	of := func(state any) porcupine.Model { return pick(reflect.TypeOf(state) == registerState) }
	isReg := func(input any) bool { return isRegisterOp(inputOf(input).Input.Kind) }
	return porcupine.Model{
		Partition: func(ops []porcupine.Operation) [][]porcupine.Operation {
			regs := make([]bool, len(ops))
			n := 0
			for i, op := range ops {
				if regs[i] = isReg(op.Input); regs[i] {
					n++
				}
			}
			stores, registers := make([]porcupine.Operation, 0, len(ops)-n), make([]porcupine.Operation, 0, n)
			for i, op := range ops {
				if regs[i] {
					registers = append(registers, op)
				} else {
					stores = append(stores, op)
				}
			}
			return append(store.Partition(stores), register.Partition(registers)...)
		},
		Init: func() any { return nil },
		Step: func(state, input, output any) (bool, any) {
			m := pick(isReg(input))
			if state == nil {
				state = m.Init()
			}
			return m.Step(state, input, output)
		},
		Equal: func(a, b any) bool {
			if a == nil || b == nil || reflect.TypeOf(a) != reflect.TypeOf(b) {
				return a == nil && b == nil
			}
			return of(a).Equal(a, b)
		},
		Hash: func(state any) uint64 {
			if state == nil {
				return 0
			}
			return of(state).Hash(state)
		},
		DescribeOperation: func(input, output any) string { return pick(isReg(input)).DescribeOperation(input, output) },
		DescribeState: func(state any) string {
			if state == nil {
				return "initial"
			}
			return of(state).DescribeState(state)
		},
		DescribeOperationMetadata: describeMeta,
	}
}

// describeMeta describes the recorded operation behind a porcupine
// operation, for the visualisation's tooltip: its true times, which the
// bars, narrowed by orderByGrantorTime, may not show.
func (p *asProcessed) describeMeta(meta any) string {
	i, ok := meta.(*int)
	if !ok {
		return ""
	}
	op := p.h.Op(*i)
	returned := "reply never arrived"
	if op.Returned() {
		returned = "returned " + op.Return.String()
	}
	return fmt.Sprintf("%s → %s: called %v, processed %v, %s", op.Client, op.Server, op.Call, op.Processed, returned)
}

// opTime is when the server processed a porcupine operation's request.
func (l *linHistory) opTime(op porcupine.Operation) history.Time {
	return inputOf(op.Input).Processed
}

// opIndex is the index in the history of the recorded operation behind a
// porcupine operation.
func opIndex(op porcupine.Operation) int { return *op.Metadata.(*int) }
