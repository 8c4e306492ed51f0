package etcdraft

import (
	cryptorand "crypto/rand"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// go.etcd.io/raft/v3 (v3.6.0, raft.go) draws every randomized election
// timeout with crypto/rand.Int(crypto/rand.Reader, …), reading the package
// variable at each draw, and raft.Config has no Rand. To keep a run exact
// without forking raft, this package installs once, process-wide, a
// crypto/rand.Reader that serves the bytes of the calling member's seeded
// stream while a member is inside a RawNode call, and the operating
// system's bytes otherwise. Every RawNode call runs under raftMu, so two
// runs in one process (simrun sweep --parallel, parallel tests) never
// interleave their draws: each run's draws depend on its seed alone.
//
// The cost: RawNode calls of parallel runs are serialized, and any other
// goroutine of the process that reads crypto/rand.Reader while a member
// is inside a RawNode call reads the member's stream (and shifts it). A
// simulation process has no such reader; a process that also serves TLS
// should not host these runs.
var (
	raftMu      sync.Mutex
	installOnce sync.Once
	current     atomic.Pointer[seededReader]
)

// switchReader is the installed crypto/rand.Reader.
type switchReader struct{ os io.Reader }

// Read serves the current member's stream if a member is inside a RawNode
// call, and the operating system's bytes otherwise.
func (s switchReader) Read(p []byte) (int, error) {
	if r := current.Load(); r != nil {
		return r.Read(p)
	}
	return s.os.Read(p)
}

// seededReader is one member incarnation's deterministic byte stream.
type seededReader struct{ rng *rand.Rand }

// newSeededReader returns a stream seeded from r (the node's own PRNG).
func newSeededReader(r interface{ Int64N(int64) int64 }) *seededReader {
	const maxInt63 = 1<<63 - 1
	a, b := uint64(r.Int64N(maxInt63)), uint64(r.Int64N(maxInt63))
	return &seededReader{rng: rand.New(rand.NewPCG(a, b))}
}

// Read fills p from the stream.
func (s *seededReader) Read(p []byte) (int, error) {
	var buf [8]byte
	for i := 0; i < len(p); i += 8 {
		binary.LittleEndian.PutUint64(buf[:], s.rng.Uint64())
		copy(p[i:], buf[:])
	}
	return len(p), nil
}

// installReader replaces crypto/rand.Reader once per process.
func installReader() {
	installOnce.Do(func() { cryptorand.Reader = switchReader{os: cryptorand.Reader} })
}

// withRaft runs f, one handler of a member (its RawNode calls and what it
// does with their Ready), with src as the source of raft's randomness,
// under the process-wide raft lock. f must not run another member's
// handler (sends only queue messages, so it does not).
func withRaft(src *seededReader, f func()) {
	raftMu.Lock()
	current.Store(src)
	defer func() {
		current.Store(nil)
		raftMu.Unlock()
	}()
	f()
}
