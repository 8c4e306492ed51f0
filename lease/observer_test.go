package lease_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/leasesim/leasesim/lease"
)

func TestCountingObserverConcurrent(t *testing.T) {
	var c lease.CountingObserver
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				c.Observe(lease.Event{Kind: lease.EventRenew})
			}
			c.Observe(lease.Event{Kind: lease.EventLost})
		}()
	}
	wg.Wait()
	assert.Equal(t, 800, c.Count(lease.EventRenew))
	assert.Equal(t, 8, c.Count(lease.EventLost))
	assert.Equal(t, map[string]int{"renew": 800, "lost": 8}, c.Snapshot())
}

func TestJSONLinesObserverFormat(t *testing.T) {
	var buf bytes.Buffer
	o := lease.NewJSONLinesObserver(&buf)
	wall := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	o.Observe(lease.Event{Kind: lease.EventCheckpoint, Node: "h1", Resource: "r", Token: 3,
		Local: time.Second, Wall: wall, Duration: 2 * time.Millisecond})
	o.Observe(lease.Event{Kind: lease.EventRenewFailed, Node: "h1", Resource: "r", Err: "timeout"})
	require.NoError(t, o.Err())

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 2)
	assert.Equal(t, `{"kind":"checkpoint","node":"h1","resource":"r","token":3,"local_ns":1000000000,`+
		`"wall":"2026-01-02T03:04:05Z","duration_ns":2000000}`, lines[0])
	var back lease.Event
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &back))
	assert.Equal(t, lease.EventRenewFailed, back.Kind, "the log can be read back")
	assert.Equal(t, "timeout", back.Err)
}

type failingWriter struct{ calls int }

func (w *failingWriter) Write([]byte) (int, error) {
	w.calls++
	return 0, errors.New("disk full")
}

func TestJSONLinesObserverRecordsWriteError(t *testing.T) {
	w := &failingWriter{}
	o := lease.NewJSONLinesObserver(w)
	o.Observe(lease.Event{Kind: lease.EventGrant})
	o.Observe(lease.Event{Kind: lease.EventGrant})
	assert.ErrorContains(t, o.Err(), "disk full")
	assert.Equal(t, 1, w.calls, "events after an error are dropped")
}

func TestMultiObserver(t *testing.T) {
	a, b := &recorder{}, &lease.CountingObserver{}
	m := lease.MultiObserver(a, nil, b, lease.NopObserver{})
	m.Observe(lease.Event{Kind: lease.EventFenced})
	assert.Len(t, a.events, 1)
	assert.Equal(t, 1, b.Count(lease.EventFenced))
}

func TestEventKindNames(t *testing.T) {
	for k := lease.EventGrant; k <= lease.EventRelease; k++ {
		text, err := k.MarshalText()
		require.NoError(t, err)
		assert.NotContains(t, string(text), "(", "every kind has a name")
		var back lease.EventKind
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, k, back)
	}
}
