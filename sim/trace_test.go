package sim_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/sim"
)

// jsonLine is the JSON-lines form of a trace record.
type jsonLine struct {
	T    int64  `json:"t"`
	Ev   string `json:"ev"`
	Node string `json:"node"`
	Peer string `json:"peer"`
	A    uint64 `json:"a"`
	B    uint64 `json:"b"`
}

// TestTraceStreamsEveryRecordAsJSONLines streams a demo run: one JSON object
// per record, in order, agreeing with the in-memory records.
func TestTraceStreamsEveryRecordAsJSONLines(t *testing.T) {
	var buf bytes.Buffer
	w := newDemoWorld(3, sim.TraceConfig{Writer: &buf, Keep: 1 << 20})
	require.NoError(t, w.RunFor(demoDuration).Err)
	recent := w.Trace().Recent()
	require.Len(t, recent, int(w.Trace().Len()), "Keep is large enough to hold everything")

	sc := bufio.NewScanner(&buf)
	i := 0
	for sc.Scan() {
		var line jsonLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "line %d: %s", i+1, sc.Text())
		require.Less(t, i, len(recent), "more lines than records")
		r := recent[i]
		assert.Equal(t, int64(r.At), line.T, "line %d", i+1)
		assert.Equal(t, r.Kind.String(), line.Ev, "line %d", i+1)
		assert.Equal(t, nameOf(w, r.Node), line.Node, "line %d", i+1)
		assert.Equal(t, nameOf(w, r.Peer), line.Peer, "line %d", i+1)
		assert.Equal(t, [2]uint64{r.A, r.B}, [2]uint64{line.A, line.B}, "line %d", i+1)
		i++
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, len(recent), i, "one line per record")
}

func nameOf(w *sim.World, id int32) string {
	if id < 0 {
		return ""
	}
	return w.Node(sim.NodeID(id)).Name()
}

// TestTraceMemoryIsBounded: the in-memory ring keeps only the most recent
// Keep records while Len counts them all, and the hash does not depend on
// how much is kept or whether the trace is streamed.
func TestTraceMemoryIsBounded(t *testing.T) {
	full := newDemoWorld(5, sim.TraceConfig{Keep: 1 << 20})
	require.NoError(t, full.RunFor(demoDuration).Err)
	all := full.Trace().Recent()
	require.Greater(t, len(all), 1000)

	for _, keep := range []int{-1, 1, 100, 999, len(all), len(all) + 1} {
		var buf bytes.Buffer
		w := newDemoWorld(5, sim.TraceConfig{Keep: keep, Writer: &buf})
		res := w.RunFor(demoDuration)
		require.NoError(t, res.Err)
		tr := w.Trace()
		assert.Equal(t, full.Trace().HashString(), tr.HashString(), "keep %d", keep)
		assert.Equal(t, full.Trace().Hash(), res.TraceHash, "keep %d", keep)
		assert.Equal(t, uint64(len(all)), tr.Len(), "keep %d: Len counts every record", keep)
		recent := tr.Recent()
		assert.LessOrEqual(t, len(recent), max(keep, 0), "keep %d", keep)
		if len(recent) > 0 {
			assert.Equal(t, all[len(all)-len(recent):], recent, "keep %d: the ring holds the latest records, oldest first", keep)
		}
		assert.Equal(t, len(all), bytes.Count(buf.Bytes(), []byte("\n")), "keep %d: streaming sees everything", keep)
	}
	def := newDemoWorld(5, sim.TraceConfig{})
	require.NoError(t, def.RunFor(demoDuration).Err)
	assert.Len(t, def.Trace().Recent(), min(len(all), sim.DefaultTraceKeep))
}

// failingWriter fails every write after the first n bytes.
type failingWriter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

func TestTraceStreamingErrorIsReported(t *testing.T) {
	w := newDemoWorld(1, sim.TraceConfig{Writer: &failingWriter{n: 100}})
	res := w.RunFor(demoDuration)
	require.ErrorIs(t, res.Err, errDiskFull)
	assert.ErrorIs(t, w.Trace().Err(), errDiskFull)
}

func TestTraceRecordsSeedsFirst(t *testing.T) {
	w := sim.New(sim.Config{Seed: 42, Trace: sim.TraceConfig{Keep: 16}})
	w.AddNode("a", nil)
	recs := w.Trace().Recent()
	require.Len(t, recs, 2)
	for i, r := range recs {
		assert.Equal(t, sim.RecSeed, r.Kind)
		assert.Equal(t, w.Seeds()[i].Seed, r.A)
	}
	assert.Equal(t, []string{"network", "node/a"}, []string{w.Seeds()[0].Component, w.Seeds()[1].Component})
	assert.Equal(t, "kind(99)", sim.RecordKind(99).String())
}

// TestTraceStreamsAwkwardNamesAsValidJSON: node names are JSON-escaped.
func TestTraceStreamsAwkwardNamesAsValidJSON(t *testing.T) {
	var buf bytes.Buffer
	w := sim.New(sim.Config{Trace: sim.TraceConfig{Writer: &buf}})
	names := []string{`quote"d`, "new\nline", "ünï", `back\slash`, ""}
	for _, name := range names {
		w.AddNode(name, func(n *sim.Node) { n.Send(0, "hi") })
	}
	require.NoError(t, w.RunFor(time.Second).Err)
	seen := make(map[string]bool)
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var line jsonLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), sc.Text())
		seen[line.Node] = true
		if line.Ev == "send" {
			assert.Equal(t, `quote"d`, line.Peer)
		}
	}
	for _, name := range names {
		assert.True(t, seen[name], "node %q appears", name)
	}
}
