package history_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/internal/gcwatch"
)

// stream is an io.Reader that makes up a history of n operations and
// beliefs as it is read, so a test can read a huge file that never exists.
type stream struct {
	n, next int
	pending []byte
}

func newStream(n int) *stream { return &stream{n: n, pending: []byte(header + "\n")} }

func (s *stream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		switch {
		case s.next == s.n:
			s.pending = fmt.Appendf(s.pending, `{"type":"end","at_ns":%d}`+"\n", 10*s.n+10)
			s.next++
		case s.next > s.n:
			return 0, io.EOF
		default:
			s.next++
			at := 10 * s.next
			s.pending = fmt.Appendf(s.pending, `{"type":"operation","client":"h%d","server":"g","id":%d,"call_ns":%d,"return_ns":%d,"input":{"kind":"renew","key":"lock","token":%d},"output":{"kind":"renew_reply","ok":true}}`+"\n",
				s.next%8, s.next, at, at+5, s.next)
			s.pending = fmt.Appendf(s.pending, `{"type":"belief","holder":"h%d","resource":"lock","token":%d,"start_ns":%d,"end_ns":%d,"reason":"release"}`+"\n",
				s.next%8, s.next, at+5, at+9)
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// TestReaderStreamsInConstantMemory reads a history of a million events
// through an io.Reader and checks that the live heap does not grow with
// it: the Reader holds one line at a time. It forces no collection: every
// 250,000 events, with the Reader in hand, the live heap is read from
// collections that allocation brings about (gcwatch.SettledLiveHeap), and
// it stays within maxGrowth of the one before reading. It asserts memory,
// never time.
func TestReaderStreamsInConstantMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a million lines")
	}
	const ops = 500_000
	base, ok := gcwatch.SettledLiveHeap(4)
	if !ok {
		t.Skip("no collection runs (GOGC=off?): the live heap cannot be judged")
	}
	peak := base
	r, err := history.NewReader(newStream(ops), "huge.jsonl")
	require.NoError(t, err)
	n := 0
	for ; ; n++ {
		if _, err := r.Next(); err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		if n%250_000 == 0 {
			live, _ := gcwatch.SettledLiveHeap(4)
			peak = max(peak, live)
		}
	}
	require.Equal(t, 2*ops, n)
	growth := int64(peak) - int64(base)
	t.Logf("live heap %d bytes before, at most %d while reading %d events (growth %d)", base, peak, n, growth)
	require.Less(t, growth, int64(maxGrowth), "the live heap grew by %d bytes over %d events", growth, n)
}

// maxGrowth is how much the live heap may grow while reading: the
// collector's readings vary by a megabyte or two; the million events kept
// in memory would take over 300.
const maxGrowth = 32 << 20

// BenchmarkReader measures reading one event (an operation or a belief).
func BenchmarkReader(b *testing.B) {
	r, err := history.NewReader(newStream(b.N/2+1), "bench.jsonl")
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := r.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
