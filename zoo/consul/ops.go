package consul

import (
	"encoding/binary"
	"time"

	"github.com/leasesim/leasesim/gohost"
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/model"
)

// The requests P3 judges, in the consul-session specification's payload
// conventions (model.OpConsul*): the server records each session and KV
// request it serves as an operation, as it serves it (gohost.Node.Call,
// Processed and Return at the same instant, under the state's mutex), so
// that the history holds the server's processing order with its clock
// readings; a new leader records its failover with the sessions it
// renewed. A recursive read (a list) and a request refused before it
// reached the state (no leader, a malformed request) are not operations.
// The client's side (when the reply reached it) is not in these
// operations: P3 judges the server, the holders' beliefs judge the client.

// Spec is the specification the server's operations are judged by (P3):
// model.ConsulSessionSpec, with the invalidation bound (HoldPPB) and the
// lock-delay (LockDelay) Setup.Config declares.
const Spec = "consul-session"

// epoch is where the server's clock readings count from: the instant a
// testing/synctest bubble starts (midnight UTC, 2000-01-01), so that a
// reading is the node's clock since the start of the run.
var epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// recorder records the server's operations on its node.
type recorder struct {
	n *gohost.Node
}

// record records one served request with its reply at the server's
// clock reading now. Callers hold the state's mutex. A nil recorder (a
// server in a test of its own) records nothing.
func (r *recorder) record(now time.Time, in, out history.Payload) {
	if r == nil || r.n == nil {
		return
	}
	r.served(now)
	out.Kind, out.Clock = in.Kind+"_reply", now.Sub(epoch)
	ref := r.n.Call(r.n.Name(), in)
	r.n.Processed(ref, out)
	r.n.Return(ref)
}

// servedKey is the Storage key of the last reading at which the leader
// served (a request, or its session timers): what a failover tells the
// specification of the previous leader, since no session is invalidated
// while there is no leader.
const servedKey = "consul/served"

// served stores now as the last reading the leader served at. Callers
// hold the state's mutex.
func (r *recorder) served(now time.Time) {
	if r != nil && r.n != nil {
		r.n.Storage().Put(servedKey, binary.BigEndian.AppendUint64(nil, uint64(now.Sub(epoch))))
	}
}

// failover records a new leader renewing the sessions it loaded.
func (r *recorder) failover(now time.Time, st *state) {
	var keys []history.KV
	for _, id := range st.ids {
		keys = append(keys, history.KV{Key: id})
	}
	var lost time.Duration
	if b, ok := r.n.Storage().Get(servedKey); ok && len(b) == 8 {
		lost = time.Duration(binary.BigEndian.Uint64(b))
	}
	r.record(now, history.Payload{Kind: model.OpConsulFailover, Clock: lost}, history.Payload{Keys: keys})
}
