package zookeeper

import (
	"encoding/binary"
	"time"

	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The requests P3 judges, in the zookeeper-session specification's
// payload conventions (model.OpZK*): the server records each request it
// processes as an operation, as it processes it (gohost.Node.Call,
// Processed and Return at the same instant, under the request mutex), so
// that the history holds the server's processing order with its clock
// readings. A request the server never processed (its session gone, a
// client that saw a later zxid) is no operation. The client's side (when
// the reply reached it, or that it never did) is not in these operations:
// P3 judges the server, the holders' beliefs judge the client.

// epoch is where the server's clock readings count from: the instant a
// testing/synctest bubble starts (midnight UTC, 2000-01-01), so that a
// reading is the node's clock since the start of the run (its drift
// applied; the stories here step no clock).
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// reading is the server's clock reading now. Callers hold mu.
func (s *server) reading() time.Duration { return s.clock.Now().Sub(epoch) }

// servedKey is the Storage key of the last reading at which the server
// served (a request or a tick of its session tracker): what a restart
// tells the specification of the previous life, since no session expires
// while no server runs.
const servedKey = "zookeeper/served"

// served stores the reading now as the last one the server served at.
// Callers hold mu.
func (s *server) served() {
	s.n.Storage().Put(servedKey, binary.BigEndian.AppendUint64(nil, uint64(s.reading())))
}

// lastServed is the previous life's last served reading (0 if unknown).
func (s *server) lastServed() time.Duration {
	b, ok := s.n.Storage().Get(servedKey)
	if !ok || len(b) != 8 {
		return 0
	}
	return time.Duration(binary.BigEndian.Uint64(b))
}

// record records one processed request with its reply. Callers hold mu.
func (s *server) record(in, out history.Payload) {
	s.served()
	out.Kind, out.Clock = in.Kind+"_reply", s.reading()
	ref := s.n.Call(s.n.Name(), in)
	s.n.Processed(ref, out)
	s.n.Return(ref)
}

// createMode names a create's flags as the specification does.
func createMode(flags int32) string {
	switch flags {
	case flagEphemeral:
		return model.ZKEphemeral
	case flagSequential:
		return model.ZKSequential
	case flagEphemeral | flagSequential:
		return model.ZKEphemeralSequential
	}
	return model.ZKPersistent
}

// errName names an error code as the specification reads it: the codes
// it models by their names, any other by a name it reads as "other".
func errName(code errCode) string {
	switch code {
	case errOK:
		return ""
	case errNoNode:
		return model.ZKNoNode
	case errNodeExists:
		return model.ZKNodeExists
	case errNotEmpty:
		return model.ZKNotEmpty
	case errBadVersion:
		return "bad_version"
	}
	return "error"
}

// sessionIDs names the open sessions as the specification does.
func (s *server) sessionIDs() []history.KV {
	var out []history.KV
	for _, id := range sortedSessions(s.sessions) {
		out = append(out, history.KV{Key: model.ZKSessionName(uint64(id))})
	}
	return out
}
