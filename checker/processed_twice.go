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
func processedTwice(rows []opRow) int {
	lifeOf, lives, anyNoted := noteLives(rows)
	if !anyNoted {
		return 0
	}
	if n, ok := twiceByBits(rows, lifeOf, lives); ok {
		return n
	}
	return twiceBySorting(rows, lifeOf, lives)
}

// noteLives returns each operation's life (lifeOf, into lives), and
// whether any life is noted.
func noteLives(rows []opRow) (lifeOf []int32, lives []life, anyNoted bool) {
	var livesOf [][]int32 // by client: its lives, into lives
	lifeOf = make([]int32, len(rows))
	for k := range rows {
		r := &rows[k]
		c := r.client
		if int(c) == len(livesOf) { // clients are numbered in order of first appearance
			livesOf = append(livesOf, nil)
		}
		l := int32(-1)
		for _, i := range livesOf[c] { // a client has a life or a few
			if lives[i].incarnation == r.incarnation {
				l = i
				break
			}
		}
		switch {
		case l < 0:
			l = int32(len(lives))
			lives = append(lives, life{incarnation: r.incarnation, lowest: r.id, highest: r.id})
			livesOf[c] = append(livesOf[c], l)
		case r.id <= lives[l].highest:
			lives[l].noted, anyNoted = true, true
			lives[l].lowest = min(lives[l].lowest, r.id)
		default:
			lives[l].highest = r.id
		}
		lifeOf[k] = l
	}
	return lifeOf, lives, anyNoted
}

// life is a client incarnation as processedTwice sees it: the lowest and
// highest id of its requests so far, whether one was not above the highest
// when recorded (noted), and where its ids start in twiceByBits' bits.
type life struct {
	incarnation     uint64
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
func twiceByBits(rows []opRow, lifeOf []int32, lives []life) (n int, ok bool) {
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
	for k, l := range lifeOf {
		if !lives[l].noted {
			continue
		}
		b := lives[l].base + 2*(rows[k].id-lives[l].lowest)
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
func twiceBySorting(rows []opRow, lifeOf []int32, lives []life) int {
	type request struct {
		life int32
		id   uint64
	}
	noted := 0
	for _, l := range lifeOf {
		if lives[l].noted {
			noted++
		}
	}
	reqs := make([]request, 0, noted) // at its size: it can hold nearly every operation
	for k, l := range lifeOf {
		if lives[l].noted {
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
