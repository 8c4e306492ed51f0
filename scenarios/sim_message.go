package scenarios

import (
	"encoding/binary"
	"math/bits"

	"github.com/leasesim/leasesim/lease"
)

// simMessage is a lease.Message as the kernel carries it: the payload the
// wiring sends (nodeTransport.Send) and takes back (messagePool). Only the
// wiring sees it; a node is handed a copy of the lease.Message.
type simMessage struct{ lease.Message }

// Digest returns a 64-bit digest of every field of the message, the same on
// any machine (sim.Digester). The simulator's trace hash covers it, so two
// runs of one seed whose messages differ in any field have different trace
// hashes.
//
// Every message of a run is digested, so it is built for speed: the
// numeric fields and the strings' lengths are mixed in independent lanes
// (a 64×64→128-bit multiply folded, as wyhash does), and only the strings
// that are not empty are folded in after them, eight bytes at a time.
// Lengths come first, so moving bytes from one field to the next changes
// the digest.
func (sm *simMessage) Digest() uint64 {
	m := &sm.Message
	d := mum(uint64(m.Kind)|uint64(m.Err)<<8|uint64(len(m.Keys))<<16^digestKeys[0], m.ReqID^digestKeys[1]) ^
		mum(m.Token^digestKeys[2], uint64(m.TTL)^digestKeys[3]) ^
		mum(uint64(m.SentAt)^digestKeys[4], uint64(m.GrantorTime)^digestKeys[5]) ^
		mum(m.CheckpointToken^digestKeys[6], uint64(m.Remaining)^digestKeys[7]) ^
		mum(lengths(len(m.Client), len(m.Resource))^digestKeys[8], lengths(len(m.Holder), len(m.Key))^digestKeys[9]) ^
		mum(lengths(len(m.Prefix), len(m.State))^digestKeys[10], uint64(len(m.Value))^digestKeys[11])
	d = digestString(d, string(m.Client))
	d = digestString(d, m.Resource)
	d = digestString(d, string(m.Holder))
	d = digestString(d, m.Key)
	d = digestString(d, m.Prefix)
	d = digestString(d, string(m.State))
	d = digestString(d, string(m.Value))
	for _, kv := range m.Keys {
		d = mum(lengths(len(kv.Key), len(kv.Value))^d, digestKeys[12])
		d = digestString(d, kv.Key)
		d = digestString(d, string(kv.Value))
	}
	return d
}

// digestKeys are the lanes' constants (wyhash's primes and the digits of
// pi): each lane mixes its own, so that values swapped between fields
// change the digest.
var digestKeys = [...]uint64{
	0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3, 0x589965cc75374cc3,
	0x1d8e4e27c47d124f, 0x243f6a8885a308d3, 0x13198a2e03707344, 0xa4093822299f31d0,
	0x082efa98ec4e6c89, 0x452821e638d01377, 0xbe5466cf34e90c6c, 0xc0ac29b7c97c50dd,
	0x3f84d5b5b5470917,
}

// mum multiplies a and b into 128 bits and folds the halves.
func mum(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// lengths packs two field lengths into one word (a simulated message's
// fields are far below 4 GiB).
func lengths(a, b int) uint64 { return uint64(a) | uint64(b)<<32 }

// digestString folds s into d, eight bytes at a time; an empty s leaves d
// as it is (its length is in the lanes).
func digestString(d uint64, s string) uint64 {
	for len(s) >= 8 {
		d = mum(d^binary.LittleEndian.Uint64([]byte(s[:8])), digestKeys[12])
		s = s[8:]
	}
	if len(s) == 0 {
		return d
	}
	var w uint64
	for i := len(s) - 1; i >= 0; i-- {
		w = w<<8 | uint64(s[i])
	}
	return mum(d^w^digestKeys[11], digestKeys[12])
}
