package hraft

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
)

// command is a write as it travels through the log: the value and the
// client's request ref, so that the member that applies it first records
// the operation as processed (the write takes effect when it commits, on
// whichever member applies it, whether or not the client hears of it).
type command struct {
	Ref   string `json:"ref"`
	Value string `json:"value"`
}

// Register is the replicated state machine: one register (Key of
// Resource) set by writes through the log and read by the application.
type Register struct {
	n *gohost.Node

	mu    sync.Mutex
	value string
}

// newRegister returns an empty register recording on n.
func newRegister(n *gohost.Node) *Register { return &Register{n: n} }

// Apply sets the register to a committed write's value.
func (r *Register) Apply(l *raft.Log) any {
	var c command
	if err := json.Unmarshal(l.Data, &c); err != nil {
		return fmt.Errorf("hraft: entry %d: %w", l.Index, err)
	}
	r.mu.Lock()
	r.value = c.Value
	r.mu.Unlock()
	if ref, err := gohost.ParseOpRef(c.Ref); err == nil {
		r.n.Processed(ref, history.Payload{Kind: "write_reply"})
	}
	return nil
}

// Get returns the register's value as this member has applied it.
func (r *Register) Get() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.value
}

// Snapshot captures the value.
func (r *Register) Snapshot() (raft.FSMSnapshot, error) { return registerSnapshot{value: r.Get()}, nil }

// Restore replaces the value with a snapshot's.
func (r *Register) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	var s struct{ Value string }
	if err := json.NewDecoder(rc).Decode(&s); err != nil {
		return fmt.Errorf("hraft: restore: %w", err)
	}
	r.mu.Lock()
	r.value = s.Value
	r.mu.Unlock()
	return nil
}

// registerSnapshot is a snapshot of the register.
type registerSnapshot struct{ value string }

// Persist writes the snapshot to sink.
func (s registerSnapshot) Persist(sink raft.SnapshotSink) error {
	if err := json.NewEncoder(sink).Encode(struct{ Value string }{s.value}); err != nil {
		_ = sink.Cancel()
		return fmt.Errorf("hraft: snapshot: %w", err)
	}
	return sink.Close()
}

// Release does nothing.
func (registerSnapshot) Release() {}
