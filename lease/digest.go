package lease

import "math/bits"

// Digest returns a 64-bit digest of every field of the message, the same on
// any machine. The simulator's trace hash covers it (the kernel calls it
// through its Digester interface), so two runs of one seed whose messages
// differ in any field have different trace hashes.
func (m *Message) Digest() uint64 {
	d := digestWord(digestSeed, uint64(m.Kind))
	d = digestWord(d, m.ReqID)
	d = digestString(d, string(m.Client))
	d = digestString(d, m.Resource)
	d = digestWord(d, m.Token)
	d = digestWord(d, uint64(m.TTL))
	d = digestWord(d, uint64(m.SentAt))
	d = digestWord(d, uint64(m.GrantorTime))
	d = digestWord(d, uint64(m.Err))
	d = digestBytes(d, m.State)
	d = digestWord(d, m.CheckpointToken)
	d = digestWord(d, uint64(len(m.Keys)))
	for _, kv := range m.Keys {
		d = digestString(d, kv.Key)
		d = digestBytes(d, kv.Value)
	}
	d = digestString(d, m.Key)
	d = digestBytes(d, m.Value)
	d = digestString(d, string(m.Holder))
	d = digestWord(d, uint64(m.Remaining))
	return digestString(d, m.Prefix)
}

const (
	digestSeed  = 0x243f6a8885a308d3
	digestPrime = 1099511628211
)

// digestPrimePow[i] is digestPrime to the power i (mod 2^64).
var digestPrimePow = func() (p [9]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * digestPrime
	}
	return p
}()

// digestWord folds v into d: FNV-1a over its eight bytes, least significant
// first. A zero byte only multiplies by the prime (x^0 = x), so the zero
// bytes above v's highest set byte fold in as one multiplication by a power
// of the prime: the same value as eight rounds, in as many rounds as v has
// significant bytes. Most fields of a message are zero or small.
func digestWord(d, v uint64) uint64 {
	n := (bits.Len64(v) + 7) / 8
	for range n {
		d = (d ^ (v & 0xff)) * digestPrime
		v >>= 8
	}
	return d * digestPrimePow[8-n]
}

// digestString folds s into d, length first, so that ("ab","c") and
// ("a","bc") differ.
func digestString(d uint64, s string) uint64 {
	d = digestWord(d, uint64(len(s)))
	for i := 0; i < len(s); i++ {
		d = (d ^ uint64(s[i])) * digestPrime
	}
	return d
}

// digestBytes folds b into d, length first.
func digestBytes(d uint64, b []byte) uint64 {
	d = digestWord(d, uint64(len(b)))
	for _, c := range b {
		d = (d ^ uint64(c)) * digestPrime
	}
	return d
}
