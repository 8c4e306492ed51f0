package checker

import (
	"cmp"
	"iter"

	"github.com/leasesim/leasesim/history"
)

// opRow is what the checkers' passes over every operation read first: a
// compact row of 24 bytes per operation, without pointers, built in one
// pass over the operations' heads (opRows, History.LoadOpHead). Loading an
// operation builds it (a history.Operation is 576 bytes, decoded from its
// producer's records), and most operations of a contended run are
// acquires refused as held, which most checkers skip: a 32-worker swarm
// ran ten passes that each loaded every operation to learn whether it
// cared. A pass now reads the rows, in cache, and loads the operations it
// cares about.
type opRow struct {
	processed history.Time
	id        uint64 // the request's id
	life      int32  // the client incarnation that sent it, into the rows' lives
	kind      opKind
	err       opErr
	at        rowFlags
}

// clientLife is a client incarnation, as the rows number them: in order of
// first appearance.
type clientLife struct {
	client      int32 // the client, numbered in order of first appearance
	incarnation uint64
}

// rowFlags say where an operation was processed and whether its reply
// came back.
type rowFlags uint8

const (
	atGrantor rowFlags = 1 << iota // processed by the lease store (History.Grantor)
	atFenced                       // processed by the fenced store (History.Resource)
	gotReply                       // the reply reached the client
)

// grantor reports whether the lease store processed the operation.
func (r *opRow) grantor() bool { return r.at&atGrantor != 0 }

// fenced reports whether the fenced store processed the operation.
func (r *opRow) fenced() bool { return r.at&atFenced != 0 }

// returned reports whether the operation's reply reached its client.
func (r *opRow) returned() bool { return r.at&gotReply != 0 }

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
func (r *opRow) grantorOK(k opKind) bool { return r.grantor() && r.kind == k && r.err == errNone }

// opRows returns a row for each of h's operations, and the client lives
// they name.
func opRows(h *history.History) ([]opRow, []clientLife) {
	n := h.NumOps()
	rows := make([]opRow, n)
	var clients numbering[string]
	var livesOf [][]int32 // by client: its lives, into lives (a client has a life or a few)
	var lives []clientLife
	var op history.OpHead
	for i := range rows {
		h.LoadOpHead(i, &op)
		c, isNew := clients.id(op.Client, strHint(op.Client))
		if isNew {
			livesOf = append(livesOf, nil)
		}
		l := int32(-1)
		for _, j := range livesOf[c] {
			if lives[j].incarnation == op.Incarnation {
				l = j
				break
			}
		}
		if l < 0 {
			l = int32(len(lives))
			lives = append(lives, clientLife{client: c, incarnation: op.Incarnation})
			livesOf[c] = append(livesOf[c], l)
		}
		rows[i] = opRow{processed: op.Processed, id: op.ID, life: l, kind: kindOf(op.Kind), err: errOf(op.Err),
			at: flagIf(op.Server == h.Grantor, atGrantor) | flagIf(op.Server == h.Resource, atFenced) | flagIf(op.Returned(), gotReply)}
	}
	return rows, lives
}

// flagIf returns f if cond holds, else no flag.
func flagIf(cond bool, f rowFlags) rowFlags {
	if cond {
		return f
	}
	return 0
}

// rows returns opRows(h), computed when first asked for.
func (a *analysis) rows() []opRow {
	if a.opRows == nil {
		a.opRows, a.opLives = opRows(a.h)
	}
	return a.opRows
}

// lives returns the client lives the rows name (opRows), computed with
// them when first asked for.
func (a *analysis) lives() []clientLife {
	a.rows()
	return a.opLives
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
