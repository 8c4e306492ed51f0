package checker

import (
	"cmp"
	"iter"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/spares"
)

// opRow is what the checkers' passes over every operation read first: a
// compact row of 40 bytes per operation, without pointers, built in one
// pass over the operations' heads (opRows, History.LoadOpHead). Loading an
// operation builds it (a history.Operation is 576 bytes, decoded from its
// producer's records), and most operations of a contended run are
// acquires refused as held, which most checkers skip: a 32-worker swarm
// ran ten passes that each loaded every operation to learn whether it
// cared. A pass now reads the rows, in cache, and loads the operations it
// cares about.
type opRow struct {
	processed       history.Time
	incarnation, id uint64
	client          int32 // the client, numbered in order of first appearance
	kind            opKind
	err             opErr
	grantor, fenced bool // processed by the lease store (h.Grantor), by the fenced store (h.Resource)
	returned        bool // the reply reached the client
}

// opKind is an operation's request kind, as the checkers tell them apart
// (kinds.go).
type opKind uint8

const (
	opOther opKind = iota
	opAcquire
	opRenew
	opRelease
	opRevoke
	opCheckpoint
	opWrite
	opRead
	opList
)

// kindOf returns the kind code of a request kind.
func kindOf(kind string) opKind {
	switch kind {
	case kindAcquire:
		return opAcquire
	case kindRenew:
		return opRenew
	case kindRelease:
		return opRelease
	case kindRevoke:
		return opRevoke
	case kindCheckpoint:
		return opCheckpoint
	case kindWrite:
		return opWrite
	case kindRead:
		return opRead
	case kindList:
		return opList
	}
	return opOther
}

// opErr is a reply's error, as the checkers tell them apart (kinds.go).
type opErr uint8

const (
	errNone opErr = iota // no error: the operation succeeded
	errOther
	errIsHeld
	errIsGrace
	errIsFenced
)

// errOf returns the code of a reply's error.
func errOf(err string) opErr {
	switch err {
	case "":
		return errNone
	case errHeld:
		return errIsHeld
	case errGrace:
		return errIsGrace
	case errFenced:
		return errIsFenced
	}
	return errOther
}

// grantorOK reports whether the row is an operation of kind k that the
// lease store processed and accepted.
func (r *opRow) grantorOK(k opKind) bool { return r.grantor && r.kind == k && r.err == errNone }

// rowTables keeps the row tables of finished analyses (Judge) for later
// ones: a sweep judges thousands of runs, and a swarm run's rows were a
// sixth of the bytes it allocated. A table of more than maxSpareRows rows
// is not kept.
var rowTables spares.Spares[[]opRow]

// maxSpareRows bounds the row tables kept: 32,768 rows, 1.25 MiB.
const maxSpareRows = 1 << 15

// opRows returns a row for each of h's operations, in a kept table if one
// is large enough (rowTables).
func opRows(h *history.History) []opRow {
	n := h.NumOps()
	rows, ok := rowTables.Get()
	if !ok || cap(rows) < n {
		rows = make([]opRow, n)
	}
	rows = rows[:n] // every row is written below
	var clients numbering[string]
	var op history.OpHead
	for i := range rows {
		h.LoadOpHead(i, &op)
		c, _ := clients.id(op.Client, strHint(op.Client))
		rows[i] = opRow{processed: op.Processed, incarnation: op.Incarnation, id: op.ID, client: c,
			kind: kindOf(op.Kind), err: errOf(op.Err), grantor: op.Server == h.Grantor,
			fenced: op.Server == h.Resource, returned: op.Returned()}
	}
	return rows
}

// rows returns opRows(h), computed when first asked for.
func (a *analysis) rows() []opRow {
	if a.opRows == nil {
		a.opRows = opRows(a.h)
	}
	return a.opRows
}

// inProcessedOrder yields the index and row of each operation in the order
// their servers processed them (ties in recording order): a pass reads
// operation i only for the rows it cares about. The recorder appends an op
// when its reply leaves the server, so the ops are usually in that order
// already.
func (a *analysis) inProcessedOrder() iter.Seq2[int, *opRow] {
	rows := a.rows()
	if a.order == nil {
		a.order = []int32{} // in order: no permutation
		for i := 1; i < len(rows); i++ {
			if rows[i].processed < rows[i-1].processed {
				a.order = sortedIndices(len(rows), func(x, y int32) int { return cmp.Compare(rows[x].processed, rows[y].processed) })
				break
			}
		}
	}
	return func(yield func(int, *opRow) bool) {
		if len(a.order) == 0 {
			for i := range rows {
				if !yield(i, &rows[i]) {
					return
				}
			}
			return
		}
		for _, i := range a.order {
			if !yield(int(i), &rows[i]) {
				return
			}
		}
	}
}
