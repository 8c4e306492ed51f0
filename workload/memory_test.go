package workload_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/internal/gcwatch"
	"github.com/leasesim/leasesim/workload"
)

// stream is an io.Reader that makes up a workload of n tasks as it is
// read, so a test can read a huge file without it ever existing.
type stream struct {
	n, next int // tasks in all; the next to make
	pending []byte
}

func newStream(n int) *stream {
	return &stream{n: n, pending: []byte(`{"type":"header","version":1,"name":"huge","workers":8}` + "\n")}
}

func (s *stream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.next == s.n {
			return 0, io.EOF
		}
		s.next++
		s.pending = fmt.Appendf(s.pending, `{"type":"task","at":"%dms","id":"t%d","units":%d,"unit_time":"250ms"}`+"\n",
			s.next, s.next, 1+s.next%20)
		if s.next%1000 == 0 {
			s.pending = fmt.Appendf(s.pending, `{"type":"pause","at":"%dms","worker":"w%d","duration":"1s"}`+"\n",
				s.next, 1+s.next%8)
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// maxGrowth is how much the live heap may grow while reading: the
// collector's readings vary by a megabyte or two; the million tasks kept in
// memory would take 200.
const maxGrowth = 32 << 20

// TestReaderStreamsInConstantMemory reads a million-line workload through
// an io.Reader and checks that the live heap does not grow with it: the
// Reader holds one line at a time. It forces no collection: every 250,000
// lines, with the reader in hand, the live heap is read from collections
// that allocation brings about (gcwatch.SettledLiveHeap), and it stays
// within maxGrowth of the one before reading. It asserts memory, never
// time.
func TestReaderStreamsInConstantMemory(t *testing.T) {
	const tasks = 1_000_000
	if testing.Short() {
		t.Skip("reads a million lines")
	}
	for _, tt := range []struct {
		name string
		read func(r io.Reader, check func(i int)) int
	}{
		{"Reader", func(r io.Reader, check func(int)) int {
			rd, err := workload.NewReader(r)
			require.NoError(t, err)
			n := 0
			for ; ; n++ {
				if _, err := rd.Next(); err != nil {
					require.ErrorIs(t, err, io.EOF)
					return n
				}
				check(n)
			}
		}},
		{"Tasks", func(r io.Reader, check func(int)) int {
			open := func() (io.ReadCloser, error) { return io.NopCloser(r), nil }
			src, err := workload.Tasks(open, rand.New(rand.NewPCG(1, 2)))
			require.NoError(t, err)
			n := 0
			for ; ; n++ {
				if _, ok := src.Next(); !ok {
					require.NoError(t, src.Err())
					return n
				}
				check(n)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base, ok := gcwatch.SettledLiveHeap(4)
			if !ok {
				t.Skip("no collection runs (GOGC=off?): the live heap cannot be judged")
			}
			peak := base
			n := tt.read(newStream(tasks), func(i int) {
				if i%250_000 == 0 {
					live, _ := gcwatch.SettledLiveHeap(4)
					peak = max(peak, live)
				}
			})
			require.GreaterOrEqual(t, n, tasks)
			growth := int64(peak) - int64(base)
			t.Logf("live heap %d bytes before, at most %d while reading (growth %d)", base, peak, growth)
			require.Less(t, growth, int64(maxGrowth), "the live heap grew by %d bytes over %d lines", growth, n)
		})
	}
}
