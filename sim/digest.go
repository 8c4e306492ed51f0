package sim

// Digester is a message payload that can digest its own contents. The trace
// hash covers each sent message's digest, so a run whose messages differ in
// content (not only in number or timing) has a different hash: a grantor
// that leaks process-global state into its replies cannot hide behind equal
// message ids. A digest must depend only on the payload's contents and be
// the same on any machine: no pointers, no map iteration, no maphash.
type Digester interface {
	Digest() uint64
}

// Digest folds the words in into one 64-bit digest with the trace's mixer.
// Hosts and payload types may use it to build their own digests.
func Digest(words ...uint64) uint64 {
	d := uint64(traceHashSeed)
	for _, v := range words {
		d = mum(d^v^0xa0761d6478bd642f, 0xe7037ed1a0b428db)
	}
	return d
}

// DigestString returns the FNV-1a digest of s.
func DigestString(s string) uint64 {
	d := uint64(fnvOffset)
	for i := 0; i < len(s); i++ {
		d = (d ^ uint64(s[i])) * fnvPrime
	}
	return d
}

// DigestBytes returns the FNV-1a digest of b (the same as DigestString of
// the same bytes).
func DigestBytes(b []byte) uint64 {
	d := uint64(fnvOffset)
	for _, c := range b {
		d = (d ^ uint64(c)) * fnvPrime
	}
	return d
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// payloadDigest returns the digest of a message payload and whether its
// contents could be digested. Byte slices and strings (a goroutine host's
// connection bytes) and integers digest directly; other types must
// implement Digester.
func payloadDigest(p any) (uint64, bool) {
	switch v := p.(type) {
	case Digester:
		return v.Digest(), true
	case []byte:
		return DigestBytes(v), true
	case string:
		return DigestString(v), true
	case int:
		return Digest(uint64(v)), true
	case int64:
		return Digest(uint64(v)), true
	case uint64:
		return Digest(v), true
	case nil:
		return 0, true
	}
	return 0, false
}
