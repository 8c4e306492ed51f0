package checker

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"
)

// legalByRevision reports whether part is legal in the order of the store
// revisions its replies name, a witness for an etcd-style store (the
// lessor specification) whose members answer in an order of their own: a
// revision is the position in the replicated log at which a change was
// applied, or the state a read or refusal saw. The order sorts by revision
// (an operation whose reply names none takes the highest revision
// answered before it, in processing order), a change before the reads of
// the revision it made, then by processing time. It is a witness only if
// it also keeps real time (no operation is placed after one that was
// called after it returned) and the specification accepts every step; so
// true proves part linearizable, and false decides nothing. (The
// specification's own rule that operations take effect in order of time
// already refuses all but ties of that real-time order; the guard makes
// the witness porcupine's definition on its own.)
func (l *linHistory) legalByRevision(part []porcupine.Operation) bool {
	if !l.byRevision || len(part) == 0 || isRegisterOp(inputOf(part[0].Input).Input.Kind) {
		return false
	}
	byTime := slices.Clone(part)
	slices.SortStableFunc(byTime, l.compareProcessed)
	type placed struct {
		op     porcupine.Operation
		rev    int64
		change bool
	}
	order := make([]placed, len(byTime))
	var seen int64
	for i, op := range byTime {
		out, kind := outputOf(op.Output), inputOf(op.Input).Input.Kind
		rev := out.Revision
		if rev == 0 || !namesRevision(kind) {
			rev = seen
		}
		seen = max(seen, rev)
		order[i] = placed{op: op, rev: rev, change: out.Err == "" && changesRevision(kind) &&
			(out.OK || kind != "create" && kind != "checkpoint")}
	}
	slices.SortStableFunc(order, func(a, b placed) int {
		return cmp.Or(cmp.Compare(a.rev, b.rev), -cmpBool(a.change, b.change))
	})
	w := l.walker(false, nil)
	var calledLast int64
	for _, p := range order {
		if p.op.Return <= calledLast { // returned before (or as) an operation placed earlier was called
			return false
		}
		calledLast = max(calledLast, p.op.Call)
		if !w.step(inputOf(p.op.Input)) {
			return false
		}
	}
	return true
}

// namesRevision reports whether a reply to an operation of kind names the
// revision it made or read: a key's operations, not a lease's.
func namesRevision(kind string) bool {
	return changesRevision(kind) || kind == "get"
}

// changesRevision reports whether a successful operation of kind makes a
// new store revision: a put, a create, a revocation (its keys go) or a
// checkpoint.
func changesRevision(kind string) bool {
	switch kind {
	case "put", "create", "revoke", "checkpoint":
		return true
	}
	return false
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
