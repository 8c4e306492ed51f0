package lease

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// NopObserver discards every event.
type NopObserver struct{}

// Observe discards ev.
func (NopObserver) Observe(Event) {}

// CountingObserver counts events by kind. It is safe for concurrent use; the
// zero value is ready.
type CountingObserver struct {
	mu     sync.Mutex
	counts map[EventKind]int
}

// Observe counts ev.
func (c *CountingObserver) Observe(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil {
		c.counts = make(map[EventKind]int)
	}
	c.counts[ev.Kind]++
}

// Count returns how many events of kind k were observed.
func (c *CountingObserver) Count(k EventKind) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[k]
}

// Snapshot returns a copy of the counts, keyed by kind name.
func (c *CountingObserver) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, n := range c.counts { // order does not matter: copying into a map
		out[k.String()] = n
	}
	return out
}

// JSONLinesObserver writes each event as one JSON object per line. It is safe
// for concurrent use. A write error is recorded, later events are dropped,
// and Err reports it.
type JSONLinesObserver struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

// NewJSONLinesObserver returns an observer that writes to w.
func NewJSONLinesObserver(w io.Writer) *JSONLinesObserver {
	return &JSONLinesObserver{enc: json.NewEncoder(w)}
}

// Observe writes ev as one line.
func (o *JSONLinesObserver) Observe(ev Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return
	}
	if err := o.enc.Encode(ev); err != nil {
		o.err = fmt.Errorf("lease: writing event log: %w", err)
	}
}

// Err returns the first write error, or nil.
func (o *JSONLinesObserver) Err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

// MultiObserver returns an observer that hands each event to every non-nil
// observer in obs, in order.
func MultiObserver(obs ...Observer) Observer {
	var list multiObserver
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	return list
}

type multiObserver []Observer

func (m multiObserver) Observe(ev Event) {
	for _, o := range m {
		o.Observe(ev)
	}
}
