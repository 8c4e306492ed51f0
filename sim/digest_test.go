package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type digested struct{ v uint64 }

func (d digested) Digest() uint64 { return d.v }

type opaque struct{ v int }

// Sends are hashed with their contents: the same sends with different
// contents give different hashes, and payloads the kernel cannot digest are
// counted, not silently passed.
func TestSendHashCoversContents(t *testing.T) {
	run := func(payloads ...any) Result {
		w := New(Config{Seed: 1})
		a := w.AddNode("a", nil)
		b := w.AddNode("b", func(n *Node) { n.Handle(func(NodeID, any) {}) })
		w.At(0, func() {
			for _, p := range payloads {
				a.Send(b.ID(), p)
			}
		})
		return w.RunFor(1e9)
	}
	tests := []struct {
		name       string
		x, y       any
		sameHash   bool
		undigested uint64
	}{
		{"digester equal", digested{1}, digested{1}, true, 0},
		{"digester differs", digested{1}, digested{2}, false, 0},
		{"bytes differ", []byte("a"), []byte("b"), false, 0},
		{"strings differ", "a", "b", false, 0},
		{"ints differ", 1, 2, false, 0},
		{"opaque payloads are counted", opaque{1}, opaque{2}, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rx, ry := run(tc.x), run(tc.y)
			assert.Equal(t, tc.sameHash, rx.TraceHash == ry.TraceHash)
			assert.Equal(t, tc.undigested, rx.UndigestedSends)
		})
	}
}

func TestDigestSeparatesWords(t *testing.T) {
	assert.NotEqual(t, Digest(1, 2), Digest(2, 1))
	assert.NotEqual(t, Digest(0), Digest(0, 0))
	assert.Equal(t, DigestString("abc"), DigestBytes([]byte("abc")))
}
