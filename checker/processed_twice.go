package checker

import (
	"cmp"
	"slices"
)

// processedTwice counts the requests (client, incarnation, id) that a
// server processed more than once, from the operations' rows. A history
// has one request per operation, and a set of them all took more memory
// than the rest of checking and a hash or two per operation; so a first
// pass over the rows, in recording order, keeps per client incarnation (a
// life) only the lowest and highest id so far, and notes a life with an
// operation whose id is not above the highest: a repeat, or a request
// recorded out of order. A repeated request's life is noted (at its second
// operation, in any order).
//
// The requests of the noted lives are then counted in one more pass,
// linear in the operations: a life numbers its requests densely (leasesim's
// holders count them from one), so two bits per id between its lowest and
// highest (seen, counted) hold them all (twiceByBits). Lives whose ids are
// spread too thinly for that (an imported history's random ids) have their
// operations sorted by (life, id) instead, and the runs of two or more
// counted (twiceBySorting). With random latency most lives are noted, a
// worker having hundreds of requests in flight.
func processedTwice(rows []opRow, lives []clientLife) int {
	ids, anyNoted := noteLives(rows, lives)
	if !anyNoted {
		return 0
	}
	if n, ok := twiceByBits(rows, ids); ok {
		return n
	}
	return twiceBySorting(rows, ids)
}

// noteLives returns the ids of each of the rows' lives, and whether any
// life is noted.
func noteLives(rows []opRow, lives []clientLife) (ids []lifeIDs, anyNoted bool) {
	ids = make([]lifeIDs, len(lives))
	next := int32(0) // the lives are numbered in order of first appearance
	for k := range rows {
		r := &rows[k]
		l := &ids[r.life]
		switch {
		case r.life == next:
			next++
			l.lowest, l.highest = r.id, r.id
		case r.id <= l.highest:
			l.noted, anyNoted = true, true
			l.lowest = min(l.lowest, r.id)
		default:
			l.highest = r.id
		}
	}
	return ids, anyNoted
}

// lifeIDs are a client incarnation's request ids as processedTwice sees
// them: the lowest and highest so far, whether one was not above the
// highest when recorded (noted), and where its ids start in twiceByBits'
// bits.
type lifeIDs struct {
	lowest, highest uint64
	noted           bool
	base            uint64
}

// bitsPerOp bounds the bits twiceByBits may use, per operation: the two
// bits of each id of a noted life, between its lowest and highest, against
// the operations of the history (a sort's list takes 128 bits for each).
const bitsPerOp = 64

// twiceByBits counts the requests of noted lives processed twice with two
// bits per id, if the lives' ids are dense enough (ok).
func twiceByBits(rows []opRow, lives []lifeIDs) (n int, ok bool) {
	var total uint64
	for i := range lives {
		l := &lives[i]
		if !l.noted {
			continue
		}
		l.base = total
		total += 2 * (l.highest - l.lowest + 1)
		if l.highest-l.lowest >= uint64(bitsPerOp*len(rows)) || total > uint64(bitsPerOp*len(rows)) {
			return 0, false // also when highest-lowest+1 wraps
		}
	}
	seen := make([]uint64, (total+63)/64) // a life's bit pairs: id's seen at base+2i, counted at base+2i+1
	for k := range rows {
		l := &lives[rows[k].life]
		if !l.noted {
			continue
		}
		b := l.base + 2*(rows[k].id-l.lowest)
		word, bit := seen[b/64], uint64(1)<<(b%64) // the pair never straddles a word: b is even
		switch {
		case word&bit == 0:
			seen[b/64] |= bit
		case word&(bit<<1) == 0:
			seen[b/64] |= bit << 1
			n++
		}
	}
	return n, true
}

// twiceBySorting counts the requests of noted lives processed twice by
// sorting them by (life, id) and counting the runs of two or more.
func twiceBySorting(rows []opRow, lives []lifeIDs) int {
	type request struct {
		life int32
		id   uint64
	}
	noted := 0
	for k := range rows {
		if lives[rows[k].life].noted {
			noted++
		}
	}
	reqs := make([]request, 0, noted) // at its size: it can hold nearly every operation
	for k := range rows {
		if l := rows[k].life; lives[l].noted {
			reqs = append(reqs, request{l, rows[k].id})
		}
	}
	slices.SortFunc(reqs, func(a, b request) int { return cmp.Or(cmp.Compare(a.life, b.life), cmp.Compare(a.id, b.id)) })
	n := 0
	for i := 0; i < len(reqs); {
		j := i + 1
		for j < len(reqs) && reqs[j] == reqs[i] {
			j++
		}
		if j-i > 1 {
			n++
		}
		i = j
	}
	return n
}
