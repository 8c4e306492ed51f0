package etcdraft

import (
	"bytes"
	cryptorand "crypto/rand"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
)

// go.etcd.io/raft/v3 (v3.6.0, raft.go) draws every randomized election
// timeout with crypto/rand.Int(crypto/rand.Reader, …), reading the package
// variable at each draw, and raft.Config has no Rand. To keep a run exact
// without forking raft, this package installs once, process-wide, a
// crypto/rand.Reader that serves the bytes of the calling member's seeded
// stream while a member is inside a RawNode call, and the operating
// system's bytes otherwise.
//
// "The calling member" is found by goroutine: the event host runs a run on
// one goroutine, start to end, members' creations and restarts included,
// so the runs of one goroutine share a slot that names the member inside a
// RawNode call (withRaft sets it, with no lock and no lookup), and the
// reader finds the slot of the goroutine that reads (goid: a stack header
// parsed, only when raft draws, which is when a member's election timer is
// reset). Parallel runs in one process (simrun sweep --parallel, parallel
// tests) run on goroutines of their own, so they neither interleave their
// draws nor wait for each other. Until 2026-11-28 every RawNode call took
// one process-wide lock instead, and a sweep of this store on two cores was
// no faster than on one.
//
// A goroutine that reads crypto/rand.Reader while it is not inside a
// member's RawNode call reads the operating system's bytes, as ever.
var (
	installOnce sync.Once
	slots       sync.Map // goroutine id → *slot
)

// slot names the member inside a RawNode call among the runs of one
// goroutine, nil when none is.
type slot struct{ current *seededReader }

// goroutineSlot returns the slot of the calling goroutine.
func goroutineSlot() *slot {
	v, _ := slots.LoadOrStore(goid(), &slot{})
	return v.(*slot)
}

// goid returns the calling goroutine's id, from the header of its stack
// ("goroutine 18 [running]:").
func goid() uint64 {
	var buf [32]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, err := strconv.ParseUint(string(b[:max(bytes.IndexByte(b, ' '), 0)]), 10, 64)
	if err != nil {
		panic("etcdraft: cannot read the goroutine id from " + strconv.Quote(string(buf[:])))
	}
	return id
}

// switchReader is the installed crypto/rand.Reader.
type switchReader struct{ os io.Reader }

// Read serves the stream of the member inside a RawNode call on the
// calling goroutine, if one is, and the operating system's bytes
// otherwise.
func (s switchReader) Read(p []byte) (int, error) {
	if v, ok := slots.Load(goid()); ok {
		if r := v.(*slot).current; r != nil {
			return r.Read(p)
		}
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
// does with their Ready), with src as the source of raft's randomness on
// the slot of the goroutine that runs the member's run. f must not run
// another member's handler (sends only queue messages, so it does not).
func withRaft(sl *slot, src *seededReader, f func()) {
	prev := sl.current
	sl.current = src
	defer func() { sl.current = prev }()
	f()
}
