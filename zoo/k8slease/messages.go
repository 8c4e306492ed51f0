package k8slease

import (
	"github.com/leasesim/leasesim/history"
	"github.com/leasesim/leasesim/lease"
	"github.com/leasesim/leasesim/sim"
)

// The API server's verbs on a Lease, named as the cas-record
// specification names them.
const (
	opGet    = "get"
	opCreate = "create"
	opUpdate = "update"
)

// How a verb failed, named as the cas-record specification names it; ""
// is success.
const (
	errNotFound   = "not_found"      // get or update of a Lease that does not exist
	errExists     = "already_exists" // create of a Lease that exists
	errConflict   = "conflict"       // update with a resourceVersion that is no longer the Lease's
	errBadRequest = "bad_request"    // refused without effect
)

// request is a candidate's call to the API server: get, create or update
// one Lease. Sent as a pointer and never changed after sending.
type request struct {
	Op     string
	Client lease.Addr // the candidate that sent it
	ID     uint64     // the candidate's request counter, its incarnation in the high 32 bits
	Name   string     // the Lease's name: the leased resource
	Record record     // create, update: the record to write
	// Version is, for update, the resourceVersion the writer read: the
	// update applies only if it is still the Lease's (optimistic
	// concurrency).
	Version string
}

// response is the API server's answer to one request.
type response struct {
	Op     string // the request's Op + "_reply"
	Client lease.Addr
	ID     uint64
	Name   string
	Err    string
	Record record // get: the Lease's record
	// Version is the Lease's resourceVersion: the one read (get), or the
	// new one after a create or an update.
	Version string
}

// reply returns the skeleton of the response to q.
func (q *request) reply() *response {
	return &response{Op: q.Op + "_reply", Client: q.Client, ID: q.ID, Name: q.Name}
}

// Describe returns the request as its part of an operation on the
// cas-record specification.
func (q request) Describe() history.Part {
	p := recordPayload(q.Record)
	p.Kind, p.Resource, p.Key, p.Version = q.Op, q.Name, q.Name, q.Version
	if q.Op == opGet {
		p = history.Payload{Kind: q.Op, Resource: q.Name, Key: q.Name}
	}
	return history.Part{Client: string(q.Client), ID: q.ID, Payload: p}
}

// Describe returns the response as its part of an operation on the
// cas-record specification: the record only for a get.
func (r response) Describe() history.Part {
	p := history.Payload{}
	if r.Op == opGet+"_reply" && r.Err == "" {
		p = recordPayload(r.Record)
	}
	p.Kind, p.Resource, p.Key, p.Err, p.Version = r.Op, r.Name, r.Name, r.Err, r.Version
	return history.Part{Client: string(r.Client), ID: r.ID, Reply: true, Payload: p}
}

// recordPayload maps a record onto the payload fields the cas-record
// specification reads.
func recordPayload(r record) history.Payload {
	return history.Payload{Holder: r.HolderIdentity, HolderIncarnation: r.HolderIncarnation,
		TTL: r.LeaseDuration, Token: r.LeaseTransitions, Value: r.times()}
}

// Digest folds the request's contents into the trace hash.
func (q request) Digest() uint64 {
	words := make([]uint64, 0, 12)
	words = append(words, 1, sim.DigestString(q.Op), sim.DigestString(string(q.Client)), q.ID,
		sim.DigestString(q.Name), sim.DigestString(q.Version))
	return sim.Digest(q.Record.digest(words)...)
}

// Digest folds the response's contents into the trace hash.
func (r response) Digest() uint64 {
	words := make([]uint64, 0, 13)
	words = append(words, 2, sim.DigestString(r.Op), sim.DigestString(string(r.Client)), r.ID,
		sim.DigestString(r.Name), sim.DigestString(r.Err), sim.DigestString(r.Version))
	return sim.Digest(r.Record.digest(words)...)
}

var (
	_ history.Described = request{}
	_ history.Described = response{}
	_ sim.Digester      = request{}
	_ sim.Digester      = response{}
)
