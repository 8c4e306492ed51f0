package checker

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/leasesim/leasesim/history"
)

// lessorOp adds an operation of an etcd-style lessor, called, processed
// and returned at the given milliseconds.
func (b *hb) lessorOp(client string, call, processed, ret int64, in, out history.Payload) *hb {
	b.reqID++
	b.h.AppendOp(history.Operation{Client: client, Incarnation: 1, Server: b.h.Grantor, ID: b.reqID,
		Call: at(call), Processed: at(processed), Return: at(ret), Input: in, Output: out})
	return b
}

// A replicated store's members answer in an order of their own: a
// follower may answer a read of revision 2 after the leader answered the
// put that made revision 3. The order of the revisions the replies name
// is then a witness, and decides the resource with a budget of one model
// step, where porcupine could not; but only while it keeps real time: a
// read called after the newer put returned cannot see the older value,
// and the witness is refused (porcupine finds the violation).
func TestLessorRevisionWitness(t *testing.T) {
	put := func(v string, rev int64) (history.Payload, history.Payload) {
		return history.Payload{Kind: "put", Key: "k", Value: v},
			history.Payload{Kind: "put_reply", OK: true, Revision: rev, Token: 2}
	}
	getA := history.Payload{Kind: "get_reply", OK: true, Value: "a", Revision: 2, Token: 2, Version: "2"}
	get := history.Payload{Kind: "get", Key: "k"}
	tests := []struct {
		name            string
		call, proc, ret int64 // the read's times, in ms
		steps           int64
		want            Status
		summary         string
	}{
		{"a follower answers an older revision late", 1900, 2600, 2700, 1, OK, "linearizable"},
		{"the read began after the newer put returned", 2600, 2700, 2800, 0, Violated, "violation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inA, outA := put("a", 2)
			inB, outB := put("b", 3)
			h := newHistory().lessorOp("h1", 900, 1000, 1100, inA, outA).
				lessorOp("h2", 1500, 2000, 2500, inB, outB).
				lessorOp("h3", tt.call, tt.proc, tt.ret, get, getA).build()
			h.Spec = "lessor"
			r := Linearizability(h, Options{LinearizabilitySteps: tt.steps})
			assert.Equal(t, tt.want, r.Status, r.Summary)
			assert.Contains(t, r.Summary, tt.summary)
		})
	}
}
